package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/report"
)

// contrastLines answer a disagreement over one factor of two values (the
// header's "# contrast: hosts"): how a variant's gain changes from the
// factor's first value to its second, as the ratio of the two settings'
// geometric mean gains over cells that differ in nothing else, with its
// stratified bootstrap interval (stats.GeoMeanContrast); one line per
// value of the other "by" factors.
func contrastLines(a *report.Analysis, f *File, name string, cells []*report.Condition, plts map[string][]float64) []string {
	var out []string
	for _, cf := range f.Contrast {
		v1, v2, ok := twoValues(cells, cf)
		if !ok {
			out = append(out, fmt.Sprintf("%s: contrast %s needs exactly two values of it among the variant's cells", name, cf))
			continue
		}
		var other []string
		for _, b := range f.By {
			if b != cf {
				other = append(other, b)
			}
		}
		firsts := map[string]*report.Condition{}
		for _, c := range cells {
			if c.Values[cf] == v1 {
				firsts[keyWithout(c, cf)] = c
			}
		}
		// at/from: the gains at each setting; base/variant: each side's
		// metric (PLT by default) at the second setting over its PLT at the first, so a gain
		// that moves is told apart from a side that moves.
		type group struct{ at, from, base, variant []stats.Pair }
		groups := map[string]*group{}
		var order []string
		for _, c := range cells {
			base := firsts[keyWithout(c, cf)]
			if c.Values[cf] != v2 || base == nil {
				continue
			}
			g := groupName(other, c)
			if groups[g] == nil {
				groups[g] = &group{}
				order = append(order, g)
			}
			groups[g].at = append(groups[g].at, stats.Pair{Num: plts[c.BaseHash], Den: plts[c.Hash]})
			groups[g].from = append(groups[g].from, stats.Pair{Num: plts[base.BaseHash], Den: plts[base.Hash]})
			groups[g].base = append(groups[g].base, stats.Pair{Num: plts[c.BaseHash], Den: plts[base.BaseHash]})
			groups[g].variant = append(groups[g].variant, stats.Pair{Num: plts[c.Hash], Den: plts[base.Hash]})
		}
		for _, g := range order {
			gr := groups[g]
			r := stats.GeoMeanContrast(gr.at, gr.from)
			out = append(out, fmt.Sprintf("%s%s: gain at %s=%s / gain at %s=%s = %s over %d cells (%s); %s at %s / at %s: %s %s, %s %s",
				name, g, cf, v2, cf, v1, ratioText(r), len(gr.at), contrastVerdict(r),
				a.Metric.Title, v2, v1, a.BaseLabel, ratioText(stats.GeoMeanRatio(gr.base)), name, ratioText(stats.GeoMeanRatio(gr.variant))))
		}
	}
	return out
}

// twoValues are the factor's two values in the order they first appear.
func twoValues(cells []*report.Condition, f string) (string, string, bool) {
	var vals []string
	for _, c := range cells {
		if v := c.Values[f]; !contains(vals, v) {
			vals = append(vals, v)
		}
	}
	if len(vals) != 2 {
		return "", "", false
	}
	return vals[0], vals[1], true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// keyWithout is a cell's values but one factor's: what a cell of the
// other setting must share to be its twin.
func keyWithout(c *report.Condition, f string) string {
	keys := make([]string, 0, len(c.Values))
	for k := range c.Values {
		if k != f {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + c.Values[k] + "\x00")
	}
	return b.String()
}

func ratioText(r stats.RatioCI) string {
	if r.TooFew {
		return fmt.Sprintf("%.2f (too few loads for an interval)", r.Ratio)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", r.Ratio, r.Lo, r.Hi)
}

func contrastVerdict(r stats.RatioCI) string {
	switch {
	case r.TooFew:
		return "undecided: too few loads"
	case r.Above(1):
		return "larger beyond the noise"
	case r.Below(1):
		return "smaller beyond the noise"
	}
	return "no change shown: the interval holds 1"
}

// trendLines answer how a variant's gain moves along a factor (the
// header's "# trend: rate"): one line per variant with each value's
// geometric mean gain over the cells at that value and its interval.
func trendLines(a *report.Analysis, f *File, name string, cells []*report.Condition, plts map[string][]float64) []string {
	var out []string
	for _, tf := range f.Trend {
		var vals []string
		at := map[string][]stats.Pair{}
		for _, c := range cells {
			v := c.Values[tf]
			if at[v] == nil {
				vals = append(vals, v)
			}
			at[v] = append(at[v], stats.Pair{Num: plts[c.BaseHash], Den: plts[c.Hash]})
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprintf("%s %s", v, ratioText(stats.GeoMeanRatio(at[v])))
		}
		out = append(out, fmt.Sprintf("%s vs %s by %s (geometric mean gain over the %d cells at each): %s",
			name, a.BaseLabel, tf, len(at[vals[0]]), strings.Join(parts, "; ")))
	}
	return out
}
