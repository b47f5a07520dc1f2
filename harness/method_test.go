package harness

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// onloadRecording is page/testdata/onload.har: app.js requests photo.jpg
// 60 ms after it ran, and two images 540 and 640 ms after it, past the
// recording's onload (500 ms after the root's request).
func onloadRecording(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("../page/testdata/onload.har")
	if err != nil {
		t.Fatal(err)
	}
	return "har:" + abs
}

// requestGaps is, per URL path (the replay's URLs carry the bench's ports), the time from the HAR's first request to
// the entry's request.
func requestGaps(t *testing.T, b []byte) map[string]time.Duration {
	t.Helper()
	var doc struct {
		Log struct {
			Entries []struct {
				Started string `json:"startedDateTime"`
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	at := map[string]time.Time{}
	var first time.Time
	for _, e := range doc.Log.Entries {
		start, err := time.Parse(time.RFC3339Nano, e.Started)
		if err != nil {
			t.Fatal(err)
		}
		if first.IsZero() || start.Before(first) {
			first = start
		}
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			t.Fatal(err)
		}
		at[u.Path] = start
	}
	out := map[string]time.Duration{}
	for p, start := range at {
		out[p] = start.Sub(first)
	}
	return out
}

func TestComputeNoneDropsTheRecordedTimers(t *testing.T) {
	page := onloadRecording(t)
	rec := openBench(t, probe.Condition{Page: page, Until: probe.UntilAll, NoLink: true}, Options{})
	none := openBench(t, probe.Condition{Page: page, Until: probe.UntilAll, Compute: probe.ComputeNone, NoLink: true}, Options{})
	if none.Condition().Compute != probe.ComputeNone || none.Condition().RendererCostsSetting() != "0s/0s" {
		t.Fatalf("bench condition %+v: want compute none without renderer costs", none.Condition())
	}
	r1 := rec.Load(context.Background(), probe.ProtoSPDY31, 0)
	r2 := none.Load(context.Background(), probe.ProtoSPDY31, 0)
	for _, r := range []probe.Result{r1, r2} {
		if r.Failed || r.Resources != 7 {
			t.Fatalf("compute %q: failed %v (%s), %d of 7 resources", r.Condition.Compute, r.Failed, r.Error, r.Resources)
		}
	}
	late := "/later.gif"
	g1, g2 := requestGaps(t, r1.HAR), requestGaps(t, r2.HAR)
	// A timer fires no sooner than it was set for: the recorded load
	// cannot ask for later.gif before 640 ms.
	if g1[late] < 640*time.Millisecond {
		t.Errorf("recorded compute: later.gif requested %v into the load, before its 640 ms timer", g1[late])
	}
	if g2[late] >= g1[late] || r2.PLTms >= r1.PLTms {
		t.Errorf("compute none: later.gif at %v (recorded %v), PLT %.0f ms (recorded %.0f): want the timers gone", g2[late], g1[late], r2.PLTms, r1.PLTms)
	}
	t.Logf("later.gif requested at %v recorded, %v without compute; PLT %.0f vs %.0f ms", g1[late], g2[late], r1.PLTms, r2.PLTms)
}

func TestUntilOnloadLeavesLateResourcesOutOfTheLoad(t *testing.T) {
	page := onloadRecording(t)
	b := openBench(t, probe.Condition{Page: page, NoLink: true}, Options{})
	if got := b.Condition().Until; got != probe.UntilOnload {
		t.Fatalf("a recording with an onload got until %q, want onload by default", got)
	}
	r := b.Load(context.Background(), probe.ProtoHTTPS, 0)
	if r.Failed || r.Resources != 5 || r.Condition.Until != probe.UntilOnload {
		t.Fatalf("failed %v (%s), %d resources (want the 5 of 7 requested before onload), until %q", r.Failed, r.Error, r.Resources, r.Condition.Until)
	}
	if strings.Contains(string(r.HAR), "ads.onload.test") {
		t.Errorf("the load fetched from the host only used after onload")
	}
	all := openBench(t, probe.Condition{Page: page, Until: probe.UntilAll, NoLink: true}, Options{})
	if r := all.Load(context.Background(), probe.ProtoHTTPS, 0); r.Failed || r.Resources != 7 {
		t.Fatalf("until all: failed %v (%s), %d of 7 resources", r.Failed, r.Error, r.Resources)
	}
}

func TestDepsFlatLoadsEveryResource(t *testing.T) {
	b := openBench(t, probe.Condition{Page: "youm7", Shards: 8, Deps: probe.DepsFlat, NoLink: true}, Options{})
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		r := b.Load(context.Background(), proto, 0)
		if r.Failed || r.Resources != len(b.Manifest().Resources) {
			t.Fatalf("%s: failed %v (%s), %d of %d resources", proto, r.Failed, r.Error, r.Resources, len(b.Manifest().Resources))
		}
	}
}

func TestValidateRefusesUntilOnloadWithoutOne(t *testing.T) {
	abs, _ := filepath.Abs("../page/testdata/no-onload.har")
	_, err := Validate(probe.Condition{Page: "har:" + abs, Until: probe.UntilOnload, NoLink: true}, 1)
	if err == nil || !strings.Contains(err.Error(), "set until = all") {
		t.Fatalf("err %v, want a refusal saying to set until = all", err)
	}
	c, _, _, err := validate(probe.Condition{Page: "har:" + abs, NoLink: true}, 1, nil)
	if err != nil || c.Until != probe.UntilAll {
		t.Fatalf("no until given: %q, %v; want the fallback all written into the condition", c.Until, err)
	}
}

func TestRedirectsReplayPaysTheRecordedRedirects(t *testing.T) {
	abs, err := filepath.Abs("../page/testdata/redirects.har")
	if err != nil {
		t.Fatal(err)
	}
	replay := openBench(t, probe.Condition{Page: "har:" + abs, NoLink: true}, Options{})
	if got := replay.Condition().Redirects; got != probe.RedirectsReplay {
		t.Fatalf("a recording got redirects %q, want replay by default", got)
	}
	drop := openBench(t, probe.Condition{Page: "har:" + abs, Redirects: probe.RedirectsDrop, NoLink: true}, Options{})
	for _, tc := range []struct {
		b          *Bench
		resources  int
		redirected int
	}{{replay, 8, 3}, {drop, 3, 0}} {
		for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
			r := tc.b.Load(context.Background(), proto, 0)
			if r.Failed || r.Resources != tc.resources {
				t.Fatalf("redirects %s, %s: failed %v (%s), %d resources, want %d", tc.b.Condition().Redirects, proto, r.Failed, r.Error, r.Resources, tc.resources)
			}
			if n := strings.Count(string(r.HAR), `"status": 30`) + strings.Count(string(r.HAR), `"status":30`); n != tc.redirected {
				t.Errorf("redirects %s, %s: %d redirects answered, want %d", tc.b.Condition().Redirects, proto, n, tc.redirected)
			}
		}
	}
}
