package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

// A variant with a transport knob (iw 32 here) judged against the study's
// HTTPS and, with --baseline, against HTTPS given the same knob.
const transportStudy = `name = "matched"
runs = 6
seed = 1
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
iw = [10, 32]
[[exclude]]
protocol = "spdy/3.1"
iw = 10
[baseline]
protocol = "https"
iw = 10
`

func TestBaselineOverride(t *testing.T) {
	dir := t.TempDir()
	s, st, sess := openTestStore(t, dir, transportStudy)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	plt := map[string]float64{"https/10": 1200, "https/32": 1000, "spdy/3.1/32": 800}
	for _, c := range s.Conditions {
		for run := 0; run < s.Runs; run++ {
			v := plt[c.Values["protocol"]+"/"+c.Values["iw"]] + float64(run-3)
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: v, ToWms: v - 100, HAR: fakeHAR(t0)}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	gainOf := func(a *Analysis) float64 {
		for _, c := range a.Conds {
			if c.Values["protocol"] == "spdy/3.1" {
				return c.Gain
			}
		}
		return math.NaN()
	}
	own, err := AnalyzeDirWith(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := gainOf(own); math.Abs(g-1.5) > 0.01 {
		t.Errorf("against the study's https at iw 10: gain %v, want 1.5", g)
	}
	base, err := ParseBaseline("protocol=https")
	if err != nil {
		t.Fatal(err)
	}
	matched, err := AnalyzeDirWith(dir, Options{Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	if g := gainOf(matched); math.Abs(g-1.25) > 0.01 {
		t.Errorf("against https given iw 32 too: gain %v, want 1.25", g)
	}
	if own.Study.Baseline["iw"] != "10" {
		t.Error("the override changed the stored study's baseline")
	}
	for spec, want := range map[string]string{
		"bogus=1":                 "no factor \"bogus\"",
		"tls=1.3":                 "tls takes 1.2",
		"protocol=h2":             "protocol takes https, spdy/3.1",
		"protocol=spdy/3.1,iw=10": "no condition of the study holds all of these values",
	} {
		b, _ := ParseBaseline(spec)
		if _, err := AnalyzeDirWith(dir, Options{Baseline: b}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--baseline %s: %v, want an error saying %q", spec, err, want)
		}
	}
	for _, bad := range []string{"protocol", "=https", "iw=3,iw=10"} {
		if _, err := ParseBaseline(bad); err == nil {
			t.Errorf("--baseline %q parsed", bad)
		}
	}
}
