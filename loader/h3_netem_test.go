package loader

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// An h3 load through a real testbed (namespaces, TUN, the link emulator at
// 50 ms RTT): the QUIC packets cross the emulated link (its counters carry
// at least every UDP payload byte the loader counted), and the handshake
// takes at least the link's round trip.
func TestH3OverEmulatedLink(t *testing.T) {
	testutil.RequireRoot(t)
	const rtt = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := netem.New(ctx, netem.Config{Shards: 1, Link: probe.Link{RTT: rtt, DownBps: 20e6, UpBps: 5e6}})
	if err != nil {
		t.Fatalf("netem.New: %v", err)
	}
	defer tb.Close()

	st := newSite(t, "generic:n=15,mean=8k", 1)
	host := tb.Servers()[0]
	srv, err := server.New(server.Config{Root: st.dir, HostNames: st.m.Hosts})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := host.ListenPacket("udp", host.HostPort(443))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeH3(pc) }()
	defer func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeH3: %v", err)
		}
	}()

	target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + host.HostPort(443)}}
	tb.ResetCounters()
	res, err := Load(ctx, target, Options{Proto: probe.ProtoH3, ListenPacket: tb.Client().ListenPacket})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	link := tb.Counters()
	if link.Down.BytesDelivered < uint64(res.BytesWireIn) || link.Up.BytesDelivered < uint64(res.BytesWireOut) {
		t.Errorf("the link carried %d bytes down and %d up, less than the loader's UDP payloads (%d in, %d out): the packets did not cross it",
			link.Down.BytesDelivered, link.Up.BytesDelivered, res.BytesWireIn, res.BytesWireOut)
	}
	var connect float64 = -1
	for _, e := range h.Log.Entries {
		if e.Timings.Connect >= 0 {
			connect = e.Timings.Connect
		}
	}
	t.Logf("handshake %.1f ms at %v RTT; link down %d B, loader in %d B; PLT %.0f ms", connect, rtt, link.Down.BytesDelivered, res.BytesWireIn, res.PLTms)
	if connect < float64(rtt.Milliseconds()) {
		b, _ := json.Marshal(h.Log.Entries[0].Timings)
		t.Errorf("the QUIC handshake took %v ms, less than the link's %v round trip (first entry's timings %s)", connect, rtt, b)
	}
}
