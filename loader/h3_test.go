package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// h3LabServer runs spdylab's server over HTTP/3 on one loopback UDP port
// for every host of the site.
func h3LabServer(t testing.TB, st *site, h3cfg server.H3Config) Target {
	t.Helper()
	srv, err := server.New(server.Config{Root: st.dir, HostNames: st.m.Hosts, H3: h3cfg})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeH3(pc) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeH3: %v", err)
		}
	})
	target := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	for _, h := range st.m.Hosts {
		target.BaseURLs[h] = "https://" + pc.LocalAddr().String()
	}
	return target
}

func TestLoadH3FetchesEveryResourceOnce(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=6k,depth=2", 2)
	target := h3LabServer(t, st, server.H3Config{})
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	for host, n := range connsPerHost(h) {
		if n != 1 {
			t.Errorf("%d QUIC connections to %s, want 1", n, host)
		}
	}
	hosts := len(st.m.Hosts)
	if res.Connections != hosts || res.Condition.TLS != "1.3" {
		t.Errorf("%d connections over TLS %s, want %d over 1.3", res.Connections, res.Condition.TLS, hosts)
	}
	if want := (probe.TLSHandshakes{Full: hosts, RoundTrips: hosts}); res.TLS != want {
		t.Errorf("TLS handshakes %+v, want %+v", res.TLS, want)
	}
	if res.Phases.Connect <= 0 || res.Phases.Receive <= 0 {
		t.Errorf("phase sums look wrong: %+v", res.Phases)
	}
	for _, e := range h.Log.Entries {
		if e.Request.HTTPVersion != "h3" {
			t.Errorf("%s: HTTP version %q, want h3", e.Request.URL, e.Request.HTTPVersion)
		}
		want := priorityField(uint8(e.Priority.Level), incremental(st.m.Resources[*e.ResourceID].Type))
		if got := harHeader(e.Request.Headers, "Priority"); got != want {
			t.Errorf("%s: Priority header %q, want %q", e.Request.URL, got, want)
		}
	}
}

func harHeader(hs []har.NameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func TestPriorityField(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want string
	}{
		{"html", "u=0, i"}, {"css", "u=1"}, {"js", "u=2"}, {"other", "u=3"}, {"image", "u=4, i"},
	} {
		if got := priorityField(priorityOf(tc.typ), incremental(tc.typ)); got != tc.want {
			t.Errorf("priorityField(%s) = %q, want %q", tc.typ, got, tc.want)
		}
	}
}

// A repeat visit: the first load leaves tickets in the caller's session
// cache, the second resumes every connection and sends its first requests
// in 0-RTT. A server that refuses early data costs the round trip back and
// the load still succeeds.
func TestH3RepeatVisitWithEarlyData(t *testing.T) {
	for _, reject := range []bool{false, true} {
		st := newSite(t, "generic:n=20,mean=4k", 2)
		target := h3LabServer(t, st, server.H3Config{Reject0RTT: reject})
		cache := tls.NewLRUClientSessionCache(8)
		opt := Options{Proto: probe.ProtoH3, SessionCache: cache, EarlyData: true}
		first, err := Load(context.Background(), target, opt)
		if err != nil {
			t.Fatal(err)
		}
		hosts := len(st.m.Hosts)
		if first.TLS.Full != hosts {
			t.Fatalf("first visit: %+v, want %d full handshakes", first.TLS, hosts)
		}
		res, err := Load(context.Background(), target, opt)
		if err != nil {
			t.Fatalf("repeat visit (server rejects 0-RTT: %v): %v", reject, err)
		}
		checkAgainstManifest(t, st, res)
		want := probe.TLSHandshakes{Resumed: hosts, EarlyData: hosts}
		if reject {
			want.EarlyRejected, want.RoundTrips = hosts, hosts
			// A connection that died in the switch to 1-RTT is dialled
			// again, one more round trip (h3.Conn.redial).
			if got := res.TLS.RoundTrips; got >= hosts && got <= 2*hosts {
				want.RoundTrips = got
			}
		}
		if res.TLS != want {
			t.Errorf("repeat visit (server rejects 0-RTT: %v): handshakes %+v, want %+v", reject, res.TLS, want)
		}
	}
}

// Resumption over TCP: a repeat visit resumes every connection, with TLS
// 1.2's abbreviated handshake costing one round trip instead of two; without
// a session cache nothing resumes.
func TestTCPResumptionCountsRoundTrips(t *testing.T) {
	st := newSite(t, "generic:n=10,mean=3k", 2)
	target := labServer(t, st, server.PushNone)
	hosts := len(st.m.Hosts)
	suites := map[string]string{"1.2": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "1.3": "TLS_AES_128_GCM_SHA256"}
	for _, ver := range []string{"1.2", "1.3"} {
		cold, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: ver})
		if err != nil {
			t.Fatal(err)
		}
		full := 1
		if ver == "1.2" {
			full = 2
		}
		if want := (probe.TLSHandshakes{Full: hosts, RoundTrips: full * hosts, Version: ver, CipherSuite: suites[ver]}); cold.TLS != want {
			t.Errorf("TLS %s cold: %+v, want %+v", ver, cold.TLS, want)
		}
		opt := Options{Proto: probe.ProtoH2, TLSVersion: ver, SessionCache: tls.NewLRUClientSessionCache(8)}
		if _, err := Load(context.Background(), target, opt); err != nil {
			t.Fatal(err)
		}
		warm, err := Load(context.Background(), target, opt)
		if err != nil {
			t.Fatal(err)
		}
		if want := (probe.TLSHandshakes{Resumed: hosts, RoundTrips: hosts, Version: ver, CipherSuite: suites[ver]}); warm.TLS != want {
			t.Errorf("TLS %s repeat visit: %+v, want %+v", ver, warm.TLS, want)
		}
	}
	// Within one load (https: up to six connections per host), every
	// completed handshake is counted once, full or resumed, with its round
	// trips (a spare connection may still be handshaking when the load
	// ends: it is a connection without a handshake).
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, TLSVersion: "1.2", TLSResume: true})
	if err != nil {
		t.Fatal(err)
	}
	if tl := res.TLS; tl.Full+tl.Resumed > res.Connections || tl.RoundTrips != 2*tl.Full+tl.Resumed || tl.Full < hosts {
		t.Errorf("https with resumption: %d connections, handshakes %+v", res.Connections, tl)
	}
	if _, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, EarlyData: true}); err == nil || !strings.Contains(err.Error(), "0-RTT") {
		t.Errorf("early data over h2 = %v, want an error saying TCP has no 0-RTT here", err)
	}
}

// A server that never answers the QUIC handshake: the load fails naming the
// host and the handshake, and leaves no goroutine behind.
func TestH3HandshakeNeverCompletes(t *testing.T) {
	st := newSite(t, "generic:n=5,mean=2k", 1)
	sink, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := sink.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + sink.LocalAddr().String()}}
	before := runtime.NumGoroutine()
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3, Timeout: time.Second})
	if err == nil || !res.Failed {
		t.Fatal("the load succeeded against a server that never answers")
	}
	for _, want := range []string{st.m.Hosts[0], "handshake"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("error %q does not mention %q", res.Error, want)
		}
	}
	if res.BytesWireOut < 1200 || res.BytesWireIn != 0 {
		t.Errorf("wire bytes out %d, in %d: want the Initial packets counted and nothing received", res.BytesWireOut, res.BytesWireIn)
	}
	after := runtime.NumGoroutine()
	for i := 0; i < 250 && after > before; i++ {
		time.Sleep(20 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// Successful h3 loads (cold, and repeat visits with 0-RTT) leave no
// goroutine behind once their connections closed.
func TestH3NoGoroutinesLeft(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=4k", 2)
	target := h3LabServer(t, st, server.H3Config{})
	cache := tls.NewLRUClientSessionCache(8)
	// The first load starts the server's listener goroutines (quic-go
	// starts them lazily) and fills the session cache.
	if _, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3, SessionCache: cache}); err != nil {
		t.Fatal(err)
	}
	before := steadyGoroutines()
	for i := 0; i < 3; i++ {
		if _, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3}); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3, SessionCache: cache, EarlyData: true}); err != nil {
			t.Fatal(err)
		}
	}
	after := runtime.NumGoroutine()
	for i := 0; i < 250 && after > before; i++ {
		time.Sleep(20 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the loads, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// steadyGoroutines is the goroutine count once it stopped changing (the
// server side of closed connections winds down asynchronously).
func steadyGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for i := 0; i < 250 && same < 5; i++ {
		time.Sleep(20 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			same++
		} else {
			n, same = m, 0
		}
	}
	return n
}

// A page with more requests than the server's stream limit: quic-go's
// client waits for MAX_STREAMS credit, so every request is queued and
// served (an h2 client that sends beyond the limit fails this way).
func TestH3QueuesBeyondTheServersStreamLimit(t *testing.T) {
	st := newSite(t, "generic:n=60,mean=3k", 1)
	target := h3LabServer(t, st, server.H3Config{MaxStreams: 4})
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
}

// A server that refuses early data, on repeat views whose requests are
// all in flight as 0-RTT when the rejection arrives: however each one
// learns of it (a refused stream open, a reset, the response's first
// frame failing with quic.Err0RTTRejected), it is sent again after the
// handshake and every load completes. Several views, because which path a
// request takes depends on where the rejection finds it.
func TestH3RepeatViewsSurviveRejectedEarlyData(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=2k", 2)
	target := h3LabServer(t, st, server.H3Config{Reject0RTT: true})
	cache := tls.NewLRUClientSessionCache(8)
	opt := Options{Proto: probe.ProtoH3, SessionCache: cache, EarlyData: true}
	if _, err := Load(context.Background(), target, opt); err != nil {
		t.Fatal(err)
	}
	hosts := len(st.m.Hosts)
	for view := range 8 {
		res, err := Load(context.Background(), target, opt)
		if err != nil {
			t.Fatalf("repeat view %d: %v", view, err)
		}
		checkAgainstManifest(t, st, res)
		if res.TLS.EarlyData != hosts || res.TLS.EarlyRejected != hosts {
			t.Fatalf("repeat view %d: handshakes %+v, want %d sending early data, all rejected", view, res.TLS, hosts)
		}
	}
}
