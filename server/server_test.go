package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/spdy"
)

// The node-spdy peer (interop/node/lab.js) must produce the same stream;
// these vectors were printed by it.
func TestDeterministicBytesMatchNodeVectors(t *testing.T) {
	if got := hex.EncodeToString(DeterministicBytes(9, 1)); got != "7227215135ef24cc54" {
		t.Errorf("DeterministicBytes(9, 1) = %s, want 7227215135ef24cc54", got)
	}
	if got := DeterministicSHA256(1001, 5); got != "133d73a4fc30b09b691e3822a0a59bdd3fb69d391afbd6a02e7f3f68945caa66" {
		t.Errorf("DeterministicSHA256(1001, 5) = %s", got)
	}
}

func TestDeterministicReaderIndependentOfReadSizes(t *testing.T) {
	want := DeterministicBytes(10007, 42)
	for _, chunk := range []int{1, 3, 5, 4096} {
		r := DeterministicReader(int64(len(want)), 42)
		var got []byte
		buf := make([]byte, chunk)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("reading in %d-byte chunks gives a different stream", chunk)
		}
	}
	if bytes.Equal(DeterministicBytes(64, 1), DeterministicBytes(64, 2)) {
		t.Fatal("seeds 1 and 2 give the same bytes")
	}
}

func TestPreloadTargets(t *testing.T) {
	got := PreloadTargets([]string{
		`</a.css>; rel=preload; as=style, </b.js>; rel="preload"`,
		`</c.js>; rel=preload; nopush`,
		`<https://other.example/d.js>; rel=preload`,
		`</e.png>; rel=prefetch`,
		`</f.js>; rel="stylesheet preload"; title="x, y"`,
	})
	want := []string{"/a.css", "/b.js", "/f.js"}
	if !slices.Equal(got, want) {
		t.Fatalf("PreloadTargets = %q, want %q", got, want)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Protocols: []string{"spdy/1"}}, `unknown protocol "spdy/1"`},
		{Config{Protocols: []string{"h2", "h2"}}, `"h2" listed twice`},
		{Config{Protocols: []string{"spdy/3.1"}, Plain: "h2"}, `plain-TCP protocol "h2" is not one of spdy/3.1`},
		{Config{Push: "always"}, `push policy "always"`},
		{Config{Root: "/nonexistent/spdylab"}, "root"},
		{Config{TLSMin: tls.VersionTLS13, TLSMax: tls.VersionTLS12}, "above the maximum"},
		{Config{Manifest: "/nonexistent/manifest.json"}, "manifest"},
		{Config{AdaptiveLowat: true, NotSentLowat: 16384}, "NotSentLowat 16384 sets it fixed"},
		{Config{AdaptivePacing: true, PacingRate: 1e6}, "PacingRate 1000000 sets it fixed"},
	} {
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) error = %v, want it to mention %q", tc.cfg, err, tc.want)
		}
	}
}

// startServer serves cfg on a loopback port until the test ends.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if testing.Verbose() && cfg.Log == nil {
		cfg.Log = log.New(os.Stderr, "server: ", log.Lmicroseconds)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	for s.URL() == "" {
		time.Sleep(time.Millisecond)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return s
}

// client is one connection speaking proto to a test server.
type client struct {
	proto string
	rt    func(*http.Request) (*http.Response, error)
	spdy  *spdy.ClientConn
	close func()
}

func dial(t testing.TB, s *Server, proto string, cfg *spdy.ClientConfig) *client {
	t.Helper()
	u, _ := url.Parse(s.URL())
	raw, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	var c net.Conn = raw
	if u.Scheme == "https" {
		tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{proto}})
		if err := tc.Handshake(); err != nil {
			t.Fatalf("handshake offering %s: %v", proto, err)
		}
		if got := tc.ConnectionState().NegotiatedProtocol; got != proto {
			t.Fatalf("negotiated %q, want %q", got, proto)
		}
		c = tc
	}
	cl := &client{proto: proto}
	switch {
	case slices.Contains(spdyVersions, proto):
		if cfg == nil {
			cfg = &spdy.ClientConfig{}
		}
		cfg.Version = proto
		cc, err := spdy.NewClientConn(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cl.rt, cl.spdy, cl.close = cc.RoundTrip, cc, func() { cc.Close() }
	case proto == ProtoH2:
		cc, err := (&http2.Transport{}).NewClientConn(c)
		if err != nil {
			t.Fatal(err)
		}
		cl.rt, cl.close = cc.RoundTrip, func() { cc.Close() }
	case proto == ProtoHTTP11:
		// One request per connection keeps the helper simple; keep-alive is
		// net/http's business.
		tr := &http.Transport{
			DialTLSContext: func(context.Context, string, string) (net.Conn, error) { return c, nil },
			DialContext:    func(context.Context, string, string) (net.Conn, error) { return c, nil },
		}
		cl.rt, cl.close = tr.RoundTrip, func() { tr.CloseIdleConnections(); c.Close() }
	}
	t.Cleanup(cl.close)
	return cl
}

func (c *client) do(t *testing.T, method, target string, body []byte) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, target, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.rt(req)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", method, target, c.proto, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s over %s: reading body: %v", method, target, c.proto, err)
	}
	return resp, b
}

// writeSite writes a small hand-made page with a manifest.
func writeSite(t *testing.T) (string, *page.Manifest) {
	t.Helper()
	m := &page.Manifest{
		Name:  "t",
		Seed:  1,
		Hosts: []string{"localhost"},
		Resources: []page.Resource{
			{ID: 0, Path: "/index.html", Host: "localhost", Size: 600, Type: page.TypeHTML, ContentType: "text/html; charset=utf-8",
				Headers: map[string]string{"Link": "</style.css>; rel=preload; as=style"}, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
			{ID: 1, Path: "/style.css", Host: "localhost", Size: 3000, Type: page.TypeCSS, ContentType: "text/css", Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 200}},
			{ID: 2, Path: "/app.js", Host: "localhost", Size: 70000, Type: page.TypeJS, ContentType: "application/javascript", Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 400}},
		},
	}
	dir := t.TempDir()
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func TestFilesAndLabEndpointsOverEveryProtocol(t *testing.T) {
	dir, m := writeSite(t)
	s := startServer(t, Config{Root: dir})
	for _, proto := range DefaultProtocols {
		t.Run(strings.ReplaceAll(proto, "/", "_"), func(t *testing.T) {
			c := dial(t, s, proto, nil)
			base := s.URL()

			for _, r := range m.Resources {
				resp, body := c.do(t, "GET", base+r.Path[1:], nil)
				want, err := os.ReadFile(filepath.Join(dir, r.Path))
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != 200 || !bytes.Equal(body, want) {
					t.Fatalf("%s: status %d, %d bytes; want 200 and the file's %d bytes", r.Path, resp.StatusCode, len(body), len(want))
				}
				if resp.ContentLength != int64(r.Size) {
					t.Errorf("%s: Content-Length %d, want %d", r.Path, resp.ContentLength, r.Size)
				}
				if got := resp.Header.Get("Content-Type"); got != r.ContentType {
					t.Errorf("%s: Content-Type %q, want %q", r.Path, got, r.ContentType)
				}
				for k, v := range r.Headers {
					if got := resp.Header.Get(k); got != v {
						t.Errorf("%s: header %s = %q, want the manifest's %q", r.Path, k, got, v)
					}
				}
			}

			resp, body := c.do(t, "GET", base+"missing.png", nil)
			if resp.StatusCode != 404 || !strings.Contains(string(body), "/missing.png") {
				t.Errorf("missing file: status %d body %q, want 404 naming the path", resp.StatusCode, body)
			}
			resp, _ = c.do(t, "GET", base+"../../etc/passwd", nil)
			if resp.StatusCode == 200 {
				t.Errorf("path escaping the root answered 200")
			}

			const n = 300001
			resp, body = c.do(t, "GET", fmt.Sprintf("%s_spdylab/bytes?n=%d&seed=9", base, n), nil)
			if resp.StatusCode != 200 || !bytes.Equal(body, DeterministicBytes(n, 9)) || resp.ContentLength != n {
				t.Errorf("bytes endpoint: status %d, %d bytes, Content-Length %d", resp.StatusCode, len(body), resp.ContentLength)
			}
			resp, body = c.do(t, "GET", base+"_spdylab/bytes?n=-1", nil)
			if resp.StatusCode != 400 || !strings.Contains(string(body), "n must be") {
				t.Errorf("bad n: status %d body %q", resp.StatusCode, body)
			}

			upload := DeterministicBytes(200003, 3)
			resp, body = c.do(t, "POST", base+"_spdylab/sha256/anything", upload)
			var ur UploadResult
			if err := json.Unmarshal(body, &ur); err != nil || resp.StatusCode != 200 {
				t.Fatalf("sha256 endpoint: status %d body %q: %v", resp.StatusCode, body, err)
			}
			if ur.SHA256 != DeterministicSHA256(200003, 3) || ur.Length != 200003 || ur.Protocol != proto {
				t.Errorf("sha256 endpoint answered %+v, want the upload's hash, 200003 bytes, protocol %s", ur, proto)
			}

			resp, body = c.do(t, "GET", base+"_spdylab/info", nil)
			var info RequestInfo
			if err := json.Unmarshal(body, &info); err != nil {
				t.Fatalf("info: %v (%q)", err, body)
			}
			if info.Protocol != proto || info.Method != "GET" || info.Path != "/_spdylab/info" {
				t.Errorf("info = %+v", info)
			}
			wantPrio := -1
			if v, ok := spdy.LookupVersion(proto); ok {
				wantPrio = spdy.DefaultPriority
				if v.Wire == spdy.Version2 {
					wantPrio = spdy.DefaultPriority &^ 1 // two bits on the wire: 3 travels as 1, reads as 2
				}
			}
			if info.Priority != wantPrio {
				t.Errorf("info priority %d, want %d", info.Priority, wantPrio)
			}
		})
	}
}

func TestALPNOffersOnlyConfiguredProtocols(t *testing.T) {
	s := startServer(t, Config{Protocols: []string{ProtoSPDY31, ProtoHTTP11}})
	u, _ := url.Parse(s.URL())
	tc, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "spdy/3.1", "http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tc.ConnectionState().NegotiatedProtocol; got != ProtoSPDY31 {
		t.Errorf("negotiated %q, want the server's first choice spdy/3.1", got)
	}
	tc.Close()
	_, err = tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err == nil {
		t.Errorf("a client offering only h2 completed the handshake with a server that does not speak h2")
	}
}

func TestPlain(t *testing.T) {
	s := startServer(t, Config{Plain: ProtoSPDY31})
	if !strings.HasPrefix(s.URL(), "http://") {
		t.Fatalf("URL %q, want http:// for plain SPDY", s.URL())
	}
	c := dial(t, s, ProtoSPDY31, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 100000 + i*1000
			resp, body := c.do(t, "GET", fmt.Sprintf("%s_spdylab/bytes?n=%d&seed=%d", s.URL(), n, i), nil)
			if resp.StatusCode != 200 || !bytes.Equal(body, DeterministicBytes(n, uint32(i))) {
				t.Errorf("stream %d: status %d, %d bytes", i, resp.StatusCode, len(body))
			}
		}()
	}
	wg.Wait()
}

// pushedOverSPDY loads path and returns the paths the server pushed, with
// their bodies checked against the files.
func pushedOverSPDY(t *testing.T, s *Server, dir, path string) []string {
	t.Helper()
	var mu sync.Mutex
	var promised []string
	c := dial(t, s, ProtoSPDY31, &spdy.ClientConfig{OnPush: func(p *spdy.PushPromise) bool {
		mu.Lock()
		promised = append(promised, p.URL)
		mu.Unlock()
		return true
	}})
	resp, _ := c.do(t, "GET", s.URL()+path[1:], nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d", path, resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	var paths []string
	for _, pu := range promised {
		u, err := url.Parse(pu)
		if err != nil {
			t.Fatalf("push URL %q: %v", pu, err)
		}
		pr, ok := c.spdy.Pushed(pu)
		if !ok {
			t.Fatalf("push of %s announced but not claimable", pu)
		}
		body, err := io.ReadAll(pr.Body)
		pr.Body.Close()
		want, _ := os.ReadFile(filepath.Join(dir, u.Path))
		if err != nil || !bytes.Equal(body, want) || pr.StatusCode != 200 {
			t.Fatalf("pushed %s: status %d, %d bytes (err %v), want the file's %d bytes", u.Path, pr.StatusCode, len(body), err, len(want))
		}
		paths = append(paths, u.Path)
	}
	return paths
}

func TestPushPolicies(t *testing.T) {
	dir, m := writeSite(t)
	t.Run("manifest", func(t *testing.T) {
		s := startServer(t, Config{Root: dir, Push: PushManifest})
		got := pushedOverSPDY(t, s, dir, "/index.html")
		want := m.PushMap()["/index.html"]
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("pushed %q, want the manifest's children %q", got, want)
		}
		if got := pushedOverSPDY(t, s, dir, "/style.css"); len(got) != 0 {
			t.Errorf("a leaf resource pushed %q", got)
		}
	})
	t.Run("explicit map", func(t *testing.T) {
		s := startServer(t, Config{Root: dir, Push: PushManifest, PushMap: map[string][]string{"/style.css": {"/app.js"}}})
		if got := pushedOverSPDY(t, s, dir, "/style.css"); !slices.Equal(got, []string{"/app.js"}) {
			t.Errorf("pushed %q, want [/app.js] from Config.PushMap", got)
		}
	})
	t.Run("preload", func(t *testing.T) {
		s := startServer(t, Config{Root: dir, Push: PushPreload})
		if got := pushedOverSPDY(t, s, dir, "/index.html"); !slices.Equal(got, []string{"/style.css"}) {
			t.Errorf("pushed %q, want only the Link rel=preload target /style.css", got)
		}
	})
	t.Run("none", func(t *testing.T) {
		s := startServer(t, Config{Root: dir})
		if got := pushedOverSPDY(t, s, dir, "/index.html"); len(got) != 0 {
			t.Errorf("push policy none pushed %q", got)
		}
	})
	t.Run("h2", func(t *testing.T) {
		s := startServer(t, Config{Root: dir, Push: PushPreload})
		if got := pushedOverH2(t, s, "/index.html"); !slices.Equal(got, []string{"/style.css"}) {
			t.Errorf("h2 PUSH_PROMISEs for %q, want [/style.css]", got)
		}
	})
}

// pushedOverH2 speaks just enough HTTP/2 (Go's client refuses pushes) to
// request path with push enabled and collect the promised paths.
func pushedOverH2(t *testing.T, s *Server, path string) []string {
	t.Helper()
	u, _ := url.Parse(s.URL())
	tc, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(tc, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(tc, tc)
	dec := hpack.NewDecoder(4096, nil)
	fr.ReadMetaHeaders = dec
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 1}); err != nil {
		t.Fatal(err)
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, kv := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", u.Host}, {":path", path}} {
		enc.WriteField(hpack.HeaderField{Name: kv[0], Value: kv[1]})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	var promised []string
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading h2 frames: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.PushPromiseFrame:
			// The framer decodes only HEADERS; PUSH_PROMISE blocks go
			// through the same HPACK context, in frame order.
			fields, err := dec.DecodeFull(f.HeaderBlockFragment())
			if err != nil {
				t.Fatalf("PUSH_PROMISE header block: %v", err)
			}
			for _, hf := range fields {
				if hf.Name == ":path" {
					promised = append(promised, hf.Value)
				}
			}
		case *http2.DataFrame:
			if f.StreamID == 1 && f.StreamEnded() {
				return promised
			}
		case *http2.RSTStreamFrame:
			if f.StreamID == 1 {
				t.Fatalf("server reset the request: %v", f.ErrCode)
			}
		case *http2.GoAwayFrame:
			t.Fatalf("server sent GOAWAY %v", f.ErrCode)
		}
	}
}

func TestShutdownEndsOpenSessions(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	for s.URL() == "" {
		time.Sleep(time.Millisecond)
	}
	sp := dial(t, s, ProtoSPDY31, nil)
	h2 := dial(t, s, ProtoH2, nil)
	h1 := dial(t, s, ProtoHTTP11, nil)
	for _, c := range []*client{sp, h2, h1} {
		if resp, _ := c.do(t, "GET", s.URL()+"_spdylab/bytes?n=10", nil); resp.StatusCode != 200 {
			t.Fatalf("%s: status %d before shutdown", c.proto, resp.StatusCode)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with idle sessions open: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve returned %v, want http.ErrServerClosed", err)
	}
	select {
	case <-sp.spdy.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the SPDY session is still open after Shutdown")
	}
	if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
		t.Error("the listener still accepts after Shutdown")
	}
	if err := s.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve after Shutdown: %v, want http.ErrServerClosed", err)
	}
}

func TestCongestionControlReachesAcceptedConnections(t *testing.T) {
	for _, cc := range []string{"cubic", "reno"} {
		if cc == "cubic" && os.Geteuid() != 0 {
			// Unprivileged sockets may only pick tcp_allowed_congestion_control.
			continue
		}
		s := startServer(t, Config{CC: cc})
		for _, proto := range []string{ProtoSPDY31, ProtoH2, ProtoHTTP11} {
			c := dial(t, s, proto, nil)
			_, body := c.do(t, "GET", s.URL()+"_spdylab/info", nil)
			var info RequestInfo
			if err := json.Unmarshal(body, &info); err != nil {
				t.Fatal(err)
			}
			if info.CC != cc {
				t.Errorf("Config.CC %q over %s: the connection runs %q", cc, proto, info.CC)
			}
		}
	}
	if _, err := New(Config{CC: "no-such-cc"}); err != nil {
		t.Fatalf("New checks CC only when listening, got %v", err)
	}
	s, _ := New(Config{CC: "no-such-cc"})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := s.Serve(l); err == nil || !strings.Contains(err.Error(), "no-such-cc") {
		t.Errorf("Serve with an unknown congestion control: %v, want an error naming it", err)
	}
	s.Close()
}

func TestTLSVersionBounds(t *testing.T) {
	s := startServer(t, Config{TLSMax: tls.VersionTLS12})
	u, _ := url.Parse(s.URL())
	tc, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{ProtoSPDY31}})
	if err != nil {
		t.Fatal(err)
	}
	if v := tc.ConnectionState().Version; v != tls.VersionTLS12 {
		t.Errorf("TLSMax 1.2 negotiated version %#x", v)
	}
	tc.Close()
	s13 := startServer(t, Config{TLSMin: tls.VersionTLS13})
	u, _ = url.Parse(s13.URL())
	if _, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}); err == nil {
		t.Error("a TLS 1.2-only client got through to a TLSMin 1.3 server")
	}
}

func TestHeadAndRangeOverSPDY(t *testing.T) {
	dir, m := writeSite(t)
	s := startServer(t, Config{Root: dir})
	c := dial(t, s, ProtoSPDY31, nil)
	js := m.Resources[2]
	resp, body := c.do(t, "HEAD", s.URL()+js.Path[1:], nil)
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != fmt.Sprint(js.Size) {
		t.Errorf("HEAD: status %d, %d body bytes, Content-Length %q; want 200, none, %d", resp.StatusCode, len(body), resp.Header.Get("Content-Length"), js.Size)
	}
	req, _ := http.NewRequest("GET", s.URL()+js.Path[1:], nil)
	req.Header.Set("Range", "bytes=100-199")
	resp, err := c.rt(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	full, _ := os.ReadFile(filepath.Join(dir, js.Path))
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, full[100:200]) {
		t.Errorf("Range 100-199: status %d, %d bytes", resp.StatusCode, len(part))
	}
}

func TestURLOfWildcardListenerIsDialable(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	defer s.Close()
	for s.URL() == "" {
		time.Sleep(time.Millisecond)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	if want := "https://localhost:" + port + "/"; s.URL() != want {
		t.Errorf("URL() = %q, want %q", s.URL(), want)
	}
}

func TestNotSentLowatReachesAcceptedConnections(t *testing.T) {
	s := startServer(t, Config{NotSentLowat: 16384})
	for _, proto := range []string{ProtoSPDY31, ProtoH2, ProtoHTTP11} {
		c := dial(t, s, proto, nil)
		_, body := c.do(t, "GET", s.URL()+"_spdylab/info", nil)
		var info RequestInfo
		if err := json.Unmarshal(body, &info); err != nil {
			t.Fatal(err)
		}
		if info.NotSentLowat != 16384 {
			t.Errorf("%s: TCP_NOTSENT_LOWAT is %d, want Config.NotSentLowat 16384", proto, info.NotSentLowat)
		}
	}
}
