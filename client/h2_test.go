package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// goServer is Go's own HTTP/2 server over TLS on loopback.
func goServer(t *testing.T, h http.Handler, maxStreams int) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: maxStreams}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// dialH2 dials addr with TLS and ALPN h2 and starts an H2Conn.
func dialH2(t *testing.T, addr string, cfg H2Config) *H2Conn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q", p)
	}
	cc, err := NewH2Conn(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

func get(t *testing.T, cc *H2Conn, ctx context.Context, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s body: %v", url, err)
	}
	return resp, b
}

func TestH2GetAndPostAgainstGoServer(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: many windows
	addr := goServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			w.Write(big)
		case "/sum":
			h := sha256.New()
			n, _ := io.Copy(h, r.Body)
			fmt.Fprintf(w, "%d %x", n, h.Sum(nil))
		case "/priority":
			fmt.Fprint(w, r.Header.Get("Priority"))
		}
	}), 0)
	// A small stream window: the 1 MiB body needs many WINDOW_UPDATEs.
	cc := dialH2(t, addr, H2Config{StreamWindow: 65535, ConnWindow: 65535})
	resp, b := get(t, cc, context.Background(), "https://"+addr+"/big")
	if resp.StatusCode != 200 || !bytes.Equal(b, big) || resp.ContentLength != int64(len(big)) {
		t.Fatalf("status %d, %d bytes (equal %v), content-length %d", resp.StatusCode, len(b), bytes.Equal(b, big), resp.ContentLength)
	}
	req, _ := http.NewRequest(http.MethodPost, "https://"+addr+"/sum", bytes.NewReader(big))
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("%d %x", len(big), sha256.Sum256(big)); string(got) != want {
		t.Fatalf("server saw %q, want %q", got, want)
	}
	st := cc.Stats()
	if st.HeaderBytesSentCompressed <= 0 || st.HeaderBytesReceivedCompressed <= 0 || st.HeaderBytesSentRaw <= st.HeaderBytesSentCompressed {
		t.Errorf("header stats look wrong: %+v", st)
	}

	rfc := dialH2(t, addr, H2Config{Priorities: PriorityRFC9218})
	_, b = get(t, rfc, WithPriority(context.Background(), 4), "https://"+addr+"/priority")
	if string(b) != "u=4, i" {
		t.Errorf("server saw priority %q, want \"u=4, i\"", b)
	}
}

// Bodies reach the reader while the server is still sending.
func TestH2BodyStreamsAsDataArrives(t *testing.T) {
	release := make(chan struct{})
	addr := goServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first part;")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "second part")
	}), 0)
	cc := dialH2(t, addr, H2Config{})
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, len("first part;"))
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first part;" {
		t.Fatalf("read %q, %v before the server finished", buf, err)
	}
	close(release)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "second part" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

// More concurrent requests than the server's MAX_CONCURRENT_STREAMS wait
// for a free stream; none fails and the server never sees more at once.
func TestH2QueuesBeyondMaxConcurrentStreams(t *testing.T) {
	var inFlight, most atomic.Int32
	addr := goServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // keep streams open so they overlap
		inFlight.Add(-1)
		io.WriteString(w, r.URL.Path)
	}), 3)
	cc := dialH2(t, addr, H2Config{})
	// Learn the limit first, so that no request is refused for racing
	// the SETTINGS (refusal is TestH2RefusedStreamIsNotProcessed).
	get(t, cc, context.Background(), "https://"+addr+"/warm")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://%s/%d", addr, i), nil)
			resp, err := cc.RoundTrip(req)
			if err != nil {
				errs <- err
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(b) != fmt.Sprintf("/%d", i) {
				errs <- fmt.Errorf("request %d: %q, %v", i, b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if m := most.Load(); m > 3 {
		t.Errorf("server saw %d concurrent streams, limit 3", m)
	}
}

// Go's HTTP/2 server pushes through http.Pusher; the client accepts the
// push and Pushed hands it out once.
func TestH2PushFromGoServer(t *testing.T) {
	addr := goServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			if p, ok := w.(http.Pusher); ok {
				if err := p.Push("/pushed.css", nil); err != nil {
					t.Errorf("push: %v", err)
				}
			}
			io.WriteString(w, "root")
			return
		}
		io.WriteString(w, "pushed "+r.URL.Path)
	}), 0)
	offered := make(chan string, 1)
	cc := dialH2(t, addr, H2Config{OnPush: func(p *PushPromise) bool { offered <- p.URL; return true }})
	get(t, cc, context.Background(), "https://"+addr+"/")
	u := <-offered
	if u != "https://"+addr+"/pushed.css" {
		t.Fatalf("push of %q", u)
	}
	resp, ok := cc.Pushed(u)
	if !ok {
		t.Fatal("accepted push not available")
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "pushed /pushed.css" {
		t.Fatalf("pushed body %q, %v", b, err)
	}
	if _, ok := cc.Pushed(u); ok {
		t.Error("a push was handed out twice")
	}
	if st := cc.Stats(); st.PushesOffered != 1 || st.PushesClaimed != 1 {
		t.Errorf("push stats %+v", st)
	}
}

func TestChromePriorityChain(t *testing.T) {
	type step struct {
		open  uint32
		prio  uint8
		close uint32 // instead of opening
		dep   uint32
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"first stream depends on the root", []step{{open: 1, prio: 3, dep: 0}}},
		{"same priority chains in order", []step{{open: 1, prio: 2}, {open: 3, prio: 2, dep: 1}, {open: 5, prio: 2, dep: 3}}},
		{"less urgent goes after the more urgent", []step{{open: 1, prio: 0}, {open: 3, prio: 4, dep: 1}, {open: 5, prio: 1, dep: 1}, {open: 7, prio: 4, dep: 3}}},
		{"more urgent than all goes to the root", []step{{open: 1, prio: 4}, {open: 3, prio: 0, dep: 0}}},
		{"closed streams are forgotten", []step{{open: 1, prio: 1}, {open: 3, prio: 2, dep: 1}, {close: 3}, {open: 5, prio: 2, dep: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c priorityChain
			for _, s := range tc.steps {
				if s.close != 0 {
					c.close(s.close)
					continue
				}
				p := c.open(s.open, s.prio)
				if p.StreamDep != s.dep || !p.Exclusive || p.Weight != weightOf(s.prio) {
					t.Fatalf("stream %d prio %d: %+v, want exclusive on %d", s.open, s.prio, p, s.dep)
				}
			}
		})
	}
	if weightOf(0) != 255 || weightOf(7) != 0 || weightOf(3) <= weightOf(4) {
		t.Errorf("weights %d..%d", weightOf(0), weightOf(7))
	}
}

// scripted runs a hand-written server on the far end of a loopback TCP
// connection: it reads the client's preface and SETTINGS and then runs
// script with a Framer. The client's later frames are drained.
func scripted(t *testing.T, cfg H2Config, script func(fr *http2.Framer, hangUp func())) *H2Conn {
	t.Helper()
	return scriptedWith(t, cfg, false, script)
}

// scriptedSmallBuffers is scripted with 4 KiB socket buffers each way, so
// that a writer blocks soon when the server stops reading.
func scriptedSmallBuffers(t *testing.T, cfg H2Config, script func(fr *http2.Framer, hangUp func())) *H2Conn {
	t.Helper()
	return scriptedWith(t, cfg, true, script)
}

func scriptedWith(t *testing.T, cfg H2Config, small bool, script func(fr *http2.Framer, hangUp func())) *H2Conn {
	t.Helper()
	return scriptedConn(t, cfg, small, func(c net.Conn, fr *http2.Framer) { script(fr, func() { c.Close() }) })
}

// scriptedConn runs script as the server of a new client connection, with
// the server's socket at hand (to write frames in pieces or hang up);
// small sets 4 KiB socket buffers each way.
func scriptedConn(t *testing.T, cfg H2Config, small bool, script func(c net.Conn, fr *http2.Framer)) *H2Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Closed only after Accept: closing a listener resets the
		// connections still in its backlog.
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer c.Close()
		if small {
			c.(*net.TCPConn).SetReadBuffer(4096)
		}
		pre := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(c, pre); err != nil {
			return
		}
		fr := http2.NewFramer(c, c)
		if _, err := fr.ReadFrame(); err != nil { // SETTINGS
			return
		}
		script(c, fr)
		io.Copy(io.Discard, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if small {
		c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	cc, err := NewH2Conn(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		<-done
	})
	return cc
}

func roundTripErr(cc *H2Conn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://example.test/x", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

// readHeaders skips frames until the client's HEADERS and returns its stream.
func readHeaders(fr *http2.Framer) uint32 {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return 0
		}
		if h, ok := f.(*http2.HeadersFrame); ok {
			return h.StreamID
		}
	}
}

func TestH2BadPeers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script func(fr *http2.Framer, hangUp func())
		want   string // in the error
		retry  bool   // NotProcessed
	}{
		{"malformed frame", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			readHeaders(fr)
			fr.WriteRawFrame(http2.FrameWindowUpdate, 0, 0, []byte{1, 2}) // wrong length
		}, "malformed frame", false},
		{"DATA beyond the stream window", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			fr.WriteSettingsAck() // our 16 KiB stream window applies
			id := readHeaders(fr)
			writeResponseHeaders(fr, id)
			fr.WriteData(id, false, make([]byte, 16384))
			fr.WriteData(id, false, make([]byte, 16384)) // window is 16384
		}, "flow-control window", false},
		{"DATA beyond the connection window", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			id := readHeaders(fr)
			writeResponseHeaders(fr, id)
			for range 8 {
				fr.WriteRawFrame(http2.FrameData, 0, id, make([]byte, 16384))
			}
		}, "", false},
		{"refused stream", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			fr.WriteRSTStream(readHeaders(fr), http2.ErrCodeRefusedStream)
		}, "REFUSED_STREAM", true},
		{"GOAWAY below the stream", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			readHeaders(fr)
			fr.WriteGoAway(0, http2.ErrCodeNo, []byte("bye"))
		}, "above the GOAWAY", true},
		{"push while disabled", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			id := readHeaders(fr)
			fr.WritePushPromise(http2.PushPromiseParam{StreamID: id, PromiseID: 2, BlockFragment: []byte{0x82}, EndHeaders: true})
		}, "push disabled", false},
		{"response without status", func(fr *http2.Framer, hangUp func()) {
			fr.WriteSettings()
			id := readHeaders(fr)
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0x82}, EndHeaders: true}) // :method GET
		}, ":status", false},
		{"server closes after the request", func(fr *http2.Framer, hangUp func()) { readHeaders(fr); hangUp() }, "before the server's SETTINGS", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			// A 16 KiB stream window; the connection window is the minimum.
			cc := scripted(t, H2Config{StreamWindow: 16384, ConnWindow: 65535}, tc.script)
			err := roundTripErr(cc, 5*time.Second)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if NotProcessed(err) != tc.retry {
				t.Errorf("NotProcessed(%v) = %v, want %v", err, !tc.retry, tc.retry)
			}
			cc.Close()
			waitGoroutines(t, before)
		})
	}
}

func writeResponseHeaders(fr *http2.Framer, id uint32) {
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0x88}, EndHeaders: true}) // :status 200
}

// A server that accepts the connection and never speaks: the request fails
// when its context ends, and Close leaves nothing behind.
func TestH2HandshakeNeverCompletes(t *testing.T) {
	before := runtime.NumGoroutine()
	cc := scripted(t, H2Config{}, func(fr *http2.Framer, hangUp func()) {
		readHeaders(fr)
	})
	err := roundTripErr(cc, 200*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's deadline", err)
	}
	cc.Close()
	waitGoroutines(t, before)
}

// waitGoroutines waits until no more goroutines run than before (the
// scripted server's end is asynchronous), failing after 5 s.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// The HEADERS on the wire carry Chrome's chain: with streams of priority
// 0, 4 and 1 open at once, the second and third depend exclusively on the
// first (the most recent stream at least as urgent).
func TestH2SendsChromePriorities(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(3)
	addr := goServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait() // all three streams open together
		io.WriteString(w, r.URL.Path)
	}), 0)
	var mu sync.Mutex
	deps := map[uint32]http2.PriorityParam{}
	cc := dialH2(t, addr, H2Config{Trace: func(ev FrameEvent) {
		if ev.Sent && ev.Type == http2.FrameHeaders {
			mu.Lock()
			deps[ev.StreamID] = ev.Priority
			mu.Unlock()
		}
	}})
	var wg sync.WaitGroup
	for i, p := range []uint8{0, 4, 1} {
		// Open in order, so that stream ids follow the list.
		ready := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := httptrace.WithClientTrace(WithPriority(context.Background(), p),
				&httptrace.ClientTrace{WroteHeaders: func() { close(ready) }})
			get(t, cc, ctx, fmt.Sprintf("https://%s/%d", addr, i))
		}()
		<-ready
	}
	wg.Wait()
	want := map[uint32]http2.PriorityParam{
		1: {StreamDep: 0, Exclusive: true, Weight: weightOf(0)},
		3: {StreamDep: 1, Exclusive: true, Weight: weightOf(4)},
		5: {StreamDep: 1, Exclusive: true, Weight: weightOf(1)},
	}
	for id, w := range want {
		if deps[id] != w {
			t.Errorf("stream %d: priority %+v, want %+v", id, deps[id], w)
		}
	}
}

// A server that stops reading while a large request body is being sent:
// Close still returns, and the request fails.
func TestH2CloseWithWriterStuck(t *testing.T) {
	release := make(chan struct{})
	cc := scriptedSmallBuffers(t, H2Config{}, func(fr *http2.Framer, hangUp func()) {
		fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30})
		fr.WriteWindowUpdate(0, 1<<30)
		<-release // read nothing more until the client has closed
	})
	defer close(release)
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "https://example.test/up", bytes.NewReader(make([]byte, 64<<20)))
		_, err := cc.RoundTrip(req)
		errc <- err
	}()
	// Wait until the writer is stuck: the body has started (the server's
	// SETTINGS gave it room) and the window it took stops moving, because
	// the small socket buffers are full.
	taken := func() window {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if !cc.gotSettings {
			return 0
		}
		return 65535 + 1<<30 - cc.sendWin
	}
	for deadline, last := time.Now().Add(5*time.Second), window(0); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if n := taken(); n > 0 && n == last {
			break
		} else {
			last = n
		}
	}
	cc.Close()
	if err := <-errc; err == nil {
		t.Fatal("the upload succeeded against a server that read nothing")
	}
}

// Until the server has applied our SETTINGS it may send the protocol's
// 65535 bytes on a stream, even when our window is smaller.
func TestH2DefaultWindowUntilSettingsAcked(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 60000)
	cc := scripted(t, H2Config{StreamWindow: 16384, ConnWindow: 1 << 20}, func(fr *http2.Framer, hangUp func()) {
		fr.WriteSettings()
		id := readHeaders(fr)
		writeResponseHeaders(fr, id)
		for b := body; len(b) > 0; b = b[min(len(b), 16384):] {
			fr.WriteData(id, len(b) <= 16384, b[:min(len(b), 16384)])
		}
		fr.WriteSettingsAck()
	})
	req, _ := http.NewRequest(http.MethodGet, "https://example.test/", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("%d of %d bytes, %v", len(got), len(body), err)
	}
}
