package study

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/eta"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// autoStop is `--runs auto` for one bench group (spec.AutoRuns): after
// the group's first Min runs, and then after every further run (one load
// of each protocol, interleaved as always), it reads the group's stored
// loads and adds another run until every variant's gain against the
// group's baseline has its 95% interval within ±Target of the gain, or
// the group has Max runs.
//
// It decides only from the store, and stats.MedianRatio seeds its
// bootstrap from the values, so a resumed run reaches the decision an
// uninterrupted one did: the runs already stored are counted, the
// incomplete one is finished, and the rule is asked again.
type autoStop struct {
	rule   spec.AutoRuns
	st     *store.Store
	g      spec.Group
	pend   map[int][]pendingProbe // the task's pending probes, shared
	ref    int                    // the group's baseline, an index into g.Conds
	next   int                    // the run to add next: runs below it are planned or stored
	added  *atomic.Int64          // probes added over the whole run (for the Summary)
	onGrow func(run int)          // tells the progress; nil until the run starts
}

// newAutoStop is the rule for group g whose runs below next are planned
// or stored.
func (r *Runner) newAutoStop(g spec.Group, pend map[int][]pendingProbe, next int, added *atomic.Int64) *autoStop {
	a := &autoStop{rule: *r.Study.RunsAuto, st: r.Store, g: g, pend: pend, next: next, added: added}
	// The gains judged are those interleaved on this bench: each variant
	// against the group's baseline protocol (a study whose baseline also
	// fixes another factor, like study2-iw's iw = 3, compares the report's
	// gains across benches; the bench's own comparison stands in for them).
	for i, c := range g.Conds {
		if c.Values["protocol"] == r.Study.Baseline["protocol"] {
			a.ref = i
			break
		}
	}
	return a
}

// storedRuns is how many runs group g has begun in the store (at least
// min): an automatic run may have added runs beyond the minimum before it
// was stopped. runsBegun is each condition's highest stored run + 1.
func storedRuns(runsBegun map[string]int, g spec.Group, min int) int {
	n := min
	for _, c := range g.Conds {
		n = max(n, runsBegun[c.Hash])
	}
	return n
}

// runsBegun is each condition's highest stored run + 1.
func runsBegun(states map[store.ProbeKey]store.ProbeState) map[string]int {
	out := map[string]int{}
	for k := range states {
		out[k.CondHash] = max(out[k.CondHash], k.Run+1)
	}
	return out
}

// grow is called once every run planned so far is stored: it adds the
// next run's probes to the task and returns it, or false when the group
// is done (precise enough, or at the cap).
func (a *autoStop) grow() (int, bool, error) {
	if a.next >= a.rule.Max {
		return 0, false, nil
	}
	hashes := make([]string, len(a.g.Conds))
	for i, c := range a.g.Conds {
		hashes[i] = c.Hash
	}
	plts, err := a.st.PLTs(hashes)
	if err != nil {
		return 0, false, fmt.Errorf("runs auto: reading the loads of %s: %w", a.g.Conds[0].Describe(), err)
	}
	if precise(plts[hashes[a.ref]], hashes, a.ref, plts, a.rule.Target) {
		return 0, false, nil
	}
	run := a.next
	a.next++
	for ci := range a.g.Conds {
		a.pend[run] = append(a.pend[run], pendingProbe{cond: ci})
	}
	a.added.Add(int64(len(a.g.Conds)))
	if a.onGrow != nil {
		a.onGrow(run)
	}
	return run, true, nil
}

// precise tells whether every variant's gain (median baseline PLT /
// median variant PLT, the report's) is known to ±target. A variant or
// baseline without a single successful load has no gain, and more loads
// of a protocol that fails every time teach nothing: it does not hold the
// group back. A group of one protocol has no gain and stops at the
// minimum.
func precise(base []float64, hashes []string, ref int, plts map[string][]float64, target float64) bool {
	for i, h := range hashes {
		if i == ref {
			continue
		}
		g := stats.MedianRatio(base, plts[h])
		if math.IsNaN(g.Ratio) {
			continue
		}
		if !g.WithinTarget(target) {
			return false
		}
	}
	return true
}

// attachAuto makes the automatic benches' added runs count in the
// progress and its ETA.
func (r *Runner) attachAuto(tasks []task, prog *progress) {
	for _, t := range tasks {
		if t.auto == nil {
			continue
		}
		t := t
		t.auto.onGrow = func(int) {
			loads := make([]eta.Load, len(t.group.Conds))
			for i, c := range t.group.Conds {
				loads[i] = r.etaLoad(c)
			}
			prog.grew(t.group.Key, loads)
		}
	}
	if r.Study.RunsAuto != nil {
		prog.setAuto()
	}
}

// runsText says how many loads a condition gets: "20", or "auto (±5%, 5
// to 40 runs)".
func runsText(s *spec.Study) string {
	if s.RunsAuto != nil {
		return s.RunsAuto.String()
	}
	return fmt.Sprint(s.Runs)
}
