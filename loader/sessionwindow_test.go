package loader

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// Options.SessionWindow replaces the session window of every multiplexed
// protocol's connections and keeps the stream window.
func TestSessionWindowOverridesTheProfiles(t *testing.T) {
	for _, o := range []Options{{}, {InitialWindow: 1 << 20}, {Windows: ChromiumWindows}} {
		stream, _ := o.windows(spdy.DefaultInitialWindowSize)
		o.SessionWindow = 65536
		s2, session := o.windows(spdy.DefaultInitialWindowSize)
		if s2 != stream || session != 65536 {
			t.Errorf("%+v: windows %d/%d, want stream %d and session 65536", o, s2, session, stream)
		}
	}
}

// The loader announces its session window to a SPDY/3.1 server at session
// start: one WINDOW_UPDATE on stream 0 of the window minus SPDY's 64 KiB.
func TestSessionWindowAnnouncedOnStreamZero(t *testing.T) {
	st := newSite(t, "generic:n=5,mean=5k,depth=1", 1)
	for _, window := range []int{0, 1 << 20} {
		var mu sync.Mutex
		var deltas []uint32
		srv, err := server.New(server.Config{Root: st.dir, HostNames: st.m.Hosts, SPDY: spdy.Config{
			Trace: func(sent bool, f spdy.Frame) {
				if wu, ok := f.(*spdy.WindowUpdateFrame); ok && !sent && wu.Stream == 0 {
					mu.Lock()
					deltas = append(deltas, wu.Delta)
					mu.Unlock()
				}
			}}})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + ln.Addr().String()}}
		_, err = Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31, SessionWindow: window})
		srv.Close()
		if err != nil {
			t.Fatalf("session window %d: %v", window, err)
		}
		want := uint32(window - spdy.DefaultInitialWindowSize)
		if window == 0 {
			want = 10<<20 - spdy.DefaultInitialWindowSize // the default: at least 10 MiB (sessionWindow)
		}
		mu.Lock()
		if len(deltas) == 0 || deltas[0] != want {
			t.Errorf("session window %d: stream-0 WINDOW_UPDATEs %v, want the first %d", window, deltas, want)
		}
		mu.Unlock()
	}
}
