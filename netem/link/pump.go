package link

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Pump reads packets from a packet device (a TUN file descriptor) and hands
// each to a Pipe. It is the arrival side of the emulator and needs the same
// care as the delay line: the pipe stamps a packet's arrival time when
// Enqueue is called, so any time the packet spends waiting for a reader is
// added to the emulated delay. A goroutine reading an *os.File waits for Go's
// network poller and then for a CPU, which on a loaded machine costs
// milliseconds; Pump instead blocks in poll(2) on its own OS thread with
// SCHED_FIFO priority (when permitted), which the kernel wakes immediately.
type Pump struct {
	fd   int // our duplicate of the device descriptor
	stop int // eventfd written by Close
	done chan struct{}

	closeOnce sync.Once
	mu        sync.Mutex
	err       error
	rtErr     error
}

// maxPacketSize bounds one read; TUN devices without offloads return at
// most the MTU, but a larger buffer never truncates.
const maxPacketSize = 65535

// StartPump starts reading packets from f. route picks the pipe for each
// packet (it may inspect the packet; it must not keep it) or returns nil to
// drop it. f stays owned by the caller, who closes it after Pump.Close; the
// pump reads through its own duplicate of the descriptor.
func StartPump(f *os.File, route func(pkt []byte) *Pipe) (*Pump, error) {
	if route == nil {
		return nil, errors.New("link: pump: route is nil")
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("link: pump %s: %w", f.Name(), err)
	}
	dup := -1
	var dupErr error
	if err := sc.Control(func(fd uintptr) { dup, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, fmt.Errorf("link: pump %s: %w", f.Name(), err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("link: pump %s: duplicating the descriptor: %w", f.Name(), dupErr)
	}
	// The duplicate shares the file's non-blocking flag (Go sets it); the
	// pump polls before reading, so that is what it wants anyway.
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, fmt.Errorf("link: pump %s: %w", f.Name(), err)
	}
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(dup)
		return nil, fmt.Errorf("link: pump %s: eventfd: %w", f.Name(), err)
	}
	p := &Pump{fd: dup, stop: stop, done: make(chan struct{})}
	ready := make(chan error)
	go p.run(route, ready)
	p.rtErr = <-ready
	return p, nil
}

func (p *Pump) run(route func(pkt []byte) *Pipe, ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the real-time thread dies with us
	defer close(p.done)
	ready <- makeThreadPrecise()
	buf := make([]byte, maxPacketSize)
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}, {Fd: int32(p.stop), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			p.fail(fmt.Errorf("poll: %w", err))
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 && fds[0].Revents&unix.POLLIN == 0 {
			p.fail(fmt.Errorf("device reported poll events %#x", fds[0].Revents))
			return
		}
		// Drain everything that is ready before polling again.
		for {
			n, err := unix.Read(p.fd, buf)
			if err != nil {
				if err == unix.EAGAIN || err == unix.EINTR {
					break
				}
				p.fail(fmt.Errorf("read: %w", err))
				return
			}
			if n == 0 {
				p.fail(errors.New("read: end of file"))
				return
			}
			if pipe := route(buf[:n]); pipe != nil {
				pipe.Enqueue(buf[:n])
			}
		}
	}
}

func (p *Pump) fail(err error) {
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
}

// Err is why the pump stopped on its own (the device went away), or nil.
func (p *Pump) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// RealTimeErr says why the reader thread runs without SCHED_FIFO, or nil.
func (p *Pump) RealTimeErr() error { return p.rtErr }

// Close stops the pump and waits for its thread to exit. It is idempotent and
// does not close the caller's file.
func (p *Pump) Close() error {
	p.closeOnce.Do(func() {
		var one [8]byte
		one[0] = 1 // eventfd counters are host-endian; 1 is non-zero either way
		unix.Write(p.stop, one[:])
		<-p.done
		unix.Close(p.fd)
		unix.Close(p.stop)
	})
	return nil
}
