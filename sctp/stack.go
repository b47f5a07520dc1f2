package sctp

/*
#cgo pkg-config: usrsctp
#include "shim.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The usrsctp stack is one per process. It runs without threads of its own
// (usrsctp_init_nothreads): a goroutine drives its timers while any socket is
// open, and packets enter through usrsctp_conninput from the UDP readers, so
// every callback into Go (packet output, socket upcalls) arrives on a
// goroutine that already holds an OS thread.

// timerTick is how often the stack's timers run; it bounds the precision of
// retransmission timeouts and delayed SACKs (both well above it).
const timerTick = 5 * time.Millisecond

// idleTimerGrace keeps timers running after the last socket closed, so
// associations that are still shutting down finish their exchange.
const idleTimerGrace = 3 * time.Second

var stack struct {
	once sync.Once

	mu      sync.Mutex
	sockets int // open usrsctp sockets (timers run while > 0, plus a grace)
	ticking bool
	lastUse time.Time

	// peers maps a peer handle (the opaque AF_CONN address usrsctp hands
	// back in packet output) to where its packets go.
	peers sync.Map // uintptr -> *peer
	// waiters maps a socket handle to the socket woken by its upcall.
	waiters sync.Map // uintptr -> *sockWaiter

	nextHandle atomic.Uint64
}

func initStack() {
	stack.once.Do(func() {
		// Handles are never reused, so a late packet or upcall of a closed
		// association can never reach a newer one.
		stack.nextHandle.Store(1 << 20)
		C.shim_init()
	})
}

func newHandle() uintptr { return uintptr(stack.nextHandle.Add(1)) }

// socketOpened counts a socket and makes sure the timer goroutine runs.
func socketOpened() {
	stack.mu.Lock()
	defer stack.mu.Unlock()
	stack.sockets++
	if !stack.ticking {
		stack.ticking = true
		go runTimers()
	}
}

func socketClosed() {
	stack.mu.Lock()
	stack.sockets--
	stack.lastUse = time.Now()
	stack.mu.Unlock()
}

func runTimers() {
	t := time.NewTicker(timerTick)
	defer t.Stop()
	last := time.Now()
	for now := range t.C {
		ms := now.Sub(last).Milliseconds()
		if ms > 0 {
			C.shim_handle_timers(C.uint32_t(ms))
			last = last.Add(time.Duration(ms) * time.Millisecond)
		}
		stack.mu.Lock()
		if stack.sockets == 0 && now.Sub(stack.lastUse) > idleTimerGrace {
			stack.ticking = false
			stack.mu.Unlock()
			return
		}
		stack.mu.Unlock()
	}
}

// sockWaiter wakes goroutines blocked on a socket's readability or
// writability; usrsctp calls the upcall on every state change.
type sockWaiter struct {
	read, write chan struct{}
}

func newSockWaiter() *sockWaiter {
	return &sockWaiter{read: make(chan struct{}, 1), write: make(chan struct{}, 1)}
}

func (w *sockWaiter) wake() {
	select {
	case w.read <- struct{}{}:
	default:
	}
	select {
	case w.write <- struct{}{}:
	default:
	}
}

//export goUpcall
func goUpcall(handle C.uintptr_t) {
	if w, ok := stack.waiters.Load(uintptr(handle)); ok {
		w.(*sockWaiter).wake()
	}
}

//export goConnOutput
func goConnOutput(handle C.uintptr_t, buf unsafe.Pointer, n C.size_t) C.int {
	v, ok := stack.peers.Load(uintptr(handle))
	if !ok {
		return 0 // the peer is gone: the packet is lost, as on a dead link
	}
	pkt := C.GoBytes(buf, C.int(n))
	if err := v.(*peer).output(pkt); err != nil {
		return -1
	}
	return 0
}
