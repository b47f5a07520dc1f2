package server

import (
	"bytes"
	"crypto/tls"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// syncBuffer is a log sink tests can read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func rawDial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	u, _ := url.Parse(s.URL())
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitClosed reads until the server closes c (hang guard, not a timing check).
func waitClosed(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("server did not close the connection")
	}
	return got
}

func TestConnectionCap(t *testing.T) {
	var logs syncBuffer
	s := startServer(t, Config{Plain: ProtoSPDY31, MaxConns: 2, Log: log.New(&logs, "", 0)})
	first := dial(t, s, ProtoSPDY31, nil)
	dial(t, s, ProtoSPDY31, nil)
	if got := waitClosed(t, rawDial(t, s)); len(got) != 0 {
		t.Fatalf("a connection over the cap got %d bytes, want to be closed at once", len(got))
	}
	if !strings.Contains(logs.String(), "connection limit of 2 reached") {
		t.Fatalf("no clear log line; log:\n%s", logs.String())
	}
	first.close()
	// The freed slot serves a request (accept and bookkeeping are async:
	// retry until the server has released the slot).
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(s.URL(), "/"), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := spdy.NewClientConn(c, &spdy.ClientConfig{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cc.Ping(t.Context())
		cc.Close()
		if err == nil {
			return
		}
		if i == 200 {
			t.Fatalf("no connection served after one was freed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// One client holding many connections cannot lock another out: past its
// own cap its connections are closed at once while another client's are
// served.
func TestPerClientConnectionCap(t *testing.T) {
	var logs syncBuffer
	s := startServer(t, Config{Plain: ProtoSPDY31, MaxConns: 10, MaxConnsPerClient: 2, Log: log.New(&logs, "", 0)})
	dial(t, s, ProtoSPDY31, nil)
	dial(t, s, ProtoSPDY31, nil)
	if got := waitClosed(t, rawDial(t, s)); len(got) != 0 {
		t.Fatalf("a third connection from one client got %d bytes, want to be closed at once", len(got))
	}
	if !strings.Contains(logs.String(), "limit of 2 connections per client reached by 127.0.0.1") {
		t.Fatalf("no clear log line; log:\n%s", logs.String())
	}
	if _, err := dialOtherClient(t, s).Ping(t.Context()); err != nil {
		t.Fatalf("another client was not served: %v", err)
	}
}

// dialOtherClient opens a SPDY/3.1 session to s from 127.0.0.2, a client
// other than the tests' 127.0.0.1, closed when the test ends.
func dialOtherClient(t *testing.T, s *Server) *spdy.ClientConn {
	t.Helper()
	u, _ := url.Parse(s.URL())
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := spdy.NewClientConn(c, &spdy.ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

func TestIdleAndHandshakeTimeouts(t *testing.T) {
	t.Run("idle SPDY session gets GOAWAY and is closed", func(t *testing.T) {
		s := startServer(t, Config{Plain: ProtoSPDY31, SPDY: spdy.Config{IdleTimeout: 50 * time.Millisecond}})
		got := waitClosed(t, rawDial(t, s))
		fr := spdy.NewFramer(nil, bytes.NewReader(got), 0)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("closed without GOAWAY: %v", err)
			}
			if _, ok := f.(*spdy.GoAwayFrame); ok {
				return
			}
		}
	})
	t.Run("TLS handshake that never starts", func(t *testing.T) {
		s := startServer(t, Config{HandshakeTimeout: 50 * time.Millisecond})
		waitClosed(t, rawDial(t, s))
	})
}

func TestLimitFlagsReachTheConfig(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	lf := RegisterLimitFlags(fs)
	if err := fs.Parse([]string{"--max-conns", "7", "--max-resets-per-sec", "-1", "--frame-timeout", "3s", "--max-header-bytes", "1000", "--max-inflated-buffer", "4096", "--max-conns-per-client", "9", "--max-streams-per-client", "5"}); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	lf.Apply(&cfg)
	if cfg.MaxConns != 7 || cfg.SPDY.MaxResetsPerSecond != -1 || cfg.SPDY.FrameReadTimeout != 3*time.Second ||
		cfg.SPDY.MaxHeaderBytesPerStream != 1000 || cfg.SPDY.IdleTimeout != DefaultIdleTimeout ||
		cfg.SPDY.MaxInflatedBuffer != 4096 || cfg.MaxConnsPerClient != 9 || cfg.MaxStreamsPerClient != 5 {
		t.Fatalf("config %+v", cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.httpSrv.MaxHeaderBytes != 1000 || s.httpSrv.IdleTimeout != DefaultIdleTimeout {
		t.Fatalf("h2/HTTP/1.1 limits not set: MaxHeaderBytes %d IdleTimeout %v", s.httpSrv.MaxHeaderBytes, s.httpSrv.IdleTimeout)
	}
}

// A site naming many hosts (a replayed page) raises the default caps so a
// browser's 6 connections per host name never meet them; set caps stand.
func TestConnectionCapsFollowTheSite(t *testing.T) {
	for _, c := range []struct {
		cfg              Config
		hosts            int
		total, perClient int
	}{
		{Config{}, 0, DefaultMaxConns, DefaultMaxConnsPerClient},
		{Config{}, 8, DefaultMaxConns, DefaultMaxConnsPerClient},
		{Config{}, 230, 1840, 1840},
		{Config{MaxConns: 100}, 230, 100, 100},
		{Config{MaxConnsPerClient: 10}, 230, 1840, 10},
	} {
		total, per := connCaps(&c.cfg, c.hosts)
		if total != c.total || per != c.perClient {
			t.Errorf("%+v with %d hosts: caps %d, %d per client; want %d, %d", c.cfg, c.hosts, total, per, c.total, c.perClient)
		}
	}
}

// One client's streams with running handlers are capped over all its
// sessions: past the cap its new streams are refused, another client is
// served, and a finished handler frees its slot.
func TestPerClientStreamCap(t *testing.T) {
	var logs syncBuffer
	s := startServer(t, Config{Plain: ProtoSPDY31, MaxStreamsPerClient: 2, Log: log.New(&logs, "", 0)})
	// Two uploads that do not finish, on two sessions.
	uploads := holdStreams(t, s, ProtoSPDY31, ProtoSPDY31)
	c := dial(t, s, ProtoSPDY31, nil)
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"_spdylab/info", nil)
	if resp, err := c.spdy.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a third stream from the client got %s, want it refused", resp.Status)
	}
	if !strings.Contains(logs.String(), "limit of 2 open SPDY/h2 streams per client reached by 127.0.0.1") {
		t.Errorf("no clear log line; log:\n%s", logs.String())
	}
	if resp, err := dialOtherClient(t, s).RoundTrip(req.Clone(t.Context())); err != nil {
		t.Fatalf("another client was not served: %v", err)
	} else {
		resp.Body.Close()
	}
	uploads[0].Close() // the upload ends, its handler answers and returns
	for streamsOf(s, "127.0.0.1") > 1 {
		time.Sleep(time.Millisecond)
	}
	if resp, body := c.do(t, http.MethodGet, s.URL()+"_spdylab/info", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after a slot was freed: %s %s", resp.Status, body)
	}
	uploads[1].Close()
}

// The stream cap follows the site like the connection caps: a full
// session of streams per host name when that is more; a set cap stands.
func TestStreamCapFollowsTheSite(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		hosts int
		want  int
	}{
		{Config{}, 0, DefaultMaxStreamsPerClient},
		{Config{}, 3, DefaultMaxStreamsPerClient},
		{Config{}, 230, 23000},
		{Config{SPDY: spdy.Config{MaxConcurrentStreams: 10}}, 230, 2300},
		{Config{SPDY: spdy.Config{MaxConcurrentStreams: 1000}}, 0, 1000},
		{Config{MaxStreamsPerClient: 7}, 230, 7},
		{Config{MaxStreamsPerClient: -1}, 0, -1},
	} {
		if got := streamCap(&c.cfg, c.hosts); got != c.want {
			t.Errorf("%+v with %d hosts: %d streams per client, want %d", c.cfg, c.hosts, got, c.want)
		}
	}
}

// The loader's sessions per host (probe.MaxSessions SPDY/h2 connections to
// each host name) fit the default connection caps of a site of any size,
// as HTTPS's six connections per host name do.
func TestConnectionCapsFitSessionsPerHost(t *testing.T) {
	if connsPerHostName < probe.MaxSessions {
		t.Fatalf("connCaps allows %d connections per host name, the loader may open %d sessions", connsPerHostName, probe.MaxSessions)
	}
	for _, hosts := range []int{1, 8, 230} {
		total, per := connCaps(&Config{}, hosts)
		if need := probe.MaxSessions * hosts; per < need || total < need {
			t.Errorf("%d hosts: caps %d, %d per client; %d sessions per host need %d", hosts, total, per, probe.MaxSessions, need)
		}
	}
}

// h2 streams count against the same per-client cap as SPDY's: with two
// uploads that never finish running (one on an h2 connection, one on a
// SPDY session), a third h2 request from the client is refused with 503
// naming the limit, another client is served, and a freed slot serves the
// client again.
func TestPerClientStreamCapCoversH2(t *testing.T) {
	var logs syncBuffer
	s := startServer(t, Config{MaxStreamsPerClient: 2, Log: log.New(&logs, "", 0)})
	uploads := holdStreams(t, s, ProtoH2, ProtoSPDY31)
	c := dial(t, s, ProtoH2, nil)
	resp, body := c.do(t, http.MethodGet, s.URL()+"_spdylab/info", nil)
	want := "limit of 2 open SPDY/h2 streams per client reached by 127.0.0.1"
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), want) || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream from the client got %s %q, want 503 naming the limit", resp.Status, body)
	}
	if !strings.Contains(logs.String(), want) {
		t.Errorf("no clear log line; log:\n%s", logs.String())
	}
	if resp, err := dialOtherH2Client(t, s).RoundTrip(mustRequest(t, s.URL()+"_spdylab/info")); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("another client was not served: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	uploads[0].Close() // the h2 upload ends, its handler answers and returns
	for streamsOf(s, "127.0.0.1") > 1 {
		time.Sleep(time.Millisecond)
	}
	if resp, body := c.do(t, http.MethodGet, s.URL()+"_spdylab/info", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after a slot was freed: %s %s", resp.Status, body)
	}
	uploads[1].Close()
}

// holdStreams opens one connection per proto from the tests' client
// (127.0.0.1) to s, starts on each an upload that does not finish until
// its writer is closed, and returns once all their handlers run: streams
// the per-client cap counts.
func holdStreams(t *testing.T, s *Server, protos ...string) []*io.PipeWriter {
	t.Helper()
	var uploads []*io.PipeWriter
	for _, proto := range protos {
		c := dial(t, s, proto, nil)
		pr, pw := io.Pipe()
		uploads = append(uploads, pw)
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"_spdylab/sha256", pr)
		go func() {
			if resp, err := c.rt(req); err == nil {
				resp.Body.Close()
			}
		}()
		pw.Write([]byte("x")) // the request is on its way once this is read
	}
	for streamsOf(s, "127.0.0.1") < len(protos) {
		time.Sleep(time.Millisecond) // hang guard: the test's timeout
	}
	return uploads
}

// streamsOf is how many streams of client hold a slot of s's per-client
// stream cap.
func streamsOf(s *Server, client string) int {
	s.streamGate.mu.Lock()
	defer s.streamGate.mu.Unlock()
	return s.streamGate.byClient[client]
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// dialOtherH2Client is an h2 connection to s (TLS) from another loopback
// address, another client to the per-client caps.
func dialOtherH2Client(t *testing.T, s *Server) *http2.ClientConn {
	t.Helper()
	u, _ := url.Parse(s.URL())
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := tls.DialWithDialer(&d, "tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{ProtoH2}})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := (&http2.Transport{}).NewClientConn(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}
