package harness

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// connectByHost is each host's connect phase (the first connection's) in
// a load's HAR.
func connectByHost(t *testing.T, r probe.Result) map[string]float64 {
	t.Helper()
	if r.Failed {
		t.Fatalf("load failed: %s", r.Error)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct{ URL string }
				Timings struct{ Connect, SSL float64 }
			}
		}
	}
	if err := json.Unmarshal(r.HAR, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, e := range doc.Log.Entries {
		u, _ := url.Parse(e.Request.URL)
		if c := e.Timings.Connect - max(e.Timings.SSL, 0); e.Timings.Connect > 0 && out[u.Hostname()] == 0 {
			out[u.Hostname()] = c
		}
	}
	return out
}

// host_rtt recorded: the hand-made recording's hosts are 0 (www), 10
// (static), 70 (cdn) and 40 ms (ads) further than the fastest; each
// host's TCP connect over the link takes at least the link's rtt plus its
// own extra round trip, and the far host's longer than the near one's.
func TestHostRTTRecordedDelaysEachHost(t *testing.T) {
	testutil.RequireRoot(t)
	rtt := 20 * time.Millisecond
	c := probe.Condition{Page: hostsPage(t), HostRTT: probe.HostRTTRecorded,
		Link: probe.Link{RTT: rtt, DownBps: 50e6, UpBps: 10e6, Shared: true}}
	b := openBench(t, c, Options{})
	extra := map[string]time.Duration{"www.shop.example": 0, "static.shop.example": 10 * time.Millisecond,
		"cdn.other.example": 70 * time.Millisecond, "ads.tracker.example": 40 * time.Millisecond}
	for h, d := range extra {
		if got := b.Testbed().Config().HostDelays[h]; got != d {
			t.Errorf("testbed delay of %s %v, want %v", h, got, d)
		}
	}
	got := connectByHost(t, b.Load(context.Background(), probe.ProtoHTTPS, 0))
	t.Logf("connect ms by host: %v", got)
	for h, d := range extra {
		if floor := float64(rtt+d) / float64(time.Millisecond); got[h] < floor-1 {
			t.Errorf("%s connected in %.1f ms, below the link's rtt plus its extra round trip (%.0f ms)", h, got[h], floor)
		}
	}
	if got["cdn.other.example"] <= got["www.shop.example"] {
		t.Errorf("the far host connected in %.1f ms, no longer than the document's host (%.1f ms)", got["cdn.other.example"], got["www.shop.example"])
	}
}
