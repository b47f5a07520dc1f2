package linkcheck

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/ctxtime"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/link"
)

// The client side: connections to the measurement service.

// probeConn is the client's TCP connection to a server's measurement
// service. Cancelling the context it was dialled with closes it.
type probeConn struct {
	c    net.Conn
	r    *bufio.Reader
	addr string // the service's host:port (TCP and UDP)
	stop func() bool
}

func (tb *checker) dialProbe(ctx context.Context, s *netem.Host) (*probeConn, error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return nil, err
	}
	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return nil, fmt.Errorf("netem: check: connecting to %s: %w", s.Name, err)
	}
	return &probeConn{c: c, r: bufio.NewReader(c), addr: addr, stop: context.AfterFunc(ctx, func() { c.Close() })}, nil
}

func (pc *probeConn) Close() error {
	pc.stop()
	return pc.c.Close()
}

// ask writes one request and asks the kernel to acknowledge the answer at
// once, so no delayed ACK leaves later, in the middle of a burst train.
func (pc *probeConn) ask(req string) error {
	if _, err := io.WriteString(pc.c, req); err != nil {
		return err
	}
	if tc, ok := pc.c.(*net.TCPConn); ok {
		if sc, err := tc.SyscallConn(); err == nil {
			_ = sc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1) })
		}
	}
	return nil
}

// pings returns n round-trip times in milliseconds.
func (pc *probeConn) pings(n int) ([]float64, error) {
	var out []float64
	for range n {
		start := time.Now()
		if err := pc.ask("PING\n"); err != nil {
			return nil, fmt.Errorf("netem: check: ping: %w", err)
		}
		if _, err := pc.r.ReadString('\n'); err != nil {
			return nil, fmt.Errorf("netem: check: ping: %w", err)
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

func (tb *checker) tcpPings(ctx context.Context, s *netem.Host, n int) ([]float64, error) {
	pc, err := tb.dialProbe(ctx, s)
	if err != nil {
		return nil, err
	}
	defer pc.Close()
	return pc.pings(n)
}

func (tb *checker) dnsLookupTime(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	ips, err := tb.client.Resolver().LookupNetIP(ctx, "ip4", netem.ServerName(1))
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("netem: check: DNS lookup of %s: %w", netem.ServerName(1), err)
	}
	if len(ips) != 1 || ips[0] != tb.servers[0].Addr {
		return 0, fmt.Errorf("netem: check: DNS lookup of %s gave %v, want %v", netem.ServerName(1), ips, tb.servers[0].Addr)
	}
	return d, nil
}

// goodput runs one bulk transfer for dur and returns the steady-state
// goodput in bit/s measured at the receiver.
func (tb *checker) goodput(ctx context.Context, s *netem.Host, dir string, dur time.Duration) (float64, error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return 0, err
	}
	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return 0, fmt.Errorf("netem: check: connecting to %s: %w", s.Name, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var bytes int64
	var span time.Duration
	if dir == "down" {
		if _, err := fmt.Fprintf(c, "SOURCE %d\n", dur.Milliseconds()); err != nil {
			return 0, err
		}
		bytes, span = secondHalfRate(c)
	} else {
		buf := make([]byte, 64<<10)
		if _, err := io.WriteString(c, "SINK\n"); err != nil {
			return 0, err
		}
		end := time.Now().Add(dur)
		for time.Now().Before(end) {
			if _, err := c.Write(buf); err != nil {
				return 0, fmt.Errorf("netem: check: upload: %w", err)
			}
		}
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			return 0, err
		}
		var ns int64
		if _, err := fmt.Fscan(c, &bytes, &ns); err != nil {
			return 0, fmt.Errorf("netem: check: reading the upload result: %w", err)
		}
		span = time.Duration(ns)
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if span <= 0 {
		return 0, fmt.Errorf("netem: check: %slink transfer moved too little data to measure", dir)
	}
	return float64(bytes) * 8 / span.Seconds(), nil
}

type lossEstimate struct {
	rate float64
	sent int // probes that could be lost in this direction
}

// lossTrain sends n UDP probes to s's echo service, paced to a quarter of
// the slower direction's rate so the queue never drops any, and derives
// each direction's loss from what the server counted and what came back.
func (tb *checker) lossTrain(ctx context.Context, s *netem.Host, n int) (up, down lossEstimate, err error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return up, down, err
	}
	pc, err := tb.client.ListenPacket("udp4", net.JoinHostPort(tb.client.Addr.String(), "0"))
	if err != nil {
		return up, down, err
	}
	defer pc.Close()
	dst, err := net.ResolveUDPAddr("udp4", addr)
	if err != nil {
		return up, down, err
	}
	const size = 64
	wire := float64((size + 28) * 8)
	slowest := math.Inf(1)
	for _, d := range []link.DirConfig{tb.dirs.down, tb.dirs.up} {
		if r := rateOf(d); r > 0 {
			slowest = min(slowest, r)
		}
	}
	gap := 200 * time.Microsecond
	if !math.IsInf(slowest, 1) {
		gap = max(gap, time.Duration(wire/(slowest/4)*float64(time.Second)))
	}
	id := uint64(time.Now().UnixNano())
	received := make(chan int, 1)
	go func() {
		buf := make([]byte, 2048)
		got := 0
		for {
			nr, _, err := pc.ReadFrom(buf)
			if err != nil {
				break
			}
			if nr >= 8 && binary.BigEndian.Uint64(buf) == id {
				got++
			}
		}
		received <- got
	}()
	pkt := make([]byte, size)
	binary.BigEndian.PutUint64(pkt, id)
	next := time.Now()
	for i := range n {
		binary.BigEndian.PutUint32(pkt[8:], uint32(i))
		if _, err := pc.WriteTo(pkt, dst); err != nil {
			return up, down, fmt.Errorf("netem: check: UDP probe: %w", err)
		}
		// Never catch up with a burst after oversleeping: the train must
		// stay far below the link rate so that only random loss drops it.
		next = later(next.Add(gap), time.Now())
		if err := ctxtime.Sleep(ctx, time.Until(next)); err != nil {
			return up, down, err
		}
	}
	// Wait out the propagation and any queue, then stop the receiver.
	d, u := tb.oneWayDelays()
	if err := ctxtime.Sleep(ctx, d+u+500*time.Millisecond); err != nil {
		return up, down, err
	}
	pc.SetReadDeadline(time.Now())
	echoed := <-received

	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return up, down, err
	}
	defer c.Close()
	var atServer int
	if _, err := fmt.Fprintf(c, "COUNT %d\n", id); err != nil {
		return up, down, err
	}
	if _, err := fmt.Fscan(c, &atServer); err != nil {
		return up, down, fmt.Errorf("netem: check: reading the probe count: %w", err)
	}
	if atServer > n || echoed > atServer {
		return up, down, errors.New("netem: check: probe counts inconsistent (duplicated packets?)")
	}
	up = lossEstimate{rate: 1 - float64(atServer)/float64(n), sent: n}
	down = lossEstimate{sent: atServer}
	if atServer > 0 {
		down.rate = 1 - float64(echoed)/float64(atServer)
	}
	return up, down, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
