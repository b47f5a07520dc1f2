package h3

import (
	"errors"
	"net"
	"sync/atomic"
	"syscall"
)

// Counter adds UDP payload bytes (QUIC packets, without UDP/IP headers).
type Counter struct {
	In, Out atomic.Int64
}

// countingPacketConn counts what crosses the socket. It hides
// *net.UDPConn's batch and GSO paths from quic-go (which then reads and
// writes one datagram per call) so that every byte passes through here;
// SyscallConn stays visible so quic-go can still size buffers and set DF.
type countingPacketConn struct {
	net.PacketConn
	c *Counter
}

func (p *countingPacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, a, err := p.PacketConn.ReadFrom(b)
	p.c.In.Add(int64(n))
	return n, a, err
}

func (p *countingPacketConn) WriteTo(b []byte, a net.Addr) (int, error) {
	n, err := p.PacketConn.WriteTo(b, a)
	p.c.Out.Add(int64(n))
	return n, err
}

func (p *countingPacketConn) SetReadBuffer(n int) error {
	if s, ok := p.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return s.SetReadBuffer(n)
	}
	return errors.ErrUnsupported
}

func (p *countingPacketConn) SetWriteBuffer(n int) error {
	if s, ok := p.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return s.SetWriteBuffer(n)
	}
	return errors.ErrUnsupported
}

// countingSocket is a countingPacketConn over a real socket: quic-go uses
// SyscallConn to size the buffers and set the DF bit.
type countingSocket struct {
	*countingPacketConn
	sc syscall.Conn
}

func (p countingSocket) SyscallConn() (syscall.RawConn, error) { return p.sc.SyscallConn() }

// countBytes wraps pc so that c counts its payload bytes.
func countBytes(pc net.PacketConn, c *Counter) net.PacketConn {
	cp := &countingPacketConn{PacketConn: pc, c: c}
	if sc, ok := pc.(syscall.Conn); ok {
		return countingSocket{countingPacketConn: cp, sc: sc}
	}
	return cp
}
