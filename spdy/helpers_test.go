package spdy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// pair is a client session talking to a Server over loopback TCP.
type pair struct {
	t      *testing.T
	cc     *ClientConn
	srv    *Server
	served chan error
	cancel context.CancelFunc
	once   sync.Once
}

func tcpPipe(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	return client, server
}

func newPair(t *testing.T, srvCfg Config, cliCfg *ClientConfig, h http.Handler) *pair {
	t.Helper()
	c, s := tcpPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := &pair{t: t, srv: &Server{Config: srvCfg, Handler: h}, served: make(chan error, 1), cancel: cancel}
	go func() { p.served <- p.srv.ServeConn(ctx, s) }()
	cc, err := NewClientConn(c, cliCfg)
	if err != nil {
		t.Fatal(err)
	}
	p.cc = cc
	t.Cleanup(p.close)
	return p
}

func (p *pair) close() {
	p.once.Do(func() {
		p.cc.Close()
		select {
		case <-p.served:
		case <-time.After(30 * time.Second):
			p.t.Error("ServeConn did not return after the client closed")
		}
		p.cancel()
	})
}

// eventually polls cond until it holds; the test fails only if it never does
// within a generous bound (a hang guard, not a timing assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 3000; i++ {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never happened: %s", what)
}

func (p *pair) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://example.test"+path, nil)
	if err != nil {
		return nil, err
	}
	return p.cc.RoundTrip(req)
}

// checkNoGoroutineLeak waits for the goroutine count to return to base. It
// polls because exiting goroutines take a moment to be reaped; the assertion
// is about the count, never about how long it took.
func checkNoGoroutineLeak(t *testing.T, base int) {
	t.Helper()
	var n int
	for i := 0; i < 200; i++ {
		n = runtime.NumGoroutine()
		if n <= base {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	t.Fatalf("goroutines: %d before, %d after\n%s", base, n, buf)
}

func both(t *testing.T, fn func(t *testing.T, version string)) {
	for _, v := range []string{ProtoSPDY31, ProtoSPDY3} {
		t.Run(subtestName(v), func(t *testing.T) { fn(t, v) })
	}
}

// allVersions is both plus spdy/2, for behaviour that does not involve flow
// control (spdy/2 has none). Select the v2 cases with -run '/spdy_2'.
func allVersions(t *testing.T, fn func(t *testing.T, version string)) {
	for _, v := range VersionNames() {
		t.Run(subtestName(v), func(t *testing.T) { fn(t, v) })
	}
}

// subtestName is a version as a subtest name (-run '/spdy_2').
func subtestName(proto string) string { return strings.ReplaceAll(proto, "/", "_") }

func isRst(err error, status RstStatus) bool {
	var re *RstError
	return errors.As(err, &re) && re.Status == status
}

// recordingConn keeps a copy of everything written to it.
type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *recordingConn) frames(t *testing.T, version uint16) []Frame {
	t.Helper()
	c.mu.Lock()
	wire := append([]byte(nil), c.out.Bytes()...)
	c.mu.Unlock()
	r := NewFramerVersion(version, nil, bytes.NewReader(wire), 0)
	var out []Frame
	for {
		f, err := r.ReadFrame()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("frame %d of what was sent does not parse as version %d: %v", len(out), version, err)
		}
		if d, ok := f.(*DataFrame); ok {
			f = &DataFrame{Stream: d.Stream, Flags: d.Flags}
		}
		out = append(out, f)
	}
}
