package loader

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// spdyServers starts one spdy.Server per manifest host on loopback. With
// push set, the root document's request pushes every image the root
// references.
func spdyServers(t testing.TB, st *site, version string, maxStreams uint32, push bool) (Target, map[string]*hostStats) {
	t.Helper()
	cert, err := certs.SelfSigned(st.m.Hosts...)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	stats := map[string]*hostStats{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for _, host := range st.m.Hosts {
		hs := &hostStats{requests: map[string]int{}, priority: map[string]uint8{}}
		stats[host] = hs
		files := fileHandler(st.dir)
		srv := &spdy.Server{
			Config:   spdy.Config{Version: version, MaxConcurrentStreams: maxStreams},
			ErrorLog: quietLog(),
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if spdy.RequestStreamID(r)%2 == 1 { // client-initiated: a real request, not a push
					hs.saw(r.URL.Path)
					hs.mu.Lock()
					hs.priority[r.URL.Path] = spdy.RequestPriority(r)
					hs.mu.Unlock()
				}
				if push && r.URL.Path == st.m.Resources[0].Path {
					for _, id := range st.m.Children(0) {
						c := st.m.Resources[id]
						if c.Type == page.TypeImage && c.Host == host {
							w.(http.Pusher).Push(c.Path, nil)
						}
					}
				}
				files.ServeHTTP(w, r)
			}),
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{version}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				hs.connState(c, http.StateNew)
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer hs.connState(c, http.StateClosed)
					tc := tls.Server(c, cfg)
					if tc.HandshakeContext(ctx) != nil {
						c.Close()
						return
					}
					srv.ServeConn(ctx, tc)
				}()
			}
		}()
		t.Cleanup(func() { ln.Close() })
		target.BaseURLs[host] = "https://" + ln.Addr().String()
	}
	return target, stats
}

func TestLoadSPDY(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=6k,depth=2", 2)
	for _, version := range spdy.VersionNames() {
		target, stats := spdyServers(t, st, version, 0, false)
		res, err := Load(context.Background(), target, Options{Proto: version, TLSVersion: "1.2"})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		h := checkAgainstManifest(t, st, res)
		if res.Connections != len(st.m.Hosts) {
			t.Errorf("%s: %d connections for %d hosts, want one session each", version, res.Connections, len(st.m.Hosts))
		}
		for host, hs := range stats {
			if hs.conns != 1 {
				t.Errorf("%s: %s accepted %d connections, want 1", version, host, hs.conns)
			}
		}
		for host, n := range connsPerHost(h) {
			if n != 1 {
				t.Errorf("%s: HAR shows %d connections to %s", version, n, host)
			}
		}
		if res.HeaderBytesCompressed >= res.HeaderBytesRaw {
			t.Errorf("%s: zlib did not compress headers: raw %d, compressed %d", version, res.HeaderBytesRaw, res.HeaderBytesCompressed)
		}
		if h.Log.Entries[0].Request.HTTPVersion != version {
			t.Errorf("httpVersion %q, want %q", h.Log.Entries[0].Request.HTTPVersion, version)
		}
	}
}

// TestSPDYOneStreamAtATime: with the server allowing one stream, the client
// queues and the page still loads completely over one session.
func TestSPDYOneStreamAtATime(t *testing.T) {
	st := newSite(t, "generic:n=15,mean=3k", 1)
	target, stats := spdyServers(t, st, probe.ProtoSPDY31, 1, false)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31, InitialWindow: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
	if hs := stats[st.m.Hosts[0]]; hs.conns != 1 {
		t.Errorf("%d connections, want 1", hs.conns)
	}
}

func TestSPDYPushIsUsed(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=3k", 1)
	target, stats := spdyServers(t, st, probe.ProtoSPDY31, 0, true)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	if res.Pushed == 0 {
		t.Fatal("no pushed resource was used")
	}
	pushed := 0
	hs := stats[st.m.Hosts[0]]
	for _, e := range h.Log.Entries {
		if !e.Pushed {
			continue
		}
		pushed++
		path := st.m.Resources[*e.ResourceID].Path
		hs.mu.Lock()
		n := hs.requests[path]
		hs.mu.Unlock()
		if n != 0 {
			t.Errorf("%s was pushed and still requested %d times", e.Request.URL, n)
		}
		if e.Request.HeadersSize != -1 || e.Timings.Blocked != -1 {
			t.Errorf("%s: a pushed entry claims a request: %+v", e.Request.URL, e.Timings)
		}
	}
	if pushed != res.Pushed {
		t.Errorf("HAR has %d pushed entries, Result.Pushed = %d", pushed, res.Pushed)
	}
	b, _ := json.Marshal(h)
	if err := har.Validate(b); err != nil {
		t.Error(err)
	}
}
