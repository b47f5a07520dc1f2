package report

// Stored loads' critical paths computed from what the store holds: for
// loads stored before breakdowns existed, and for every load when asked
// (spdylab why --recompute), since a store keeps the split the rules of
// its day made.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/critpath"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// Recomputed counts a recompute of a store's breakdowns.
type Recomputed struct {
	Loads   int // successful loads whose breakdown was computed again
	Changed int // of those, loads whose stored breakdown differed
	// Kept counts, per reason, the successful loads that could not be
	// computed again and keep their stored breakdown (or none).
	Kept map[string]int
}

// KeptTotal is how many loads could not be computed again.
func (r *Recomputed) KeptTotal() int {
	n := 0
	for _, k := range r.Kept {
		n += k
	}
	return n
}

// String is the line `spdylab why --recompute` prints.
func (r *Recomputed) String() string {
	s := fmt.Sprintf("recomputed the critical path of %d loads with today's rules (%d differ from the stored ones)", r.Loads, r.Changed)
	if len(r.Kept) == 0 {
		return s + "; every successful load could be."
	}
	why := make([]string, 0, len(r.Kept))
	for reason, n := range r.Kept {
		why = append(why, fmt.Sprintf("%d: %s", n, reason))
	}
	sort.Strings(why)
	return fmt.Sprintf("%s; %d could not be and keep the stored one (%s).", s, r.KeptTotal(), strings.Join(why, "; "))
}

// explainStored computes the breakdown of stored successful loads that
// have none (loads stored before breakdowns existed), or of every one
// with recompute, from their HARs and the study's manifests.
func explainStored(st *store.Store, a *Analysis, recompute bool) error {
	if a.Metric.IsPaint() {
		return explainPaints(st, a)
	}
	if recompute {
		a.Recomputed = &Recomputed{Kept: map[string]int{}}
	}
	for i := range a.Probes {
		p := &a.Probes[i]
		if p.Result.Failed || (p.Result.Breakdown != nil && !recompute) {
			continue
		}
		full, err := st.ProbeByID(p.ID)
		if err != nil {
			return err
		}
		b, why := explainLoad(&full.Result, a.manifestOf(p), "")
		switch {
		case !recompute:
			p.Result.Breakdown = b
		case why != "":
			a.Recomputed.Kept[why]++
		default:
			a.Recomputed.Loads++
			if !sameBreakdown(p.Result.Breakdown, b) {
				a.Recomputed.Changed++
			}
			p.Result.Breakdown = b
		}
	}
	return nil
}

// explainPaints gives every successful load with the paint metric the
// critical path that ends at that paint (critpath.Input.Metric), with
// today's rules: a store keeps PLT's paths only. A load without the
// metric has no path here; one whose paint's resource is unknown has
// none either, and a.PathsUnknown says why.
func explainPaints(st *store.Store, a *Analysis) error {
	a.PathsUnknown = map[string]int{}
	for i := range a.Probes {
		p := &a.Probes[i]
		if p.Result.Failed {
			continue
		}
		p.Result.Breakdown = nil
		if _, ok := a.Metric.Of(&p.Result); !ok {
			continue
		}
		full, err := st.ProbeByID(p.ID)
		if err != nil {
			return err
		}
		b, why := explainLoad(&full.Result, a.manifestOf(p), a.Metric.Name)
		if b != nil && b.None != "" {
			a.PathsUnknown[b.None]++
		} else if why != "" {
			a.PathsUnknown[why]++
		}
		p.Result.Breakdown = b
	}
	return nil
}

// manifestOf is the stored manifest of p's page (nil when none is).
func (a *Analysis) manifestOf(p *store.Probe) *page.Manifest {
	m := a.Manifests[spec.ManifestKey(p.Result.Condition)]
	if c := a.ByHash[p.CondHash]; c != nil && m == nil {
		m = a.Manifests[spec.ManifestKey(c.Condition)]
	}
	return m
}

// explainLoad is r's breakdown as the harness would compute it today,
// with the renderer costs the loader ran with, and why it is not the
// load's whole story when it is not ("" when it is): without its page's
// manifest the path is the last exchange alone.
func explainLoad(r *probe.Result, m *page.Manifest, metric string) (*probe.Breakdown, string) {
	commit, dispatch, err := probe.LoaderRendererCosts(r.Condition)
	if err != nil {
		return nil, "its renderer costs do not parse: " + err.Error()
	}
	b := critpath.Analyze(critpath.Input{Result: r, Manifest: m, Metric: metric,
		Renderer: critpath.Renderer{CommitDelay: commit, DispatchCost: dispatch}})
	switch {
	case b.None != "":
		return b, strings.TrimPrefix(b.None, "the load ")
	case m == nil:
		return b, "no manifest of its page stored"
	}
	return b, ""
}

// sameBreakdown: the same categories with the same milliseconds (to a
// hundredth; stored JSON keeps the floats exactly, but a load may have
// been explained on another machine's float arithmetic).
func sameBreakdown(a, b *probe.Breakdown) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Ms) != len(b.Ms) {
		return false
	}
	for c, v := range a.Ms {
		w, ok := b.Ms[c]
		if !ok || math.Abs(v-w) > 0.01 {
			return false
		}
	}
	return true
}
