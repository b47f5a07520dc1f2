package spdy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

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

// A spdy/2 session end to end: what crosses the wire is SPDY/2 both ways
// (a v2 framer reads every byte), bodies far larger than any SPDY/3 window
// arrive while read slowly with no WINDOW_UPDATE in either direction, and
// the 2-bit priority reaches the handler on the 0-7 scale.
func TestSessionV2WireAndNoFlowControl(t *testing.T) {
	body := randomBytes(3<<20, 7)
	var gotPri []uint8
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotPri = append(gotPri, RequestPriority(r))
		mu.Unlock()
		if r.Method == http.MethodPost {
			sum := sha256.New()
			io.Copy(sum, r.Body)
			w.Write(sum.Sum(nil))
			return
		}
		w.Write(body)
	})
	c, s := tcpPipe(t)
	rc, rs := &recordingConn{Conn: c}, &recordingConn{Conn: s}
	cfg := Config{Version: ProtoSPDY2, InitialWindowSize: 16 << 10}
	srv := &Server{Config: cfg, Handler: h}
	served := make(chan error, 1)
	go func() { served <- srv.ServeConn(context.Background(), rs) }()
	cc, err := NewClientConn(rc, &ClientConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(WithPriority(context.Background(), 5), http.MethodGet, "https://example.test/big", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readSlowly(resp.Body)
	resp.Body.Close()
	if err != nil || sha256.Sum256(got) != sha256.Sum256(body) {
		t.Fatalf("download: %d bytes, err %v, sha256 mismatch", len(got), err)
	}
	upload := randomBytes(1<<20, 8)
	req, _ = http.NewRequest(http.MethodPost, "https://example.test/up", bytes.NewReader(upload))
	resp, err = cc.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := sha256.Sum256(upload); !bytes.Equal(sum, want[:]) {
		t.Fatal("upload: server's sha256 differs")
	}
	cc.Close()
	<-served

	for side, rec := range map[string]*recordingConn{"client": rc, "server": rs} {
		frames := rec.frames(t, Version2)
		for _, f := range frames {
			if f.Type() == TypeWindowUpdate {
				t.Errorf("%s sent %v", side, f)
			}
			if s, ok := f.(*SettingsFrame); ok {
				for _, e := range s.Entries {
					if e.ID == SettingInitialWindowSize {
						t.Errorf("%s announced a window: %v", side, f)
					}
				}
			}
		}
		if side == "client" {
			if syn, ok := frames[1].(*SynStreamFrame); !ok || syn.Priority != 4 || syn.Headers.Get(":path") != "/big" {
				t.Errorf("client's first stream frame %v, want SYN_STREAM /big at priority 4 (5 in 2 bits)", frames[1])
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gotPri) != 2 || gotPri[0] != 4 || gotPri[1] != DefaultPriority&^1 {
		t.Fatalf("handler priorities %v, want [4 %d]", gotPri, DefaultPriority&^1)
	}
}

// Without flow control the only bound on a stream's unread data is
// MaxUnreadPerStream: past it the stream is reset, the session lives on.
func TestUnreadCapResetsStreamV2(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, 2<<20))
	})
	cfg := Config{Version: ProtoSPDY2}
	p := newPair(t, cfg, &ClientConfig{Config: Config{Version: ProtoSPDY2, MaxUnreadPerStream: 256 << 10}}, h)
	resp, err := p.get(context.Background(), "/big")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "client resets the overfull stream", func() bool { return p.cc.Stats().FramesSent["RST_STREAM"] == 1 })
	_, err = io.ReadAll(resp.Body)
	var se *StreamError
	if !errors.As(err, &se) || se.Status != RstFlowControlError {
		t.Fatalf("reading the reset body: %v, want FLOW_CONTROL_ERROR", err)
	}
	resp.Body.Close()
	if _, err := p.cc.Ping(context.Background()); err != nil {
		t.Fatalf("session after the reset: %v", err)
	}
}

// A v2 peer's WINDOW_UPDATE and SETTINGS_INITIAL_WINDOW_SIZE (node-spdy
// sends both) change nothing: a zero window does not stall our sends.
func TestPeerWindowsIgnoredV2(t *testing.T) {
	body := randomBytes(300<<10, 3)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	c, s := tcpPipe(t)
	p := &rawPeer{t: t, conn: c, fr: NewFramerVersion(Version2, c, c, 0), done: make(chan error, 1)}
	srv := &Server{Config: Config{Version: ProtoSPDY2}, Handler: h}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { p.done <- srv.ServeConn(ctx, s) }()
	t.Cleanup(func() { c.Close(); cancel(); <-p.done })

	// Window 0 on SPDY/3 would stall every byte; a delta-0 WINDOW_UPDATE
	// would be a FLOW_CONTROL_ERROR.
	p.send(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: 0}}})
	p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	p.sendRaw(unhex(t, "8002 0009 00 000008 00000001 00000000"))
	var got []byte
	for {
		f := p.next()
		switch f := f.(type) {
		case *DataFrame:
			got = append(got, f.Data...)
			if f.Flags&FlagFin != 0 {
				if !bytes.Equal(got, body) {
					t.Fatalf("got %d bytes, want %d", len(got), len(body))
				}
				return
			}
		case *RstStreamFrame, *GoAwayFrame:
			t.Fatalf("server answered %v", f)
		}
	}
}

// Version errors: a SPDY/3 SYN_STREAM to a v2 server is refused with
// UNSUPPORTED_VERSION and the v2 session carries on.
func TestV3SynStreamToV2ServerRefused(t *testing.T) {
	c, s := tcpPipe(t)
	p := &rawPeer{t: t, conn: c, fr: NewFramerVersion(Version2, c, c, 0), done: make(chan error, 1)}
	srv := &Server{Config: Config{Version: ProtoSPDY2}, Handler: http.NotFoundHandler()}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { p.done <- srv.ServeConn(ctx, s) }()
	t.Cleanup(func() { c.Close(); cancel(); <-p.done })
	var v3 bytes.Buffer
	w := NewFramer(&v3, nil, 0)
	w.WriteFrame(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	w.Flush()
	p.sendRaw(v3.Bytes())
	p.expectRst(1, RstUnsupportedVersion)
	p.send(&NoopFrame{})
	p.expectAlive(1)
	if err := (&Config{Version: "spdy/1"}).validate(); err == nil || !errors.As(err, new(*ConfigError)) {
		t.Fatalf("Config.Version spdy/1: %v", err)
	}
}

// Config.SPDY2StreamWindows (node-spdy's spdy/2): SPDY/3 stream windows
// with version 2 on the wire; a slowly read body arrives only because the
// reader's WINDOW_UPDATEs reopen the sender's window.
func TestSPDY2StreamWindows(t *testing.T) {
	body := randomBytes(400<<10, 5)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	cfg := Config{Version: ProtoSPDY2, SPDY2StreamWindows: true}
	p := newPair(t, cfg, &ClientConfig{Config: cfg}, h)
	resp, err := p.get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readSlowly(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body: %d bytes, %v", len(got), err)
	}
	// 400 KiB through a 64 KiB window needs at least 5 reopenings.
	if n := p.cc.Stats().FramesSent["WINDOW_UPDATE"]; n < 5 {
		t.Fatalf("client sent %d WINDOW_UPDATEs, want >= 5", n)
	}
}

// Draft 2 names a pushed resource by its full URL in "url"; node-spdy (and
// our server) send scheme, host and a path instead. Both are pushes.
func TestPushURLForms(t *testing.T) {
	cases := []struct {
		h    Header
		want string
	}{
		{Header{":path": {"https://example.test/a.css"}}, "https://example.test/a.css"},
		{Header{":scheme": {"https"}, ":host": {"example.test"}, ":path": {"/a.css"}}, "https://example.test/a.css"},
		{Header{":path": {"/a.css"}}, ""},
		{Header{":path": {"https:///a.css"}}, ""},
	}
	for _, c := range cases {
		got, ok := pushURL(c.h)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("pushURL(%v) = %q, %v; want %q", c.h, got, ok, c.want)
		}
	}
}
