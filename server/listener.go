package server

import (
	"net"
	"sync"
	"syscall"
)

var errTooManyFiles = syscall.EMFILE

// connListener hands connections the server accepted and already
// TLS-handshook to net/http, which then serves them as HTTP/1.1 or h2.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// deliver passes c to the accept loop; false once the listener is closed.
func (l *connListener) deliver(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "spdylab-alpn" }
func (pipeAddr) String() string  { return "spdylab-alpn" }
