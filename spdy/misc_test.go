package spdy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/tcpopt"
)

func TestTraceSeesFramesBothWays(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	trace := func(sent bool, f Frame) {
		dir := "<"
		if sent {
			dir = ">"
		}
		mu.Lock()
		lines = append(lines, dir+" "+f.String())
		mu.Unlock()
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hi")) })
	p := newPair(t, Config{}, &ClientConfig{Config: Config{Trace: trace}}, h)
	resp, err := p.get(context.Background(), "/t")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	mu.Lock()
	all := strings.Join(lines, "\n")
	mu.Unlock()
	for _, want := range []string{
		"> SETTINGS MAX_CONCURRENT_STREAMS=100",
		"> SYN_STREAM stream=1 pri=3 flags=FIN headers=",
		":host :method :path :scheme :version",
		"< SYN_REPLY stream=1 headers=",
		"< DATA stream=1 len=2",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("trace lacks %q:\n%s", want, all)
		}
	}
}

func TestNotSentLowatIsApplied(t *testing.T) {
	c, s := tcpPipe(t)
	defer s.Close()
	cc, err := NewClientConn(c, &ClientConfig{Config: Config{NotSentLowat: 16384}})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	tc, _ := tcpopt.Unwrap(c)
	raw, _ := tc.SyscallConn()
	var v int
	raw.Control(func(fd uintptr) { v, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT) })
	if v != 16384 {
		t.Fatalf("TCP_NOTSENT_LOWAT = %d", v)
	}
}

func TestIdleTimeoutClosesSession(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	p := newPair(t, Config{}, &ClientConfig{Config: Config{IdleTimeout: 50e6}}, h)
	resp, err := p.get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	<-p.cc.Done() // returns only if the idle session closed itself
	if p.cc.CanTakeNewRequest() {
		t.Fatal("closed session takes requests")
	}
	if _, err := p.get(context.Background(), "/"); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("request on idle-closed session: %v", err)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	c, s := tcpPipe(t)
	defer c.Close()
	defer s.Close()
	_, err := NewClientConn(c, &ClientConfig{Config: Config{Version: "spdy/1"}})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "Version" || !strings.Contains(err.Error(), "spdy/1") {
		t.Fatalf("err = %v", err)
	}
}

func TestServerHints(t *testing.T) {
	h := http.Header{}
	AddServerHints(h, "/a.css", "https://cdn.test/b.js")
	h.Add("Link", "</c.png>; rel=preload; as=image, </d.html>; rel=next, <e.js>; rel=\"subresource\"")
	base, _ := url.Parse("https://site.test/dir/page.html")
	got := ServerHints(h, base)
	want := []string{"https://site.test/a.css", "https://cdn.test/b.js", "https://site.test/c.png", "https://site.test/dir/e.js"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hints %v, want %v", got, want)
	}
	// Hints travel through a real session as ordinary response headers.
	srvH := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		AddServerHints(w.Header(), "/style.css")
		w.Write([]byte("<html>"))
	})
	p := newPair(t, Config{}, nil, srvH)
	resp, err := p.get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := ServerHints(resp.Header, resp.Request.URL); len(got) != 1 || got[0] != "https://example.test/style.css" {
		t.Fatalf("hints over SPDY: %v", got)
	}
}

func TestHandlerPanicResetsStreamOnly(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic(http.ErrAbortHandler)
		}
		w.Write([]byte("fine"))
	})
	p := newPair(t, Config{}, nil, h)
	if _, err := p.get(context.Background(), "/panic"); !isRst(err, RstInternalError) {
		t.Fatalf("panicking handler: %v", err)
	}
	resp, err := p.get(context.Background(), "/ok")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "fine" {
		t.Fatalf("after panic: %q", b)
	}
}

func TestCancelledRequestResetsStream(t *testing.T) {
	started := make(chan struct{})
	gone := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		gone <- context.Cause(r.Context())
	})
	p := newPair(t, Config{}, nil, h)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.get(ctx, "/")
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("RoundTrip: %v", err)
	}
	if err := <-gone; !isRst(err, RstCancel) {
		t.Fatalf("handler context ended with %v, want the client's RST CANCEL", err)
	}
}

func TestResponseTrailersFromHeadersFrame(t *testing.T) {
	cc, p := newRawServer(t, nil)
	respc := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "https://example.test/", nil)
		resp, err := cc.RoundTrip(req)
		if err != nil {
			t.Error(err)
		}
		respc <- resp
	}()
	s := p.expectSyn()
	p.send(&SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()},
		&DataFrame{Stream: s.Stream, Data: []byte("body")},
		&HeadersFrame{Stream: s.Stream, Flags: FlagFin, Headers: Header{"x-checksum": {"abc"}}})
	resp := <-respc
	if resp == nil {
		return
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "body" {
		t.Fatalf("body %q %v", b, err)
	}
	if resp.Trailer.Get("X-Checksum") != "abc" {
		t.Fatalf("trailer %v", resp.Trailer)
	}
}

// A server with RampFrames sends a response's DATA over a real connection
// in frames that start at one segment and double; without it, in frames
// of the maximum size. The client reads the same body either way.
func TestRampFramesOnTheWire(t *testing.T) {
	body := make([]byte, 40000)
	for i := range body {
		body[i] = byte(i)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	for _, tc := range []struct {
		ramp bool
		want []int
	}{
		{false, []int{16384, 16384, 7232}},
		{true, []int{1200, 1200, 2400, 4800, 9600, 16384, 4416}},
	} {
		var mu sync.Mutex
		var lens []int
		trace := func(sent bool, f Frame) {
			if d, ok := f.(*DataFrame); ok && !sent && len(d.Data) > 0 {
				mu.Lock()
				lens = append(lens, len(d.Data))
				mu.Unlock()
			}
		}
		p := newPair(t, Config{RampFrames: tc.ramp}, &ClientConfig{Config: Config{Trace: trace}}, h)
		resp, err := p.get(context.Background(), "/ramp")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("ramp %v: body of %d bytes (%v), want the %d sent", tc.ramp, len(got), err, len(body))
		}
		mu.Lock()
		if fmt.Sprint(lens) != fmt.Sprint(tc.want) {
			t.Errorf("ramp %v: DATA payloads %v, want %v", tc.ramp, lens, tc.want)
		}
		mu.Unlock()
		p.close()
	}
}
