package harness

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// A repeat view over the emulated link: the measured load resumes every
// handshake with the first view's tickets (none full), over HTTPS, h2 and
// h3, and with early_data h3 sends every host's first requests in 0-RTT.
// The servers saw the same handshakes (what Chromium's repeat views are
// counted with).
func TestRepeatViewResumesEveryHandshake(t *testing.T) {
	testutil.RequireRoot(t)
	link := probe.Link{RTT: 40 * time.Millisecond, Shared: true}
	for _, tc := range []struct {
		proto, tls string
		early      bool
	}{
		{probe.ProtoHTTPS, probe.TLS12, false},
		{probe.ProtoH2, probe.TLS12, false},
		{probe.ProtoH3, probe.TLS13, false},
		{probe.ProtoH3, probe.TLS13, true},
	} {
		c := probe.Condition{Page: "pageA", Shards: 2, Link: link, TLS: tc.tls, EarlyData: tc.early, View: probe.ViewRepeat}
		b := openBench(t, c, Options{})
		r := b.Load(context.Background(), tc.proto, 0)
		if r.Failed {
			t.Fatalf("%s early_data=%v: %s", tc.proto, tc.early, r.Error)
		}
		served := b.serverHandshakes()
		hs := r.TLS
		t.Logf("%s tls %s early_data=%v: %d connections, handshakes %+v, servers saw %+v", tc.proto, tc.tls, tc.early, r.Connections, hs, served)
		if r.Condition.View != probe.ViewRepeat {
			t.Errorf("%s: result's condition has view %q", tc.proto, r.Condition.View)
		}
		if hs.Full != 0 || hs.Resumed < 2 || hs.RoundTrips != hs.Resumed-hs.EarlyData {
			t.Errorf("%s early_data=%v: handshakes %+v, want every one resumed (1 round trip each, 0 with 0-RTT)", tc.proto, tc.early, hs)
		}
		if tc.early && hs.EarlyData != hs.Resumed {
			t.Errorf("%s with early_data: %d of %d resumed handshakes sent 0-RTT", tc.proto, hs.EarlyData, hs.Resumed)
		}
		if !tc.early && hs.EarlyData != 0 {
			t.Errorf("%s without early_data: %d handshakes sent 0-RTT", tc.proto, hs.EarlyData)
		}
		// HTTPS may leave a spare connection handshaking when the load ends:
		// the servers count it, the loader does not.
		if served.Full != 0 || served.Resumed < hs.Resumed || served.EarlyData != hs.EarlyData || tc.proto != probe.ProtoHTTPS && served.Resumed != hs.Resumed {
			t.Errorf("%s: servers saw handshakes %+v, the loader %+v", tc.proto, served, hs)
		}
	}
}

// A first view on the same bench still starts cold: every handshake full.
func TestFirstViewAfterARepeatViewIsCold(t *testing.T) {
	c := probe.Condition{Page: "pageA", Shards: 2, NoLink: true, TLS: probe.TLS13, View: probe.ViewRepeat}
	b := openBench(t, c, Options{})
	if r := b.Load(context.Background(), probe.ProtoH2, 0); r.Failed || r.TLS.Full != 0 {
		t.Fatalf("repeat view: failed %v %s, handshakes %+v", r.Failed, r.Error, r.TLS)
	}
	b.cond.View = ""
	if r := b.Load(context.Background(), probe.ProtoH2, 1); r.Failed || r.TLS.Resumed != 0 || r.TLS.Full != 2 {
		t.Errorf("first view after a repeat view: failed %v %s, handshakes %+v", r.Failed, r.Error, r.TLS)
	}
}
