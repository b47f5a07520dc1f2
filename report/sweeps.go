package report

// Sweep charts: which conditions a sweep figure plots. A line joins only
// the conditions of one sweep (spec.Sweeps: every factor but the swept
// one, the page and the variants' held), so a figure never mixes the
// points of unrelated parts of a study, such as study4-google's RTT sweep
// and initcwnd matrix into its rate sweep.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
)

// maxLinesPerVariant is how many lines per variant a sweep chart draws
// before its sweeps are split over several charts (one sweep is never
// split: its lines are its pages).
const maxLinesPerVariant = 8

// maxSplitCharts is how many charts a factor's sweeps may be split over.
// Beyond that (a full cross of many factors), sweeps that cover exactly the
// same pages, variants and values are drawn as one chart of their means,
// whose caption lists them.
const maxSplitCharts = 4

// sweepChart is the data of one sweep figure pair: its lines, and what
// its titles and caption add to "vs FACTOR".
type sweepChart struct {
	title    string // appended to the figure titles
	caption  string // what the chart holds fixed or averages; "" = nothing to say
	red, plt []Series
}

// sweep is the lines of one chart: per line, per x, sums of y.
type sweep map[string]map[float64]*sweepPoint

// sweepPoint sums y over the conditions at one point; lo and hi are the
// interval of the first (a mean of several has none of its own).
type sweepPoint struct{ sum, n, lo, hi float64 }

// add adds a condition's y, with its 95% interval [lo, hi] (NaN: none).
func (m sweep) add(k string, x, y, lo, hi float64) {
	if math.IsNaN(y) {
		return
	}
	if m[k] == nil {
		m[k] = map[float64]*sweepPoint{}
	}
	if m[k][x] == nil {
		m[k][x] = &sweepPoint{lo: lo, hi: hi}
	}
	m[k][x].sum += y
	m[k][x].n++
}

// series is the sweep's lines, by name, with the mean y at each x.
func (m sweep) series() []Series {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Series
	for _, k := range names {
		s := Series{Name: k}
		for x, p := range m[k] {
			s.X = append(s.X, x)
			s.Y = append(s.Y, p.sum/p.n)
			lo, hi := p.lo, p.hi
			if p.n > 1 {
				lo, hi = math.NaN(), math.NaN()
			}
			s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
		}
		out = append(out, s)
	}
	return out
}

// sweepOn is one sweep of a chart's factor with its conditions that have
// a plottable value of the factor.
type sweepOn struct {
	spec.Sweep
	conds []*Condition
	pages int // distinct pages: its lines per variant
}

// sweepCharts computes factor f's charts: its sweeps together while they
// fit maxLinesPerVariant, else split, else (a balanced cross too large to
// split) averaged with a caption naming every sweep in the mean.
func sweepCharts(a *Analysis, f string) []sweepChart {
	sweeps := plottableSweeps(a, f)
	if len(sweeps) == 0 {
		return nil
	}
	groups := chunkSweeps(sweeps)
	if len(groups) > maxSplitCharts && sameCoverage(f, sweeps) {
		return []sweepChart{meanChart(a, f, sweeps)}
	}
	charts := make([]sweepChart, 0, len(groups))
	for _, g := range groups {
		charts = append(charts, sweepsChart(a, f, g))
	}
	return charts
}

// plottableSweeps are f's sweeps with their conditions, keeping those with
// two plottable values of f or more.
func plottableSweeps(a *Analysis, f string) []sweepOn {
	var out []sweepOn
	for _, sw := range spec.Sweeps(a.Study, f) {
		on := sweepOn{Sweep: sw}
		xs, pages := map[float64]bool{}, map[string]bool{}
		for _, c := range a.Conds {
			x, ok := numericX(f, c.Values[f])
			if ok && sw.Has(c.Cond) {
				on.conds = append(on.conds, c)
				xs[x], pages[c.Values["page"]] = true, true
			}
		}
		if len(xs) > 1 {
			on.pages = len(pages)
			out = append(out, on)
		}
	}
	return out
}

// chunkSweeps groups sweeps, in order, into charts of at most
// maxLinesPerVariant lines per variant (a sweep alone may have more).
func chunkSweeps(sweeps []sweepOn) [][]sweepOn {
	var groups [][]sweepOn
	lines := 0
	for _, sw := range sweeps {
		if len(groups) == 0 || lines+sw.pages > maxLinesPerVariant {
			groups = append(groups, nil)
			lines = 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], sw)
		lines += sw.pages
	}
	return groups
}

// sweepsChart draws the given sweeps of f as they are: with several
// sweeps, each line's name ends with the held values telling its sweep.
func sweepsChart(a *Analysis, f string, sweeps []sweepOn) sweepChart {
	common, differing := heldShown(a, f, sweeps)
	red, plt := sweep{}, sweep{}
	for _, sw := range sweeps {
		suffix := ""
		for _, k := range differing {
			suffix += " " + k + "=" + sw.Held[k]
		}
		for _, c := range sw.conds {
			x, _ := numericX(f, c.Values[f])
			if !c.IsBaseline {
				lo, hi := c.ToWRedInterval()
				red.add(sweepLineName(a, c, len(a.variants()) > 1)+suffix, x, c.ToWRedPct, lo, hi)
			}
			plt.add(sweepLineName(a, c, true)+suffix, x, c.PLT.Median, math.NaN(), math.NaN())
		}
	}
	ch := sweepChart{red: red.series(), plt: plt.series()}
	if len(common) > 0 {
		ch.title = " at " + strings.Join(common, ", ")
		ch.caption = "The " + f + " sweep at " + strings.Join(common, ", ") + ": only conditions with these values."
	}
	if len(differing) > 0 {
		ch.caption = joinCaption(ch.caption, "One line per page, variant and sweep; each sweep holds the "+
			strings.Join(differing, ", ")+" its line names.")
	}
	return ch
}

// sweepLineName is a condition's line: its page, and its variant when the
// chart compares several.
func sweepLineName(a *Analysis, c *Condition, withVariant bool) string {
	k := page.DisplayName(c.Values["page"]) // legends: short names of recorded pages
	if withVariant {
		k += " " + c.Label
	}
	return k
}

// heldShown splits the factors the study varies that the sweeps hold (the
// ones worth naming) into those at one value in every sweep given, as
// "factor=value", and those that tell the sweeps apart, as factor names.
func heldShown(a *Analysis, f string, sweeps []sweepOn) (common, differing []string) {
	for _, k := range a.Study.Varied {
		if _, held := sweeps[0].Held[k]; !held || k == f {
			continue
		}
		values := map[string]bool{}
		for _, sw := range sweeps {
			values[sw.Held[k]] = true
		}
		if len(values) == 1 {
			common = append(common, k+"="+sweeps[0].Held[k])
		} else {
			differing = append(differing, k)
		}
	}
	return common, differing
}

// sameCoverage reports whether every sweep has a condition at exactly the
// same pages, variants and values of f, so that a mean over the sweeps at
// each point averages one condition of each.
func sameCoverage(f string, sweeps []sweepOn) bool {
	coverage := func(sw sweepOn) string {
		var keys []string
		for _, c := range sw.conds {
			keys = append(keys, c.Values["page"]+"\x00"+c.Label+"\x00"+c.Values[f])
		}
		sort.Strings(keys)
		return strings.Join(keys, "\x01")
	}
	first := coverage(sweeps[0])
	for _, sw := range sweeps[1:] {
		if coverage(sw) != first {
			return false
		}
	}
	return true
}

// meanChart draws, per page and variant, the mean over all of f's sweeps
// (sameCoverage holds), and says in its caption which sweeps those are.
func meanChart(a *Analysis, f string, sweeps []sweepOn) sweepChart {
	red, plt := sweep{}, sweep{}
	for _, sw := range sweeps {
		for _, c := range sw.conds {
			x, _ := numericX(f, c.Values[f])
			if !c.IsBaseline {
				lo, hi := c.ToWRedInterval()
				red.add(sweepLineName(a, c, len(a.variants()) > 1), x, c.ToWRedPct, lo, hi)
			}
			plt.add(sweepLineName(a, c, true), x, c.PLT.Median, math.NaN(), math.NaN())
		}
	}
	common, differing := heldShown(a, f, sweeps)
	ch := sweepChart{red: red.series(), plt: plt.series(),
		title: fmt.Sprintf(" (mean of %d sweeps)", len(sweeps))}
	ch.caption = fmt.Sprintf("Too many sweeps to draw apart: each point is the mean of the %d sweeps' medians at that value of %s, one sweep at each %s.",
		len(sweeps), f, sweepsListed(differing, sweeps))
	if len(common) > 0 {
		ch.caption += " All at " + strings.Join(common, ", ") + "."
	}
	return ch
}

// sweepsListed names the sweeps by the held factors that tell them apart:
// "combination of rtt 20ms|100ms × loss 0%|1%" when they are every
// combination, else each sweep's values.
func sweepsListed(differing []string, sweeps []sweepOn) string {
	combos := 1
	var axes []string
	for _, k := range differing {
		var vals []string
		seen := map[string]bool{}
		for _, sw := range sweeps {
			if v := sw.Held[k]; !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		combos *= len(vals)
		axes = append(axes, k+" "+strings.Join(vals, "|"))
	}
	if combos == len(sweeps) {
		return "combination of " + strings.Join(axes, " × ")
	}
	var each []string
	for _, sw := range sweeps {
		var kv []string
		for _, k := range differing {
			kv = append(kv, k+"="+sw.Held[k])
		}
		each = append(each, strings.Join(kv, " "))
	}
	return "of: " + strings.Join(each, "; ")
}
