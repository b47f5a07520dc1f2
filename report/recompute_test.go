package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/critpath"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

const recomputeStudy = `
name = "mini-recompute"
runs = 4
seed = 5
[factors]
page = "pageA"
rate = "10mbit/1mbit"
rtt = "100ms"
protocol = ["https", "spdy/3.1"]
[baseline]
protocol = "https"
`

// staleStore writes a store whose every load carries a breakdown no rule
// makes (the whole PLT as other client time), as a store written by older
// rules keeps its old split; the last load of each condition has no HAR.
func staleStore(t *testing.T) (dir string, wrong float64) {
	t.Helper()
	dir = t.TempDir()
	s, st, sess := openTestStore(t, dir, recomputeStudy)
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const plt = 300
	for _, c := range s.Conditions {
		m, err := page.Generate(c.Page, c.Shards, s.Seed, c.ShardMode)
		if err != nil {
			t.Fatal(err)
		}
		st.PutManifest(spec.ManifestKey(c.Condition), m)
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: plt, HAR: fakeHAR(t0),
				Breakdown: &probe.Breakdown{Ms: map[string]float64{probe.CatOther: plt}}}
			if run == s.Runs-1 {
				r.HAR = nil
			}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, plt
}

func TestWhyRecomputeReplacesStaleBreakdowns(t *testing.T) {
	dir, wrong := staleStore(t)
	_, kept, err := WhyDir(dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if kept.Recomputed != nil {
		t.Error("why without --recompute says it recomputed")
	}
	for _, p := range kept.Probes {
		if b := p.Result.Breakdown; b == nil || len(b.Ms) != 1 || b.Ms[probe.CatOther] != wrong {
			t.Fatalf("load %d: breakdown %+v, want the stored one kept without --recompute", p.ID, b)
		}
	}

	cells, a, err := WhyDir(dir, "", Options{Recompute: true})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Recomputed
	if r == nil || r.Loads != 6 || r.Changed != 6 || r.KeptTotal() != 2 || r.Kept["has no HAR"] != 2 {
		t.Fatalf("recomputed %+v: want 6 loads recomputed (all changed), 2 without a HAR kept", r)
	}
	if !strings.Contains(r.String(), "2 could not be") || !strings.Contains(r.String(), "has no HAR") {
		t.Errorf("the summary line %q does not say how many could not be and why", r)
	}
	for _, p := range a.Probes {
		full, err := store.OpenStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := full.ProbeByID(p.ID)
		full.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(stored.Result.HAR) == 0 {
			if p.Result.Breakdown.Ms[probe.CatOther] != wrong {
				t.Errorf("load %d without a HAR: %+v, want its stored breakdown", p.ID, p.Result.Breakdown)
			}
			continue
		}
		m := a.manifestOf(&p)
		want := critpath.Analyze(critpath.Input{Result: &stored.Result, Manifest: m})
		if !sameBreakdown(p.Result.Breakdown, want) || p.Result.Breakdown.Ms[probe.CatRTT] == 0 {
			t.Errorf("load %d: recomputed %v, want today's %v (with the last request's round trip)", p.ID, p.Result.Breakdown.Ms, want.Ms)
		}
	}
	if len(cells) != 1 {
		t.Fatalf("%d cells, want spdy/3.1 against https", len(cells))
	}
	// The store itself keeps what it had: recompute only reads.
	if _, again, _ := WhyDir(dir, "", Options{}); again.Probes[0].Result.Breakdown.Ms[probe.CatOther] != wrong {
		t.Error("--recompute changed the stored breakdowns")
	}
}

func TestWhyRecomputeRefusesBadDirs(t *testing.T) {
	if _, _, err := WhyDir(filepath.Join(t.TempDir(), "none"), "", Options{Recompute: true}); err == nil || !strings.Contains(err.Error(), "results.db missing") {
		t.Errorf("a missing directory: %v, want it named", err)
	}
	dir, _ := staleStore(t)
	lock := filepath.Join(dir, store.RunLockName)
	// A run that ended normally left its lock empty; a killed one, a PID
	// whose process is gone: neither is writing.
	for _, content := range []string{"", "999999999\n"} {
		os.WriteFile(lock, []byte(content), 0o644)
		if _, _, err := WhyDir(dir, "", Options{Recompute: true}); err != nil {
			t.Errorf("lock %q: %v, want the store read", content, err)
		}
	}
	os.WriteFile(lock, []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644)
	_, _, err := WhyDir(dir, "", Options{Recompute: true})
	if err == nil || !strings.Contains(err.Error(), "being written by spdylab run") || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("a store a live run holds: %v, want an error naming the run", err)
	}
}
