package server

import (
	"net"
	"net/http"
	"sync"

	"github.com/spdylab/spdylab/internal/tcpopt"
)

// Server-side TCP_INFO. The server sends most of a page's bytes, so its
// sockets are where a download's losses are repaired: their retransmits,
// congestion window and slow-start threshold tell what loss recovery cost,
// which the client's TCP_INFO does not show. Every accepted TCP connection
// reads its TCP_INFO at the end of each response and when it closes (the
// socket is gone afterwards); TakeTCPInfo reads the open ones once more and
// hands all of them over, so the harness gets each load's connections
// beside the loader's.

// TCPConnInfo is one accepted connection's TCP_INFO as last read.
type TCPConnInfo struct {
	Local string // the server's address:port
	Peer  string // the client's address:port
	Info  tcpopt.TCPInfo
	// AdaptCC, AdaptLowat and AdaptPaceLowest are what the adaptive
	// mechanisms did on the connection (adapt.go; probe.AdaptCC*
	// outcomes, the last TCP_NOTSENT_LOWAT set, the lowest pacing cap set
	// in bytes/s), empty when they are off or did nothing.
	AdaptCC         string
	AdaptLowat      int
	AdaptPaceLowest uint64
}

// maxTrackedConns bounds the connections remembered for TakeTCPInfo when
// nobody takes them (a long `spdylab serve`).
const maxTrackedConns = 4096

// tcpInfoLog is the connections accepted since the last TakeTCPInfo.
type tcpInfoLog struct {
	mu    sync.Mutex
	conns []*sampledConn
}

// watch wraps an accepted TCP connection so that it records its TCP_INFO;
// other connections are returned as they are.
func (l *tcpInfoLog) watch(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	sc := &sampledConn{TCPConn: tc, local: tc.LocalAddr().String(), peer: tc.RemoteAddr().String(), done: make(chan struct{})}
	l.mu.Lock()
	if len(l.conns) >= maxTrackedConns {
		l.conns = append(l.conns[:0], l.conns[maxTrackedConns/2:]...) // keep the newest half
	}
	l.conns = append(l.conns, sc)
	l.mu.Unlock()
	return sc
}

// TakeTCPInfo returns the TCP_INFO of every TCP connection accepted since
// the last call, in accept order, and forgets them: open connections are
// read now, closed ones as they were when they closed.
func (s *Server) TakeTCPInfo() []TCPConnInfo {
	s.tcpInfo.mu.Lock()
	conns := s.tcpInfo.conns
	s.tcpInfo.conns = nil
	s.tcpInfo.mu.Unlock()
	out := make([]TCPConnInfo, 0, len(conns))
	for _, c := range conns {
		c.sample()
		if info, ok := c.lastInfo(); ok {
			a := c.adapted()
			out = append(out, TCPConnInfo{Local: c.local, Peer: c.peer, Info: info, AdaptCC: a.cc, AdaptLowat: a.lowat, AdaptPaceLowest: a.paceLowest})
		}
	}
	return out
}

// sampleAfterResponse reads the TCP_INFO of r's connection once its
// response has been handed to the protocol.
func sampleAfterResponse(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	for i := 0; i < 8 && c != nil; i++ { // through *tls.Conn to the socket
		if sc, ok := c.(*sampledConn); ok {
			sc.sample()
			return
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return
		}
		c = u.NetConn()
	}
}

// sampledConn is an accepted TCP connection that keeps its last TCP_INFO
// reading. It embeds the socket (tcpopt and the SPDY library reach it
// through NetConn, as through *tls.Conn).
type sampledConn struct {
	*net.TCPConn
	local, peer string

	mu     sync.Mutex
	info   tcpopt.TCPInfo
	have   bool
	closed bool
	done   chan struct{} // closed with the socket: the adaptive loop ends

	adapt adaptRecord // adapt.go's outcome so far
}

// adaptRecord is what the adaptive mechanisms did on a connection so far.
type adaptRecord struct {
	cc         string // probe.AdaptCC* outcome; "" with adaptive cc off
	lowat      int    // the last TCP_NOTSENT_LOWAT set
	paceLowest uint64 // the lowest pacing cap set, bytes/s
}

// setAdapt records the adaptive mechanisms' outcome so far.
func (c *sampledConn) setAdapt(r adaptRecord) {
	c.mu.Lock()
	c.adapt = r
	c.mu.Unlock()
}

func (c *sampledConn) adapted() adaptRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.adapt
}

func (c *sampledConn) NetConn() net.Conn { return c.TCPConn }

// sample reads TCP_INFO now, unless the socket is closed.
func (c *sampledConn) sample() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sampleLocked()
}

func (c *sampledConn) sampleLocked() {
	if c.closed {
		return
	}
	if ti, err := tcpopt.Info(c.TCPConn); err == nil {
		c.info, c.have = ti, true
	}
}

// Close reads TCP_INFO a last time, then closes the socket.
func (c *sampledConn) Close() error {
	c.mu.Lock()
	c.sampleLocked()
	if !c.closed {
		close(c.done)
	}
	c.closed = true
	c.mu.Unlock()
	return c.TCPConn.Close()
}

func (c *sampledConn) lastInfo() (tcpopt.TCPInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info, c.have
}
