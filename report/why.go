package report

// Why a variant won or lost: each condition's critical paths
// (probe.Breakdown, one per load) summed up per category, and each
// variant's difference from its baseline twin per category, ranked, with
// a sentence built from the largest terms.

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/critpath"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

// CritPath is a condition's critical paths: per category, one value per
// successful load that has a breakdown (0 where the load spent none).
type CritPath struct {
	Loads int
	Ms    map[string][]float64
}

// add counts one load's breakdown (nothing without one).
func (cp *CritPath) add(b *probe.Breakdown) {
	if b == nil || b.None != "" {
		return
	}
	if cp.Ms == nil {
		cp.Ms = map[string][]float64{}
	}
	for _, c := range probe.Categories {
		if v, ok := b.Ms[c]; ok || cp.Ms[c] != nil {
			if cp.Ms[c] == nil {
				cp.Ms[c] = make([]float64, cp.Loads) // the loads before had none of it
			}
			cp.Ms[c] = append(cp.Ms[c], v)
		}
	}
	cp.Loads++
	for c, vs := range cp.Ms {
		if len(vs) < cp.Loads {
			cp.Ms[c] = append(vs, 0)
		}
	}
}

// Medians are the median over loads of each category the loads spent
// time in (nil without breakdowns).
func (cp *CritPath) Medians() map[string]float64 {
	if cp.Loads == 0 {
		return nil
	}
	out := map[string]float64{}
	for c, vs := range cp.Ms {
		out[c] = stats.Median(vs)
	}
	return out
}

// values are a category's per-load values: zeros when no load spent any.
func (cp *CritPath) values(cat string) []float64 {
	if vs, ok := cp.Ms[cat]; ok {
		return vs
	}
	return make([]float64, cp.Loads)
}

// WhyTerm is one category's difference between a variant and its
// baseline: median over the variant's loads minus median over the
// baseline's (ms), with its 95% bootstrap interval.
type WhyTerm struct {
	Cat string
	stats.DiffCI
}

// WhyCell explains one condition against its baseline twin.
type WhyCell struct {
	Cond, Base *Condition
	Where      string    // the condition's values other than the variant's
	Terms      []WhyTerm // largest difference first
	Sentence   string
}

// Why explains every condition that has a baseline twin and breakdowns on
// both sides, in study order, keeping those whose description matches
// filter (MatchCell).
func Why(a *Analysis, filter string) []WhyCell {
	var out []WhyCell
	for _, c := range a.Conds {
		base := a.ByHash[c.BaseHash]
		if base == nil || c.CritPath.Loads == 0 || base.CritPath.Loads == 0 {
			continue
		}
		where := strings.TrimSpace(describeValues(c, a.Study.Varied))
		if !MatchCell(c, where, filter) {
			continue
		}
		out = append(out, explainCell(c, base, where))
	}
	return out
}

// MatchCell: every comma-separated term of filter is factor=value (the
// condition has that value) or a word its description or variant label
// contains. An empty filter matches every cell.
func MatchCell(c *Condition, where, filter string) bool {
	for _, term := range strings.Split(filter, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		if k, v, ok := strings.Cut(term, "="); ok && c.Values[k] == v {
			continue
		}
		if !strings.Contains(where+" "+c.Label, term) {
			return false
		}
	}
	return true
}

func explainCell(c, base *Condition, where string) WhyCell {
	w := WhyCell{Cond: c, Base: base, Where: where}
	cats := map[string]bool{}
	for k := range c.CritPath.Ms {
		cats[k] = true
	}
	for k := range base.CritPath.Ms {
		cats[k] = true
	}
	for k := range cats {
		w.Terms = append(w.Terms, WhyTerm{Cat: k, DiffCI: stats.MedianDiff(c.CritPath.values(k), base.CritPath.values(k))})
	}
	sort.Slice(w.Terms, func(i, j int) bool {
		di, dj := math.Abs(w.Terms[i].Diff), math.Abs(w.Terms[j].Diff)
		if di != dj {
			return di > dj
		}
		return w.Terms[i].Cat < w.Terms[j].Cat
	})
	w.Sentence = whySentence(c.Label, base.Label, w.Terms, c.Value.Median-base.Value.Median)
	return w
}

// whySentence says what the variant saved and lost against the baseline
// from the two largest savings and losses, leaving out terms whose
// interval says they may be zero and terms under 5% of the metric's
// change (at least 1 ms).
func whySentence(label, baseLabel string, terms []WhyTerm, pltDiff float64) string {
	floor := math.Max(1, 0.05*math.Abs(pltDiff))
	var saved, lost []string
	var unclear *WhyTerm // the largest term whose interval includes zero, when it leads
	for i, t := range terms {
		if math.IsNaN(t.Diff) || math.Abs(t.Diff) < floor {
			continue
		}
		if !t.TooFew && !t.Excludes0() {
			if unclear == nil && len(saved)+len(lost) == 0 {
				unclear = &terms[i]
			}
			continue
		}
		phrase := fmt.Sprintf("%.0f ms", math.Abs(t.Diff))
		if t.Diff < 0 && len(saved) < 2 {
			saved = append(saved, phrase+" of "+probe.CategoryTitle(t.Cat))
		} else if t.Diff > 0 && len(lost) < 2 {
			lost = append(lost, phrase+" to "+probe.CategoryTitle(t.Cat))
		}
	}
	verdict := fmt.Sprintf("%s was %.0f ms faster than %s", label, -pltDiff, baseLabel)
	if pltDiff > 0 {
		verdict = fmt.Sprintf("%s was %.0f ms slower than %s", label, pltDiff, baseLabel)
	}
	var out string
	switch {
	case len(saved) == 0 && len(lost) == 0:
		out = verdict + "; no category of the critical path differs clearly."
	case len(lost) == 0:
		out = fmt.Sprintf("%s saved %s.", label, strings.Join(saved, " and "))
	case len(saved) == 0:
		out = fmt.Sprintf("%s lost %s.", label, strings.Join(lost, " and "))
	default:
		out = fmt.Sprintf("%s saved %s, and lost %s.", label, strings.Join(saved, " and "), strings.Join(lost, " and "))
	}
	if unclear != nil {
		out += fmt.Sprintf(" The largest change, %+.0f ms of %s, varies too much between loads to be sure (its 95%% interval includes zero).", unclear.Diff, probe.CategoryTitle(unclear.Cat))
	}
	return out
}

// WriteWhy prints each cell: the sentence, then the terms as a table;
// metric is the title of what the paths end at (Analysis.MetricTitle).
func WriteWhy(w io.Writer, cells []WhyCell, metric string) {
	if len(cells) == 0 {
		fmt.Fprintln(w, "no condition has a baseline twin with critical paths on both sides")
		return
	}
	for _, c := range cells {
		fmt.Fprintf(w, "%s vs %s  %s  (%s median %.0f vs %.0f ms, %d and %d loads)\n", c.Cond.Label, c.Base.Label, c.Where, metric, c.Cond.Value.Median, c.Base.Value.Median, c.Cond.CritPath.Loads, c.Base.CritPath.Loads)
		fmt.Fprintf(w, "  %s\n", c.Sentence)
		for _, t := range c.Terms {
			if t.Diff == 0 && (t.TooFew || t.Lo == 0 && t.Hi == 0) {
				continue
			}
			iv := "(too few loads for an interval)"
			if !t.TooFew {
				iv = fmt.Sprintf("[%+.0f, %+.0f]", t.Lo, t.Hi)
			}
			fmt.Fprintf(w, "    %-60s %+9.1f ms  %s\n", probe.CategoryTitle(t.Cat), t.Diff, iv)
		}
		fmt.Fprintln(w)
	}
}

// WhyDir opens dir's store and explains its cells (spdylab why) for
// opt.Metric. With opt.Recompute every load's breakdown is computed again with today's rules
// first (Analysis.Recomputed says how many); the store is only read.
func WhyDir(dir, filter string, opt Options) ([]WhyCell, *Analysis, error) {
	if opt.Recompute {
		// A run's loads are still coming in: an explanation of part of
		// them would be taken for the study's.
		if err := store.CheckNotRunning(dir); err != nil {
			return nil, nil, err
		}
	}
	a, err := AnalyzeDirWith(dir, opt)
	if err != nil {
		return nil, nil, err
	}
	return Why(a, filter), a, nil
}

// printCritPath is `spdylab load`'s critical-path line: the categories'
// medians, largest first.
func printCritPath(w io.Writer, medians map[string]float64) {
	if len(medians) == 0 {
		return
	}
	cats := make([]string, 0, len(medians))
	for c, v := range medians {
		if v >= 0.5 {
			cats = append(cats, c)
		}
	}
	sort.Slice(cats, func(i, j int) bool { return medians[cats[i]] > medians[cats[j]] })
	parts := make([]string, len(cats))
	for i, c := range cats {
		parts[i] = fmt.Sprintf("%s %.0f", c, medians[c])
	}
	fmt.Fprintf(w, "  critical path (median ms): %s\n", strings.Join(parts, ", "))
}

// pathOf is a stored probe's critical path: the stored one, or computed
// from its HAR for a load stored before breakdowns (m may be nil: then
// the path is the last exchange alone).
func pathOf(p store.Probe, m *page.Manifest) []probe.PathStep {
	b := p.Result.Breakdown
	if b == nil {
		b = critpath.Analyze(critpath.Input{Result: &p.Result, Manifest: m})
	}
	return b.Path
}
