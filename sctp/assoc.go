package sctp

/*
#include <errno.h>
#include <sys/socket.h>
#include <usrsctp.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var (
	// ErrClosed is returned by operations on a closed association or listener.
	ErrClosed = errors.New("sctp: association closed")
	// ErrAborted reports that the association ended with an ABORT (sent by
	// the peer, or by the stack after too many retransmissions).
	ErrAborted = errors.New("sctp: association aborted")
	// ErrMessageTooBig: a received message did not fit the caller's buffer;
	// the message was discarded.
	ErrMessageTooBig = errors.New("sctp: received message larger than the buffer")
	// ErrStreamOutOfRange: a send on a stream id the association did not
	// negotiate.
	ErrStreamOutOfRange = errors.New("sctp: stream id beyond the negotiated stream count")
)

// gracefulCloseTimeout bounds how long Close waits for SHUTDOWN to complete
// (queued data acknowledged) before it aborts the association.
const gracefulCloseTimeout = 3 * time.Second

// Assoc is one SCTP association over UDP. Messages are sent and received
// whole; ordered within a stream, unordered across streams. Send and
// receive may run concurrently with each other (one goroutine each).
type Assoc struct {
	handle uintptr
	w      *sockWaiter
	peer   *peer
	cfg    Config

	mu sync.RWMutex // guards so against Close while a call is in the stack
	so *C.struct_socket

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	onClose   func() // releases what the dialer or listener set up

	readDeadline, writeDeadline atomic.Pointer[time.Time]

	negotiated atomic.Uint32 // out<<16 | in once established (0 before)
	discard    []byte
}

func newAssoc(so *C.struct_socket, handle uintptr, w *sockWaiter, p *peer, cfg Config) *Assoc {
	return &Assoc{so: so, handle: handle, w: w, peer: p, cfg: cfg, closed: make(chan struct{})}
}

// LocalAddr and RemoteAddr are the UDP addresses the association runs over.
func (a *Assoc) LocalAddr() net.Addr  { return a.peer.pc.LocalAddr() }
func (a *Assoc) RemoteAddr() net.Addr { return a.peer.addr }

// Counters returns the transport counters of this association.
func (a *Assoc) Counters() Counters { return a.peer.counters.snapshot() }

// SetReadDeadline and SetWriteDeadline bound blocked RecvMessage and
// SendMessage calls (zero = none), like net.Conn's.
func (a *Assoc) SetReadDeadline(t time.Time) error { a.readDeadline.Store(&t); a.w.wake(); return nil }
func (a *Assoc) SetWriteDeadline(t time.Time) error {
	a.writeDeadline.Store(&t)
	a.w.wake()
	return nil
}

// state reads the association state and stream counts.
func (a *Assoc) state() (state int, in, out int, err error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.so == nil {
		return 0, 0, 0, ErrClosed
	}
	var st C.int
	var ci, co C.uint16_t
	if r, errno := C.shim_status(a.so, &st, &ci, &co); r < 0 {
		return 0, 0, 0, a.sockError(errno)
	}
	return int(st), int(ci), int(co), nil
}

// Established reports whether the handshake completed.
func (a *Assoc) Established() bool {
	st, _, _, err := a.state()
	return err == nil && st == C.SCTP_ESTABLISHED
}

// Streams returns the outbound and inbound stream counts: the negotiated
// ones once the association is established (the smaller of what each side
// offered), the requested ones before.
func (a *Assoc) Streams() (out, in int) {
	if v := a.negotiated.Load(); v != 0 {
		return int(v >> 16), int(v & 0xffff)
	}
	st, i, o, err := a.state()
	if err == nil && st == C.SCTP_ESTABLISHED && o > 0 {
		a.negotiated.Store(uint32(o)<<16 | uint32(i))
		return o, i
	}
	return a.cfg.outbound(), a.cfg.inbound()
}

// wait blocks until ch is signalled, the association closes, or the deadline
// passes.
func (a *Assoc) wait(ctx context.Context, ch chan struct{}, dl *atomic.Pointer[time.Time]) error {
	var timeout <-chan time.Time
	if d := dl.Load(); d != nil && !d.IsZero() {
		left := time.Until(*d)
		if left <= 0 {
			return fmt.Errorf("sctp: %w", osTimeout)
		}
		t := time.NewTimer(left)
		defer t.Stop()
		timeout = t.C
	}
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-ch:
		return nil
	case <-a.closed:
		return ErrClosed
	case <-timeout:
		return fmt.Errorf("sctp: %w", osTimeout)
	case <-done:
		return ctx.Err()
	}
}

// osTimeout makes deadline errors satisfy os.ErrDeadlineExceeded checks.
var osTimeout = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func (a *Assoc) sockError(err error) error {
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return ErrAborted
	case errors.Is(err, syscall.ETIMEDOUT):
		return fmt.Errorf("%w: peer unreachable (retransmissions exhausted)", ErrAborted)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("sctp: association refused by peer: %w", ErrAborted)
	}
	return fmt.Errorf("sctp: %w", err)
}

func wouldBlock(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINPROGRESS)
}

// SendMessage sends p as one message on stream sid with payload protocol
// identifier ppid, blocking while the send buffer is full.
func (a *Assoc) SendMessage(sid uint16, ppid uint32, p []byte) error {
	if len(p) == 0 {
		return errors.New("sctp: empty message")
	}
	if out, _ := a.Streams(); int(sid) >= out {
		return fmt.Errorf("%w: stream %d, %d outbound streams", ErrStreamOutOfRange, sid, out)
	}
	for {
		a.mu.RLock()
		if a.so == nil {
			a.mu.RUnlock()
			return ErrClosed
		}
		n, errno := C.shim_send(a.so, unsafe.Pointer(&p[0]), C.size_t(len(p)), C.uint16_t(sid), C.uint32_t(ppid))
		a.mu.RUnlock()
		if n >= 0 {
			if int(n) != len(p) {
				return fmt.Errorf("sctp: short send (%d of %d bytes)", n, len(p))
			}
			return nil
		}
		if !wouldBlock(errno) {
			if errors.Is(errno, syscall.EMSGSIZE) {
				return fmt.Errorf("sctp: message of %d bytes larger than the send buffer: %w", len(p), errno)
			}
			if errors.Is(errno, syscall.EINVAL) {
				if out, _ := a.Streams(); int(sid) >= out {
					return fmt.Errorf("%w: stream %d, %d outbound streams", ErrStreamOutOfRange, sid, out)
				}
			}
			return a.sockError(errno)
		}
		if err := a.wait(nil, a.w.write, &a.writeDeadline); err != nil {
			return err
		}
	}
}

// RecvMessage reads the next whole message into p and returns its length,
// stream and payload protocol identifier. io.EOF means the peer shut the
// association down gracefully. A message longer than p is discarded with
// ErrMessageTooBig (the association stays usable).
func (a *Assoc) RecvMessage(p []byte) (n int, sid uint16, ppid uint32, err error) {
	if len(p) == 0 {
		return 0, 0, 0, errors.New("sctp: empty receive buffer")
	}
	buf, tooBig := p, false
	for {
		a.mu.RLock()
		if a.so == nil {
			a.mu.RUnlock()
			return 0, 0, 0, ErrClosed
		}
		var csid C.uint16_t
		var cppid C.uint32_t
		var ctsn C.uint32_t
		var flags C.int
		r, errno := C.shim_recv(a.so, unsafe.Pointer(&buf[n]), C.size_t(len(buf)-n), &csid, &cppid, &ctsn, &flags)
		a.mu.RUnlock()
		switch {
		case r < 0 && wouldBlock(errno):
			if err := a.wait(nil, a.w.read, &a.readDeadline); err != nil {
				return 0, 0, 0, err
			}
			continue
		case r < 0:
			return 0, 0, 0, a.sockError(errno)
		case r == 0 && flags == 0:
			return 0, 0, 0, io.EOF
		}
		if flags&C.MSG_NOTIFICATION != 0 {
			n = 0 // no notifications are subscribed; skip any
			continue
		}
		n += int(r)
		if flags&C.MSG_EOR != 0 {
			a.peer.counters.delivered(uint32(ctsn))
			if tooBig {
				return 0, uint16(csid), uint32(cppid), ErrMessageTooBig
			}
			return n, uint16(csid), uint32(cppid), nil
		}
		if n == len(buf) {
			// The rest of this message goes to a scratch buffer.
			if a.discard == nil {
				a.discard = make([]byte, 64<<10)
			}
			buf, n, tooBig = a.discard, 0, true
		}
	}
}

// Close shuts the association down gracefully (queued messages are
// delivered first, for up to gracefulCloseTimeout), then releases it.
func (a *Assoc) Close() error {
	a.closeOnce.Do(func() { a.closeErr = a.shutdown(true) })
	return a.closeErr
}

// Abort ends the association at once with an ABORT chunk.
func (a *Assoc) Abort() error {
	a.closeOnce.Do(func() { a.closeErr = a.shutdown(false) })
	return a.closeErr
}

func (a *Assoc) shutdown(graceful bool) error {
	if graceful {
		a.gracefulShutdown()
	}
	close(a.closed)
	a.mu.Lock()
	so := a.so
	a.so = nil
	a.mu.Unlock()
	if so != nil {
		C.shim_abort_close(so)
		stack.waiters.Delete(a.handle)
		socketClosed()
	}
	if a.onClose != nil {
		a.onClose()
	}
	return nil
}

// gracefulShutdown sends SHUTDOWN once queued data is acknowledged and waits
// for the peer's SHUTDOWN-ACK (the socket turns readable with EOF/error).
func (a *Assoc) gracefulShutdown() {
	a.mu.RLock()
	so := a.so
	var r C.int
	if so != nil {
		r, _ = C.shim_shutdown_write(so)
	}
	a.mu.RUnlock()
	if so == nil || r < 0 {
		return
	}
	deadline := time.Now().Add(gracefulCloseTimeout)
	for time.Now().Before(deadline) {
		st, _, _, err := a.state()
		if err != nil || st == C.SCTP_CLOSED {
			return
		}
		// Poll as well: a concurrent RecvMessage may take the wake-up.
		t := time.NewTimer(min(50*time.Millisecond, time.Until(deadline)))
		select {
		case <-a.w.read:
		case <-a.w.write:
		case <-t.C:
		}
		t.Stop()
	}
}
