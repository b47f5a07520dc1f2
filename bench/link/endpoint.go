package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/tcpopt"
)

// tcpResult is what a receiving endpoint prints (one JSON line).
type tcpResult struct {
	Bytes       int64   `json:"bytes"`   // bytes acknowledged inside the measurement window
	Seconds     float64 `json:"seconds"` // length of the window
	GoodputBps  float64 `json:"goodput_bps"`
	TotalBytes  int64   `json:"total_bytes"`
	TotalSecond float64 `json:"total_seconds"` // connect (client) or accept (server) to last byte
}

// endpointMain runs one end of a TCP transfer in its own process, so the
// emulator's CPU can be measured apart from the TCP endpoints' and neither
// Go runtime disturbs the other. Invoked as:
//
//	linkbench _tcp -listen :5001|-connect HOST:PORT -send|-recv [-warm D -dur D | -bytes N] -cc cubic
//
// A listening endpoint prints "ready" once listening. In a timed transfer
// the sending side prints a tcpResult; with -bytes the receiving side does.
func endpointMain(args []string) int {
	fs := flag.NewFlagSet("_tcp", flag.ContinueOnError)
	listen := fs.String("listen", "", "listen address (server)")
	connect := fs.String("connect", "", "address to connect to (client)")
	send := fs.Bool("send", false, "this side sends; otherwise it receives")
	warm := fs.Duration("warm", 2*time.Second, "receiver: time before the measurement window")
	dur := fs.Duration("dur", 5*time.Second, "receiver: measurement window")
	nbytes := fs.Int64("bytes", 0, "sender: send exactly this many bytes after a 1-byte request, then close (0 = until the peer closes)")
	cc := fs.String("cc", "cubic", "congestion control for this socket")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "linkbench _tcp:", err); return 1 }
	setCC := func(network, address string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) { err = tcpopt.SetCongestionFD(fd, *cc) }); cerr != nil {
			return cerr
		}
		return err
	}
	var conn net.Conn
	start := time.Now()
	if *listen != "" {
		lc := net.ListenConfig{Control: setCC}
		l, err := lc.Listen(context.Background(), "tcp4", *listen)
		if err != nil {
			return fail(err)
		}
		fmt.Println("ready")
		conn, err = l.Accept()
		l.Close()
		if err != nil {
			return fail(err)
		}
		start = time.Now()
	} else {
		d := net.Dialer{Control: setCC, Timeout: 30 * time.Second}
		var err error
		conn, err = d.Dial("tcp4", *connect)
		if err != nil {
			return fail(err)
		}
	}
	defer conn.Close()
	if *send && *nbytes > 0 {
		one := make([]byte, 1)
		if _, err := io.ReadFull(conn, one); err != nil {
			return fail(fmt.Errorf("waiting for the request byte: %w", err))
		}
		if _, err := io.CopyN(conn, zeroReader{}, *nbytes); err != nil {
			return fail(err)
		}
		return 0
	}
	if *nbytes > 0 {
		if _, err := conn.Write([]byte{1}); err != nil {
			return fail(err)
		}
		n, err := io.Copy(io.Discard, conn)
		if err != nil {
			return fail(err)
		}
		json.NewEncoder(os.Stdout).Encode(tcpResult{TotalBytes: n, TotalSecond: time.Since(start).Seconds()})
		return 0
	}
	if !*send {
		// The receiver only drains; the sender measures.
		io.Copy(io.Discard, conn)
		return 0
	}
	return measureSender(conn, start, *warm, *dur)
}

// measureSender writes as fast as TCP takes data and measures goodput from
// the kernel's count of acknowledged bytes (TCP_INFO bytes_acked), with both
// window edges at moments when the connection is in the Open state (no loss
// recovery in progress). Counting at the receiver instead is skewed by loss
// recovery: a retransmission that fills a hole releases everything queued
// behind it at once, and a window edge inside such a hole moves up to a
// whole window of data across it.
func measureSender(conn net.Conn, start time.Time, warm, dur time.Duration) int {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		fmt.Fprintln(os.Stderr, "linkbench _tcp: not a TCP connection")
		return 1
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkbench _tcp:", err)
		return 1
	}
	info := func() (*unix.TCPInfo, error) {
		var ti *unix.TCPInfo
		var ierr error
		if err := raw.Control(func(fd uintptr) { ti, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil {
			return nil, err
		}
		return ti, ierr
	}
	writeErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 256<<10)
		for {
			if _, err := conn.Write(buf); err != nil {
				writeErr <- err
				return
			}
		}
	}()
	const tcpCAOpen = 0
	var t1 time.Time
	var b1 uint64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-writeErr:
			fmt.Fprintln(os.Stderr, "linkbench _tcp: connection ended before the window closed:", err)
			return 1
		case <-tick.C:
		}
		ti, err := info()
		if err != nil {
			fmt.Fprintln(os.Stderr, "linkbench _tcp: TCP_INFO:", err)
			return 1
		}
		now := time.Now()
		if ti.Ca_state != tcpCAOpen {
			continue
		}
		if t1.IsZero() {
			if now.Sub(start) >= warm {
				t1, b1 = now, ti.Bytes_acked
			}
			continue
		}
		if now.Sub(t1) >= dur {
			r := tcpResult{Bytes: int64(ti.Bytes_acked - b1), Seconds: now.Sub(t1).Seconds(),
				TotalBytes: int64(ti.Bytes_acked), TotalSecond: now.Sub(start).Seconds()}
			r.GoodputBps = float64(r.Bytes) * 8 / r.Seconds
			json.NewEncoder(os.Stdout).Encode(r)
			conn.Close()
			return 0
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
