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

	"github.com/spdylab/spdylab/internal/tcpopt"
)

// tcpResult is what a receiving endpoint prints (one JSON line).
type tcpResult struct {
	Bytes       int64   `json:"bytes"`   // bytes received inside the measurement window
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
// A listening endpoint prints "ready" once listening. The receiving side
// prints a tcpResult.
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
	if *send {
		buf := make([]byte, 256<<10)
		if *nbytes > 0 {
			one := make([]byte, 1)
			if _, err := io.ReadFull(conn, one); err != nil {
				return fail(fmt.Errorf("waiting for the request byte: %w", err))
			}
			_, err := io.CopyN(conn, zeroReader{}, *nbytes)
			if err != nil {
				return fail(err)
			}
			return 0
		}
		for {
			if _, err := conn.Write(buf); err != nil {
				return 0 // the receiver closed: done
			}
		}
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
	// The window opens and closes at reads that drained the socket (returned
	// less than the buffer): otherwise bytes that arrived before the window
	// opened, still waiting in the socket, would be counted inside it.
	// LINKBENCH_TRACE=DIR logs every read (seconds, bytes, total) to a file there.
	var trace *os.File
	if dir := os.Getenv("LINKBENCH_TRACE"); dir != "" {
		trace, _ = os.Create(fmt.Sprintf("%s/reads-%d.txt", dir, os.Getpid()))
		defer trace.Close()
	}
	buf := make([]byte, 256<<10)
	var total, b1 int64
	var t1 time.Time
	windowOpen := start.Add(*warm)
	for {
		n, err := conn.Read(buf)
		total += int64(n)
		now := time.Now()
		drained := n < len(buf)
		if trace != nil {
			fmt.Fprintf(trace, "%.6f %d %d\n", now.Sub(start).Seconds(), n, total)
		}
		if t1.IsZero() && now.After(windowOpen) && drained {
			t1, b1 = now, total
		}
		if !t1.IsZero() && now.Sub(t1) >= *dur && drained {
			r := tcpResult{Bytes: total - b1, Seconds: now.Sub(t1).Seconds(), TotalBytes: total,
				TotalSecond: now.Sub(start).Seconds()}
			r.GoodputBps = float64(r.Bytes) * 8 / r.Seconds
			json.NewEncoder(os.Stdout).Encode(r)
			return 0
		}
		if err != nil {
			return fail(fmt.Errorf("connection ended after %d bytes before the window closed: %w", total, err))
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
