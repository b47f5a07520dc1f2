package link

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The emulator's clock is CLOCK_MONOTONIC in nanoseconds. Go's own
// monotonic clock reads the same kernel clock through the vDSO, so we read
// it cheaply with time.Since and add the offset measured once here; the
// absolute values are what futex timeouts need.
var (
	clockEpoch     = time.Now()
	clockEpochMono = func() int64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			return 0
		}
		return ts.Nano()
	}()
)

// monoNow is the current CLOCK_MONOTONIC time in nanoseconds.
func monoNow() int64 { return clockEpochMono + int64(time.Since(clockEpoch)) }

const (
	futexWaitBitset   = 9
	futexWake         = 1
	futexPrivate      = 128
	futexBitsetAnyOne = 0xffffffff
)

// futexWaitUntil sleeps while *addr == val, until deadline (absolute
// CLOCK_MONOTONIC ns; 0 = no deadline) or a futexWakeAll on addr. It returns
// true when the deadline passed. A futex is used instead of clock_nanosleep
// so that the producer can wake the sleeper (on close, or when the first
// packet arrives at an idle line) through the same primitive.
func futexWaitUntil(addr *uint32, val uint32, deadline int64) (timedOut bool) {
	var tsp unsafe.Pointer
	var ts unix.Timespec
	if deadline > 0 {
		ts = unix.NsecToTimespec(deadline)
		tsp = unsafe.Pointer(&ts)
	}
	_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)),
		futexWaitBitset|futexPrivate, uintptr(val), uintptr(tsp), 0, futexBitsetAnyOne)
	runtime.KeepAlive(&ts)
	return errno == unix.ETIMEDOUT
}

// futexWakeAll wakes every thread sleeping on addr.
func futexWakeAll(addr *uint32) {
	atomic.AddUint32(addr, 1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake|futexPrivate, 1<<30, 0, 0, 0)
}

// realtimePriority is the SCHED_FIFO priority of the delay-line threads:
// above every normal process (so a compiler on the other core cannot delay a
// packet by a scheduling quantum) but low among real-time tasks, leaving
// kernel threads and anything deliberately real-time ahead of us.
const realtimePriority = 10

// makeThreadPrecise prepares the calling OS thread (locked by the caller)
// for precise sleeping: 1 ns timer slack, so the kernel does not coalesce
// our wake-ups with others (the default is 50 µs), and SCHED_FIFO, so a
// woken thread runs at once instead of waiting for a busy CPU's time slice.
// It returns the reason real-time scheduling is unavailable, or nil.
func makeThreadPrecise() error {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: realtimePriority}
	return unix.SchedSetAttr(0, &attr, 0)
}
