package browser

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// TestLoadThroughTestbed runs Chromium in a testbed's client namespace and
// loads a two-host study page through the emulated link: h2 with names
// resolved by the testbed's DNS across the link, https with resolver rules.
func TestLoadThroughTestbed(t *testing.T) {
	requireChromium(t)
	testutil.RequireRoot(t)
	site := newLabSite(t, "pageA", 2)
	ctx := context.Background()
	tb, err := netem.New(ctx, netem.Config{Shards: 2, DNS: true, Link: probe.Link{
		RTT: 40 * time.Millisecond, DownBps: 10_000_000, UpBps: 1_000_000, QueuePkts: 50, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
	})
	resolve := map[string]string{}
	for _, h := range tb.Servers() {
		srv, err := server.New(server.Config{Root: site.dir, Certificate: &site.cert, HostNames: site.m.Hosts})
		if err != nil {
			t.Fatal(err)
		}
		l, err := h.Listen("tcp", h.HostPort(443))
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(l)
		t.Cleanup(func() {
			if err := srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Log(err)
			}
		})
		resolve[h.Name] = h.Addr.String()
	}
	for _, tc := range []struct {
		proto   string
		resolve map[string]string
	}{{probe.ProtoH2, nil}, {probe.ProtoHTTPS, resolve}} {
		tb.ResetCounters()
		res, err := Load(ctx, Options{URL: site.m.URL(0), Host: tb.Client(), Proto: tc.proto, TLSVersion: "1.3",
			Resolve: tc.resolve, TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m})
		if err != nil {
			t.Fatalf("%s: %v", tc.proto, err)
		}
		checkLoad(t, site, res, tc.proto)
		if c := tb.Counters(); c.Down.BytesDelivered < uint64(site.m.TotalBytes()) {
			t.Errorf("%s: the link carried %d bytes down, less than the page's %d", tc.proto, c.Down.BytesDelivered, site.m.TotalBytes())
		}
		dns := 0
		for _, e := range decodeHAR(t, res.HAR).Log.Entries {
			if e.Timings.DNS >= 0 {
				dns++
			}
		}
		if tc.resolve == nil && dns < len(site.m.Hosts) {
			t.Errorf("%s: %d entries with a DNS phase, want one per host at least (names resolve across the link)", tc.proto, dns)
		}
	}
}
