package loader

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// A cold load with TLSResume: a host's first connection makes a full
// handshake and leaves a ticket; later connections to the host resume it,
// as a browser's do. Over HTTPS (several connections per host) that is
// every connection opened after the first handshake finished. Each
// subresource is answered 20 ms late: on loopback the first connection
// could otherwise carry the whole page before the others finished their
// handshakes, and a load would see no resumption at all.
func TestResumptionWithinAColdLoadHTTPS(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=4k", 1)
	subresource := func(path string) bool { return path != "/" && path != "/index.html" }
	target, _ := goServers(t, st, []string{"http/1.1"}, lateFiles(st, subresource, 20*time.Millisecond))
	for _, ver := range []string{"1.2", "1.3"} {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, TLSVersion: ver, TLSResume: true})
		if err != nil {
			t.Fatal(err)
		}
		tl := res.TLS
		if tl.Full < 1 || tl.Resumed < 1 || !res.Condition.TLSResume {
			t.Errorf("TLS %s: %d connections, handshakes %+v, condition %+v: want the first full and later ones resumed", ver, res.Connections, tl, res.Condition)
		}
		full := 1
		if ver == "1.2" {
			full = 2
		}
		if tl.RoundTrips != full*tl.Full+tl.Resumed {
			t.Errorf("TLS %s: %d round trips for %+v", ver, tl.RoundTrips, tl)
		}
	}
}

// h3 holds one QUIC connection per host, so in a cold load only a
// connection that replaces one (here: the first idled out before a script
// asked for more) can resume, and with EarlyData it sends its request in
// 0-RTT: no handshake round trip at all. It waits out an idle timeout: 5 s
// is the least quic-go's client accepts from a server
// (protocol.MinRemoteIdleTimeout); with less, the server forgets the
// connection while the client still sends on it.
func TestEarlyDataOnAReplacedH3Connection(t *testing.T) {
	const idle = 5 * time.Second
	m, err := page.Generate("generic:n=12,mean=2k,depth=2", 1, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for i := range m.Resources {
		if r := &m.Resources[i]; r.Discovery.Kind == page.KindOnload {
			r.Discovery.Delay = idle + time.Second // past both sides' idle timeouts
			late++
		}
	}
	if late == 0 {
		t.Fatal("the page has no resource requested after a script ran")
	}
	st := &site{m: m, dir: t.TempDir()}
	if err := m.WriteSite(st.dir); err != nil {
		t.Fatal(err)
	}
	target := h3LabServer(t, st, server.H3Config{IdleTimeout: idle})
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3, TLSVersion: "1.3", TLSResume: true, EarlyData: true})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
	want := probe.TLSHandshakes{Full: 1, Resumed: 1, EarlyData: 1, RoundTrips: 1}
	if res.Connections != 2 || res.TLS != want {
		t.Errorf("%d connections, handshakes %+v; want 2 connections and %+v", res.Connections, res.TLS, want)
	}
	if c := res.Condition; !c.TLSResume || !c.EarlyData {
		t.Errorf("result's condition %+v does not carry the TLS options", c)
	}
}
