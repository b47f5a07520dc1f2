package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
)

// How the critical path moves along a sweep: for each swept factor and
// variant (at most whySweepVariants), the categories' differences from
// the baseline twin (median over loads, variant minus baseline, with
// their 95% intervals) at each value of the factor, on the factor's first
// sweep. Only the whySweepLines categories that move most are drawn.
const (
	whySweepVariants = 3
	whySweepLines    = 5
)

func whySweepFigures(a *Analysis) ([]figure, error) {
	var figs []figure
	for _, f := range a.Study.Varied {
		if _, ok := axisName[f]; !ok {
			continue
		}
		if _, isBase := a.Study.Baseline[f]; isBase {
			continue
		}
		sweeps := plottableSweeps(a, f)
		if len(sweeps) == 0 {
			continue
		}
		xName, logX := sweepAxis(a, f)
		drawn := 0
		for _, label := range a.Labels {
			if label == a.BaseLabel || drawn == whySweepVariants {
				continue
			}
			series := categorySweep(a, f, sweeps[0].conds, label)
			if len(series) == 0 {
				continue
			}
			svg, leg, err := linePlot(fmt.Sprintf("Critical path vs %s: %s minus %s", f, label, a.BaseLabel), xName, "ms on the critical path (variant - baseline)", series, logX, true)
			if err != nil {
				return nil, err
			}
			figs = append(figs, figure{Title: fmt.Sprintf("Why along %s: %s", f, label),
				Caption: fmt.Sprintf("The categories of the critical path that move most along %s (one sweep, %s): median over %s's loads minus the baseline's, with 95%% bootstrap intervals. Below zero %s spends less there.", f, heldText(sweeps[0].Held), label, label),
				SVG:     template.HTML(svg), Legend: leg})
			drawn++
		}
	}
	return figs, nil
}

// categorySweep is one line per category for the variant's conditions of
// the sweep: its difference from the baseline twin at each value of f.
func categorySweep(a *Analysis, f string, conds []*Condition, label string) []Series {
	type point struct{ x, diff, lo, hi float64 }
	lines := map[string][]point{}
	seenX := map[float64]bool{}
	for _, c := range conds {
		base := a.ByHash[c.BaseHash]
		x, ok := numericX(f, c.Values[f])
		if c.Label != label || base == nil || !ok || seenX[x] || c.CritPath.Loads == 0 || base.CritPath.Loads == 0 {
			continue
		}
		seenX[x] = true
		for cat := range unionKeys(c.CritPath.Ms, base.CritPath.Ms) {
			d := stats.MedianDiff(c.CritPath.values(cat), base.CritPath.values(cat))
			lines[cat] = append(lines[cat], point{x, d.Diff, d.Lo, d.Hi})
		}
	}
	if len(seenX) < 2 {
		return nil
	}
	moves := func(ps []point) float64 {
		m := 0.0
		for _, p := range ps {
			m = math.Max(m, math.Abs(p.diff))
		}
		return m
	}
	cats := make([]string, 0, len(lines))
	for cat := range lines {
		cats = append(cats, cat)
	}
	sort.Slice(cats, func(i, j int) bool { return moves(lines[cats[i]]) > moves(lines[cats[j]]) })
	var out []Series
	for _, cat := range cats[:min(len(cats), whySweepLines)] {
		ps := lines[cat]
		sort.Slice(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
		s := Series{Name: cat}
		for _, p := range ps {
			s.X, s.Y, s.Lo, s.Hi = append(s.X, p.x), append(s.Y, p.diff), append(s.Lo, p.lo), append(s.Hi, p.hi)
		}
		out = append(out, s)
	}
	return out
}

// heldText lists a sweep's held values ("none" when nothing is held).
func heldText(held map[string]string) string {
	keys := make([]string, 0, len(held))
	for k := range held {
		keys = append(keys, k+"="+held[k])
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "nothing else held"
	}
	return strings.Join(keys, " ")
}

func unionKeys(a, b map[string][]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
