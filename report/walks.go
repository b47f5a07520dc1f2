package report

// The reconciliation walk: a study's walks (spec.Walk) go from one
// preset to another one factor per step. For each walk and each cell (the
// values its conditions share besides the walked and the baseline's
// factors: the page, a crossed factor), the variant's gain over its
// baseline after each step, and how much each step moved it, so the
// difference between two published setups' gains is split into each
// factor's share. The shares depend on the order of the steps (a factor
// can matter more once another has changed); a walk with `alone` also
// has each change applied alone to its start, the order-free effect.

import (
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/spec"
)

// WalkTable is one walk over one cell.
type WalkTable struct {
	Walk spec.Walk
	Cell string // the cell's values, e.g. "page=pageA"
	Rows []WalkRow
	// Alone are the changes applied alone to the walk's start (Delta
	// against step 0); empty unless the walk asked for them.
	Alone []WalkRow
	// Total is the gain at the walk's end minus the gain at its start.
	Total float64
}

// WalkRow is one step of a walk in one cell.
type WalkRow struct {
	Step             int
	Factor, From, To string     // "" at step 0
	Variant          *Condition // the step's variant in the cell; nil when it has none
	// Delta is the gain minus the previous step's (NaN at step 0 or
	// without both gains); Share is Delta as a part of the walk's Total.
	Delta, Share float64
	// Moved is the critical-path category whose difference from the
	// baseline (why.go) changed most from the previous step (at step 0:
	// the largest difference), and MovedMs that change; "" without
	// breakdowns.
	Moved   string
	MovedMs float64
}

// Gain is the row's gain (NaN without a variant).
func (r WalkRow) Gain() float64 {
	if r.Variant == nil {
		return math.NaN()
	}
	return r.Variant.Gain
}

// Walks builds every walk's tables, in study order, cells in the order
// their conditions appear.
func Walks(a *Analysis) []WalkTable {
	var out []WalkTable
	for _, w := range a.Study.Walks {
		skip := map[string]bool{}
		for f := range a.Study.Baseline {
			skip[f] = true
		}
		for _, st := range w.Steps {
			skip[st.Factor] = true
		}
		varied := map[string]bool{"page": true}
		for _, f := range a.Study.Varied {
			varied[f] = true
		}
		for f := range varied {
			if skip[f] {
				delete(varied, f)
			}
		}
		var cells []string
		steps := make([]map[string]*Condition, len(w.Steps))
		for i, st := range w.Steps {
			steps[i] = a.variantsByCell(st.Conds, varied, &cells)
		}
		alone := make([]map[string]*Condition, len(w.Alone))
		for i, st := range w.Alone {
			alone[i] = a.variantsByCell(st.Conds, varied, nil)
		}
		for _, cell := range cells {
			out = append(out, a.walkTable(w, cell, steps, alone))
		}
	}
	return out
}

// variantsByCell maps each cell to its variant among the given
// conditions (the conditions with a baseline twin); new cells are
// appended to cells.
func (a *Analysis) variantsByCell(hashes []string, shown map[string]bool, cells *[]string) map[string]*Condition {
	out := map[string]*Condition{}
	for _, h := range hashes {
		c := a.ByHash[h]
		if c == nil || c.IsBaseline || c.BaseHash == "" {
			continue
		}
		k := cellOf(c, shown)
		if _, ok := out[k]; ok {
			continue
		}
		out[k] = c
		if cells != nil && !contains(*cells, k) {
			*cells = append(*cells, k)
		}
	}
	return out
}

// cellOf names a condition's cell: its values of the shown factors (the
// page and the factors the study varies, but for the walked and the
// baseline's).
func cellOf(c *Condition, shown map[string]bool) string {
	var parts []string
	for _, f := range spec.FactorNames() {
		if v, ok := c.Values[f]; ok && shown[f] {
			parts = append(parts, f+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// walkTable fills one cell's rows.
func (a *Analysis) walkTable(w spec.Walk, cell string, steps, alone []map[string]*Condition) WalkTable {
	t := WalkTable{Walk: w, Cell: cell, Total: math.NaN()}
	for i, st := range w.Steps {
		r := WalkRow{Step: i, Factor: st.Factor, From: st.From, To: st.To, Variant: steps[i][cell], Delta: math.NaN(), Share: math.NaN()}
		if i > 0 {
			r.Delta = r.Gain() - t.Rows[i-1].Gain()
			r.Moved, r.MovedMs = a.movedMost(steps[i-1][cell], r.Variant)
		} else {
			r.Moved, r.MovedMs = a.movedMost(nil, r.Variant)
		}
		t.Rows = append(t.Rows, r)
	}
	t.Total = t.Rows[len(t.Rows)-1].Gain() - t.Rows[0].Gain()
	split := t.Total
	if !endsDisagree(t.Rows[0].Variant, t.Rows[len(t.Rows)-1].Variant) {
		split = math.NaN()
	}
	for i := range t.Rows {
		t.Rows[i].Share = share(t.Rows[i].Delta, split)
	}
	for i, st := range w.Alone {
		r := WalkRow{Step: i + 1, Factor: st.Factor, From: st.From, To: st.To, Variant: alone[i][cell]}
		r.Delta = r.Gain() - t.Rows[0].Gain()
		r.Share = share(r.Delta, split)
		r.Moved, r.MovedMs = a.movedMost(t.Rows[0].Variant, r.Variant)
		t.Alone = append(t.Alone, r)
	}
	return t
}

// ShareFloor is the smallest change in gain between a walk's ends that
// the report splits into shares: below it the two presets agree (the
// report's gain colours treat ±5% alike), and shares of a near-zero total
// would be large numbers that mean nothing.
const ShareFloor = 0.05

// endsDisagree is whether a walk's two ends have different gains: their
// 95% intervals apart when both have one, else gains at least ShareFloor
// apart. Shares of a difference that may be noise mean nothing.
func endsDisagree(a, b *Condition) bool {
	if a == nil || b == nil || math.IsNaN(a.Gain) || math.IsNaN(b.Gain) {
		return false
	}
	if !a.GainCI.TooFew && !b.GainCI.TooFew && !math.IsNaN(a.GainCI.Lo) && !math.IsNaN(b.GainCI.Lo) {
		return a.GainCI.Hi < b.GainCI.Lo || b.GainCI.Hi < a.GainCI.Lo
	}
	return math.Abs(b.Gain-a.Gain) >= ShareFloor
}

// share is delta as a part of total (NaN when |total| < ShareFloor).
func share(delta, total float64) float64 {
	if math.IsNaN(total) || math.Abs(total) < ShareFloor {
		return math.NaN()
	}
	return delta / total
}

// movedMost compares two conditions' "why" terms (each category's
// median difference from its baseline): the category whose difference
// changed most from prev to cur, and by how much; with prev nil, cur's
// largest term.
func (a *Analysis) movedMost(prev, cur *Condition) (string, float64) {
	curTerms := a.whyTerms(cur)
	if curTerms == nil {
		return "", math.NaN()
	}
	prevTerms := a.whyTerms(prev)
	if prev != nil && prevTerms == nil {
		return "", math.NaN()
	}
	cats := make([]string, 0, len(curTerms)+len(prevTerms))
	for k := range curTerms {
		cats = append(cats, k)
	}
	for k := range prevTerms {
		if _, ok := curTerms[k]; !ok {
			cats = append(cats, k)
		}
	}
	sort.Strings(cats)
	best, bestMs := "", 0.0
	for _, k := range cats {
		d := curTerms[k] - prevTerms[k]
		if math.Abs(d) > math.Abs(bestMs) {
			best, bestMs = k, d
		}
	}
	if best == "" {
		return "", math.NaN()
	}
	return best, bestMs
}

// whyTerms are a variant's "why" differences by category (ms, variant
// minus baseline medians); nil without breakdowns on both sides.
func (a *Analysis) whyTerms(c *Condition) map[string]float64 {
	if c == nil {
		return nil
	}
	base := a.ByHash[c.BaseHash]
	if base == nil || c.CritPath.Loads == 0 || base.CritPath.Loads == 0 {
		return nil
	}
	// The medians' difference, as Why's terms have it; the walk needs no
	// interval of it, so no resampling.
	out := map[string]float64{}
	for k := range c.CritPath.Ms {
		out[k] = 0
	}
	for k := range base.CritPath.Ms {
		out[k] = 0
	}
	for k := range out {
		out[k] = stats.Median(c.CritPath.values(k)) - stats.Median(base.CritPath.values(k))
	}
	return out
}
