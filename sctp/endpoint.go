package sctp

/*
#include <usrsctp.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// maxDatagram is the largest datagram read; SCTP packets here stay below the
// path MTU, anything larger is not ours.
const maxDatagram = 64 << 10

// usrsctpUncountedHeader: with AF_CONN, usrsctp fills the path MTU with
// chunks and leaves the 12-byte SCTP common header out of the count, so
// its packets were 12 bytes above the MTU set (1484-byte datagrams for a
// 1472 MTU: IP-fragmented on a 1500-byte link, doubling packets and the
// chance to lose one). Setting the MTU that much lower makes PacketSize
// the largest datagram (TestPacketsFitPacketSize).
const usrsctpUncountedHeader = 12

func (c Config) shimOpts() C.struct_shim_opts {
	o := C.struct_shim_opts{
		rto_initial_ms: C.uint32_t(c.RTOInitial.Milliseconds()),
		rto_min_ms:     C.uint32_t(c.RTOMin.Milliseconds()),
		rto_max_ms:     C.uint32_t(c.RTOMax.Milliseconds()),
		sndbuf:         C.int(c.SendBuffer),
		rcvbuf:         C.int(c.ReceiveBuffer),
		max_burst:      -1,
		ostreams:       C.uint16_t(c.outbound()),
		istreams:       C.uint16_t(c.inbound()),
		nodelay:        1, // SPDY frames must leave at once (no Nagle)
		mtu:            C.uint32_t(orDefault(c.PacketSize, DefaultPacketSize) - usrsctpUncountedHeader),
	}
	cc, _ := ccModule(c.CongestionControl) // validated: -1 = keep the default
	o.cc = C.int(cc)
	switch {
	case c.MaxBurst == MaxBurstUnlimited:
		o.max_burst = 0
	case c.MaxBurst > 0:
		o.max_burst = C.int(c.MaxBurst)
	}
	if c.SACKEveryPacket {
		o.sack_freq = 1
	}
	return o
}

// newSocket creates a configured non-blocking usrsctp socket with its waiter.
func newSocket(cfg Config) (*C.struct_socket, uintptr, *sockWaiter, error) {
	handle, w := newHandle(), newSockWaiter()
	stack.waiters.Store(handle, w)
	so, errno := C.shim_socket(C.uintptr_t(handle))
	if so == nil {
		stack.waiters.Delete(handle)
		return nil, 0, nil, fmt.Errorf("sctp: creating a socket: %w", errno)
	}
	socketOpened()
	opts := cfg.shimOpts()
	if r, errno := C.shim_configure(so, &opts); r < 0 {
		closeSocket(so, handle)
		return nil, 0, nil, fmt.Errorf("sctp: applying Config: %w", errno)
	}
	return so, handle, w, nil
}

func closeSocket(so *C.struct_socket, handle uintptr) {
	C.shim_abort_close(so)
	stack.waiters.Delete(handle)
	socketClosed()
}

func udpPort(a net.Addr) (uint16, error) {
	ua, ok := a.(*net.UDPAddr)
	if !ok || ua.Port <= 0 || ua.Port > 65535 {
		return 0, fmt.Errorf("sctp: %v is not a UDP address with a port", a)
	}
	return uint16(ua.Port), nil
}

// openEndpoint checks cfg, reads the UDP port of portAddr and makes the
// usrsctp socket for Dial or Listen; on any error it closes pc, which both
// of them own from the start.
func openEndpoint(pc net.PacketConn, portAddr net.Addr, cfg Config) (uint16, *C.struct_socket, uintptr, *sockWaiter, error) {
	fail := func(err error) (uint16, *C.struct_socket, uintptr, *sockWaiter, error) {
		pc.Close()
		return 0, nil, 0, nil, err
	}
	if err := cfg.validate(); err != nil {
		return fail(err)
	}
	port, err := udpPort(portAddr)
	if err != nil {
		return fail(err)
	}
	initStack()
	so, handle, w, err := newSocket(cfg)
	if err != nil {
		return fail(err)
	}
	return port, so, handle, w, nil
}

// Dial sets up an association over pc to the listener at raddr (its UDP port
// is also the SCTP port). The association owns pc and closes it. Unless
// cfg.BundleCookieEcho, Dial returns once the handshake completed; with it,
// Dial returns at once and the first messages ride with COOKIE-ECHO. ctx
// bounds the handshake.
func Dial(ctx context.Context, pc net.PacketConn, raddr net.Addr, cfg Config) (*Assoc, error) {
	port, so, handle, w, err := openEndpoint(pc, raddr, cfg)
	if err != nil {
		return nil, err
	}
	p := newPeer(pc, raddr, 0, 0)
	readerDone := make(chan struct{})
	a := newAssoc(so, handle, w, p, cfg)
	a.onClose = func() {
		p.release()
		pc.Close()
		<-readerDone
	}
	go dialReader(a, pc, raddr, readerDone)
	if r, errno := C.shim_bind(so, C.uintptr_t(p.id), 0); r < 0 {
		a.Abort()
		return nil, fmt.Errorf("sctp: bind: %w", errno)
	}
	if r, errno := C.shim_connect(so, C.uintptr_t(p.id), C.uint16_t(port)); r < 0 && !wouldBlock(errno) {
		a.Abort()
		return nil, fmt.Errorf("sctp: connect to %v: %w", raddr, errno)
	}
	if cfg.BundleCookieEcho {
		return a, nil
	}
	if err := a.awaitEstablished(ctx); err != nil {
		a.Abort()
		return nil, fmt.Errorf("sctp: association with %v: %w", raddr, err)
	}
	return a, nil
}

// dialReader feeds datagrams from raddr to the stack until pc is closed.
func dialReader(a *Assoc, pc net.PacketConn, raddr net.Addr, done chan struct{}) {
	defer close(done)
	buf := make([]byte, maxDatagram)
	want := raddr.String()
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				go a.Abort() // the transport is gone
			}
			return
		}
		if from.String() != want {
			a.peer.counters.badPacket() // a stranger: not part of this association
			continue
		}
		a.peer.input(buf[:n])
	}
}

// awaitEstablished waits for COOKIE-ACK (or the association's failure).
func (a *Assoc) awaitEstablished(ctx context.Context) error {
	for {
		st, _, _, err := a.state()
		if err != nil {
			return err
		}
		switch st {
		case C.SCTP_ESTABLISHED:
			return nil
		case C.SCTP_CLOSED:
			return fmt.Errorf("%w: handshake failed", ErrAborted)
		}
		if err := a.wait(ctx, a.w.write, &a.writeDeadline); err != nil {
			return err
		}
	}
}

// Listener accepts associations arriving on one UDP socket. Closing it ends
// the associations it accepted too (they share its socket).
type Listener struct {
	pc       net.PacketConn
	cfg      Config
	wirePort uint16
	ownPort  uint16
	so       *C.struct_socket
	handle   uintptr
	w        *sockWaiter

	mu        sync.Mutex
	peers     map[string]*peer
	assocs    map[*Assoc]struct{}
	lastSweep time.Time
	dropped   uint64
	closed    chan struct{}
	once      sync.Once
	readDone  chan struct{}
}

// Listener limits: at most maxPeers remote UDP addresses are known at once
// (an INIT storm from many sources fills it, then further strangers are
// dropped until idle ones expire after peerIdleExpiry).
// maxPeers is a variable so tests can reach it with few sockets.
var maxPeers = 4096

const (
	peerIdleExpiry = 10 * time.Second
	listenBacklog  = 128
)

var ownPorts struct {
	mu   sync.Mutex
	next uint16
}

// Listen accepts associations on pc (its UDP port is the SCTP port on the
// wire). The listener owns pc.
func Listen(pc net.PacketConn, cfg Config) (*Listener, error) {
	wire, so, handle, w, err := openEndpoint(pc, pc.LocalAddr(), cfg)
	if err != nil {
		return nil, err
	}
	l := &Listener{pc: pc, cfg: cfg, wirePort: wire, so: so, handle: handle, w: w,
		peers: map[string]*peer{}, assocs: map[*Assoc]struct{}{}, closed: make(chan struct{}), readDone: make(chan struct{})}
	if err := l.bindOwnPort(); err != nil {
		closeSocket(so, handle)
		pc.Close()
		return nil, err
	}
	if r, errno := C.shim_listen(so, listenBacklog); r < 0 {
		closeSocket(so, handle)
		pc.Close()
		return nil, fmt.Errorf("sctp: listen: %w", errno)
	}
	go l.readLoop()
	return l, nil
}

// bindOwnPort binds the listening socket to all (AF_CONN) addresses on a
// port no other listener of this process uses.
func (l *Listener) bindOwnPort() error {
	ownPorts.mu.Lock()
	defer ownPorts.mu.Unlock()
	for range 20000 {
		if ownPorts.next < 10000 || ownPorts.next >= 30000 {
			ownPorts.next = 10000
		}
		port := ownPorts.next
		ownPorts.next++
		r, errno := C.shim_bind(l.so, 0, C.uint16_t(port))
		if r == 0 {
			l.ownPort = port
			return nil
		}
		if !errors.Is(errno, errAddrInUse) {
			return fmt.Errorf("sctp: bind: %w", errno)
		}
	}
	return errors.New("sctp: no free internal SCTP port for a listener")
}

// Addr is the UDP address the listener receives on.
func (l *Listener) Addr() net.Addr { return l.pc.LocalAddr() }

// Dropped counts datagrams from new addresses refused while maxPeers were known.
func (l *Listener) Dropped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// Peers is the number of remote UDP addresses the listener knows.
func (l *Listener) Peers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.peers)
}

func (l *Listener) readLoop() {
	defer close(l.readDone)
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := l.pc.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				go l.Close()
			}
			return
		}
		if p := l.peerFor(from); p != nil {
			p.input(buf[:n])
		}
	}
}

// peerFor finds or makes the peer of a remote address (nil = dropped).
func (l *Listener) peerFor(from net.Addr) *peer {
	key := from.String()
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.peers[key]; p != nil {
		return p
	}
	if now := time.Now(); len(l.peers) >= maxPeers/2 && now.Sub(l.lastSweep) > time.Second {
		l.lastSweep = now
		l.sweepLocked(now)
	}
	if len(l.peers) >= maxPeers {
		l.dropped++
		return nil
	}
	p := newPeer(l.pc, from, l.wirePort, l.ownPort)
	l.peers[key] = p
	return p
}

// sweepLocked forgets peers without an association that went quiet.
func (l *Listener) sweepLocked(now time.Time) {
	for key, p := range l.peers {
		p.mu.Lock()
		idle := p.assocs == 0 && now.Sub(p.lastSeen) > peerIdleExpiry
		p.mu.Unlock()
		if idle {
			delete(l.peers, key)
			p.release()
		}
	}
}

// Accept waits for the next association (established: its COOKIE-ECHO
// arrived). It returns ErrClosed after Close.
func (l *Listener) Accept() (*Assoc, error) {
	for {
		var pid C.uintptr_t
		var port C.uint16_t
		l.mu.Lock()
		if l.so == nil {
			l.mu.Unlock()
			return nil, ErrClosed
		}
		so, errno := C.shim_accept(l.so, &pid, &port)
		l.mu.Unlock()
		if so != nil {
			if a := l.adopt(so, uintptr(pid)); a != nil {
				return a, nil
			}
			continue
		}
		if !wouldBlock(errno) && !errors.Is(errno, errConnAborted) {
			return nil, fmt.Errorf("sctp: accept: %w", errno)
		}
		select {
		case <-l.w.read:
		case <-l.closed:
			return nil, ErrClosed
		}
	}
}

// adopt wraps an accepted socket; nil if its peer is unknown (swept).
func (l *Listener) adopt(so *C.struct_socket, pid uintptr) *Assoc {
	handle, w := newHandle(), newSockWaiter()
	stack.waiters.Store(handle, w)
	C.shim_set_handle(so, C.uintptr_t(handle))
	socketOpened()
	v, ok := stack.peers.Load(pid)
	if !ok {
		closeSocket(so, handle)
		return nil
	}
	p := v.(*peer)
	a := newAssoc(so, handle, w, p, l.cfg)
	p.mu.Lock()
	p.assocs++
	p.mu.Unlock()
	l.mu.Lock()
	if l.so == nil {
		l.mu.Unlock()
		a.Abort()
		return nil
	}
	l.assocs[a] = struct{}{}
	l.mu.Unlock()
	a.onClose = func() {
		l.mu.Lock()
		delete(l.assocs, a)
		l.mu.Unlock()
		p.mu.Lock()
		p.assocs--
		p.lastSeen = time.Now()
		p.mu.Unlock()
	}
	return a
}

// Close stops accepting, aborts the associations still open and closes the
// UDP socket.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.closed)
		l.mu.Lock()
		so := l.so
		l.so = nil
		open := make([]*Assoc, 0, len(l.assocs))
		for a := range l.assocs {
			open = append(open, a)
		}
		l.mu.Unlock()
		for _, a := range open {
			a.Abort()
		}
		closeSocket(so, l.handle)
		l.pc.Close()
		<-l.readDone
		l.mu.Lock()
		for key, p := range l.peers {
			delete(l.peers, key)
			p.release()
		}
		l.mu.Unlock()
	})
	return nil
}
