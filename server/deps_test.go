package server

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/spdy"
)

// writeDepsSite is a page whose document has two children, one of which
// (the style sheet) has a child of its own: a grandchild of the document.
func writeDepsSite(t *testing.T) string {
	t.Helper()
	m := &page.Manifest{
		Name: "deps", Seed: 1, Hosts: []string{"localhost"},
		Resources: []page.Resource{
			{ID: 0, Path: "/index.html", Host: "localhost", Size: 800, Type: page.TypeHTML, ContentType: "text/html", Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
			{ID: 1, Path: "/style.css", Host: "localhost", Size: 3000, Type: page.TypeCSS, ContentType: "text/css", Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 200}},
			{ID: 2, Path: "/app.js", Host: "localhost", Size: 5000, Type: page.TypeJS, ContentType: "application/javascript", Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 400}},
			{ID: 3, Path: "/bg.png", Host: "localhost", Size: 2000, Type: page.TypeImage, ContentType: "image/png", Parent: 1, Discovery: page.Discovery{Kind: page.KindRef, Offset: 100}},
		},
	}
	dir := t.TempDir()
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// spdyPromises is one SPDY connection that records the paths pushed to it.
type spdyPromises struct {
	*client
	mu    sync.Mutex
	paths []string
}

func dialRecordingPushes(t *testing.T, s *Server) *spdyPromises {
	p := &spdyPromises{}
	p.client = dial(t, s, ProtoSPDY31, &spdy.ClientConfig{OnPush: func(pp *spdy.PushPromise) bool {
		u, _ := url.Parse(pp.URL)
		p.mu.Lock()
		p.paths = append(p.paths, u.Path)
		p.mu.Unlock()
		return true
	}})
	return p
}

// take returns the paths promised since the last take.
func (p *spdyPromises) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.paths
	p.paths = nil
	return out
}

func TestPushDepsPushesTheDocumentsChildrenOnly(t *testing.T) {
	dir := writeDepsSite(t)
	s := startServer(t, Config{Root: dir, Push: PushDeps})

	c := dialRecordingPushes(t, s)
	c.do(t, "GET", s.URL()+"index.html", nil)
	if got := c.take(); !slices.Equal(got, []string{"/style.css", "/app.js"}) {
		t.Errorf("document pushed %q, want its children [/style.css /app.js] (not the grandchild /bg.png)", got)
	}
	c.do(t, "GET", s.URL()+"style.css", nil)
	if got := c.take(); len(got) != 0 {
		t.Errorf("a style sheet pushed %q: deps pushes with documents only", got)
	}
	c.do(t, "GET", s.URL()+"index.html", nil)
	if got := c.take(); len(got) != 0 {
		t.Errorf("the document again on the same connection pushed %q again", got)
	}

	// A connection that has asked for a child gets only the other one.
	c2 := dialRecordingPushes(t, s)
	c2.do(t, "GET", s.URL()+"app.js", nil)
	c2.do(t, "GET", s.URL()+"index.html", nil)
	if got := c2.take(); !slices.Equal(got, []string{"/style.css"}) {
		t.Errorf("after the client requested /app.js, the document pushed %q, want only [/style.css]", got)
	}

	// h2 gets the same pushes.
	if got := pushedOverH2(t, s, "/index.html"); !slices.Equal(got, []string{"/style.css", "/app.js"}) {
		t.Errorf("h2: pushed %q, want [/style.css /app.js]", got)
	}
}

func TestHintsListTheDocumentsChildrenOverSPDY(t *testing.T) {
	dir := writeDepsSite(t)
	s := startServer(t, Config{Root: dir, Hints: HintsDeps})
	c := dial(t, s, ProtoSPDY31, nil)
	resp, _ := c.do(t, "GET", s.URL()+"index.html", nil)
	if got, want := resp.Header.Get("X-Associated-Content"), `"/style.css", "/app.js"`; got != want {
		t.Errorf("X-Associated-Content %q, want %q", got, want)
	}
	resp, _ = c.do(t, "GET", s.URL()+"style.css", nil)
	if got := resp.Header.Get("X-Associated-Content"); got != "" {
		t.Errorf("a style sheet carries hints %q", got)
	}
	h := dial(t, s, ProtoH2, nil)
	resp, _ = h.do(t, "GET", s.URL()+"index.html", nil)
	if got := resp.Header.Get("X-Associated-Content"); got != "" {
		t.Errorf("h2 response carries SPDY hints %q", got)
	}
	plain := startServer(t, Config{Root: dir})
	resp, _ = dial(t, plain, ProtoSPDY31, nil).do(t, "GET", plain.URL()+"index.html", nil)
	if got := resp.Header.Get("X-Associated-Content"); got != "" {
		t.Errorf("hints none: %q", got)
	}
}

// The SPDY sessions cut DATA at Config.FrameSize (16 KiB without it).
func TestFrameSizeBoundsDATAFrames(t *testing.T) {
	for _, size := range []int{0, 1000, 40000} {
		s := startServer(t, Config{FrameSize: size})
		var mu sync.Mutex
		largest := 0
		c := dial(t, s, ProtoSPDY31, &spdy.ClientConfig{Config: spdy.Config{
			InitialWindowSize: 1 << 20, SessionWindowSize: 1 << 20,
			Trace: func(sent bool, f spdy.Frame) {
				if d, ok := f.(*spdy.DataFrame); ok && !sent {
					mu.Lock()
					largest = max(largest, len(d.Data))
					mu.Unlock()
				}
			}}})
		if _, b := c.do(t, "GET", fmt.Sprintf("%s_spdylab/bytes?n=%d", s.URL(), 200000), nil); len(b) != 200000 {
			t.Fatalf("frame size %d: %d bytes", size, len(b))
		}
		want := size
		if want == 0 {
			want = spdy.DefaultMaxFrameSize
		}
		mu.Lock()
		if largest != want {
			t.Errorf("FrameSize %d: largest DATA payload %d, want %d", size, largest, want)
		}
		mu.Unlock()
	}
	if _, err := New(Config{FrameSize: 100}); err == nil || !strings.Contains(err.Error(), "512") {
		t.Errorf("FrameSize 100: %v, want a range error", err)
	}
}

// SO_MAX_PACING_RATE reads back (TCP_INFO's tcpi_max_pacing_rate) on the
// accepted connections of every TCP protocol, and TCP paces at or below
// it; without the knob the cap stays unset.
func TestPacingRateReachesAcceptedConnections(t *testing.T) {
	const capRate = 1 << 20 // bytes/s
	for _, rate := range []uint64{0, capRate} {
		s := startServer(t, Config{PacingRate: rate})
		for _, proto := range []string{ProtoSPDY31, ProtoH2, ProtoHTTP11} {
			c := dial(t, s, proto, nil)
			c.do(t, "GET", s.URL()+"_spdylab/bytes?n=100000", nil)
		}
		got := s.TakeTCPInfo()
		if len(got) != 3 {
			t.Fatalf("%d connections recorded, want 3", len(got))
		}
		for _, ci := range got {
			switch {
			case rate == 0 && ci.Info.MaxPacingRate != math.MaxUint64:
				t.Errorf("no pacing: %s has SO_MAX_PACING_RATE %d, want unset", ci.Peer, ci.Info.MaxPacingRate)
			case rate > 0 && (ci.Info.MaxPacingRate != rate || ci.Info.PacingRate > rate):
				t.Errorf("PacingRate %d: %s has cap %d and pacing rate %d", rate, ci.Peer, ci.Info.MaxPacingRate, ci.Info.PacingRate)
			}
		}
	}
}
