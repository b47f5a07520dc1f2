package harness

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// Chromium's repeat view over the emulated link: the servers saw every
// handshake of the measured view resumed (none full), and every page
// resource came over the network (the browser fails a repeat view with a
// cached one; the downlink carried at least the page's bytes). h2 runs
// over TLS 1.2: Chromium uses a TLS 1.3 ticket once (RFC 8446 C.4) and
// opens a spare connection or two per host beside the one it uses, so over
// TLS 1.3 those may handshake in full once the first view's tickets are
// spent. h3 needs TLS 1.3; Chromium sends its 0-RTT its own way.
func TestChromiumRepeatViewResumes(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	link := probe.Link{RTT: 40 * time.Millisecond, Shared: true}
	for _, tc := range []struct{ proto, tls string }{{probe.ProtoH2, probe.TLS12}, {probe.ProtoH3, probe.TLS13}} {
		proto := tc.proto
		c := probe.Condition{Page: "pageA", Shards: 2, Link: link, TLS: tc.tls, Client: probe.ClientChromium, View: probe.ViewRepeat}
		b := openBench(t, c, Options{})
		r := b.Load(context.Background(), proto, 0)
		if r.Failed {
			t.Fatalf("%s: %s", proto, r.Error)
		}
		t.Logf("%s: %d resources, %d connections, handshakes (servers) %+v, link down %+v", proto, r.Resources, r.Connections, r.TLS, r.Link.Down)
		if r.TLS.Full != 0 || r.TLS.Resumed < len(b.Manifest().Hosts) {
			t.Errorf("%s: handshakes %+v, want every one resumed", proto, r.TLS)
		}
		if r.Resources != len(b.Manifest().Resources) {
			t.Errorf("%s: %d of %d resources", proto, r.Resources, len(b.Manifest().Resources))
		}
		size := 0
		for _, res := range b.Manifest().Resources {
			size += res.Size
		}
		if r.Link.Down.BytesDelivered < uint64(size) {
			t.Errorf("%s: the downlink carried %d bytes, the page has %d: something came from a cache", proto, r.Link.Down.BytesDelivered, size)
		}
	}
}
