package report

// Intervals on gains: each condition's gain (and ToW gain) against its
// baseline twin with a 95% bootstrap interval (internal/stats), the verdict
// the interval gives, and the cells and note that show them. A condition
// won at 1.02 and one won at 1.5 look the same as bare ratios; with their
// intervals the first is often undecided.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spdylab/spdylab/internal/stats"
)

// Significance is a gain's verdict (stats.Verdict, the one rule that tune
// shows too); the names below keep the report's spelling of them.
type Significance = stats.Verdict

const (
	Won         = stats.Won
	Lost        = stats.Lost
	Undecided   = stats.Undecided
	TooFewLoads = stats.TooFewLoads
	NoGain      = stats.NoGain
)

// noRatio is a condition's gains before they are computed, and when they
// are not defined.
var noRatio = stats.RatioCI{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}

// gainIntervals sets every non-baseline condition's intervals from the
// loads of it and of its baseline twin (one load per run, as counted in
// the medians).
func (a *Analysis) gainIntervals(samples map[string]*sample) {
	for _, c := range a.Conds {
		base, v := samples[c.BaseHash], samples[c.Hash]
		if c.BaseHash == "" || base == nil || v == nil {
			continue
		}
		c.GainCI = stats.MedianRatio(base.val, v.val)
		c.ToWGainCI = stats.MedianRatio(base.tow, v.tow)
		c.Significance, c.ToWSignificance = c.GainCI.Verdict(), c.ToWGainCI.Verdict()
	}
}

// GainBounds are a gain's interval as conditions.json and `spdylab load
// --json` give it: null bounds without an interval. The names are stored:
// keep them.
type GainBounds struct {
	GainLo          *float64     `json:"gain_lo"`
	GainHi          *float64     `json:"gain_hi"`
	Significance    Significance `json:"significance,omitempty"`
	ToWGain         *float64     `json:"tow_gain"` // median base ToW / median ToW
	ToWGainLo       *float64     `json:"tow_gain_lo"`
	ToWGainHi       *float64     `json:"tow_gain_hi"`
	ToWReductionLo  *float64     `json:"tow_reduction_lo_pct"`
	ToWReductionHi  *float64     `json:"tow_reduction_hi_pct"`
	ToWSignificance Significance `json:"tow_significance,omitempty"`
}

// gainBounds exports the PLT and ToW gains' intervals.
func gainBounds(plt, tow stats.RatioCI) GainBounds {
	return GainBounds{GainLo: num(plt.Lo), GainHi: num(plt.Hi), Significance: plt.Verdict(),
		ToWGain: num(tow.Ratio), ToWGainLo: num(tow.Lo), ToWGainHi: num(tow.Hi),
		ToWReductionLo: num(towReduction(tow.Lo)), ToWReductionHi: num(towReduction(tow.Hi)), ToWSignificance: tow.Verdict()}
}

// towReduction turns a ToW gain g (median base ToW / median ToW) into the
// reduction in % the report plots: 100 (1 − 1/g). It is increasing in g,
// so the gain's interval maps onto the reduction's.
func towReduction(g float64) float64 { return 100 * (1 - 1/g) }

// ToWRedInterval is the 95% interval of ToWRedPct (NaN without one).
func (c *Condition) ToWRedInterval() (lo, hi float64) {
	return towReduction(c.ToWGainCI.Lo), towReduction(c.ToWGainCI.Hi)
}

// withInterval writes an estimate with its interval, "1.23 [1.10, 1.37]";
// "1.23 (too few loads)" without one; "–" without an estimate. pivot is
// the value a verdict compares the interval with (1 for gains, 0 for
// reductions): see fmtBound.
func withInterval(est, lo, hi float64, tooFew bool, prec int, pivot float64) string {
	switch {
	case math.IsNaN(est):
		return "–"
	case tooFew:
		return fmtNum(est, prec) + " (too few loads)"
	case math.IsNaN(lo) || math.IsNaN(hi):
		return fmtNum(est, prec)
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(est, prec), fmtBound(lo, prec, pivot), fmtBound(hi, prec, pivot))
}

// fmtBound writes an interval's bound with prec decimals, or more when
// with prec it would read as pivot though it is not: a won gain of
// [1.003, 1.2] must not read "[1.00, 1.20]".
func fmtBound(x float64, prec int, pivot float64) string {
	for p := prec; p < prec+3; p++ {
		s := fmtNum(x, p)
		if v, err := strconv.ParseFloat(s, 64); err != nil || v != pivot || x == pivot {
			return s
		}
	}
	return fmtNum(x, prec+3)
}

// significanceClass colours a cell by its verdict: only a gain whose
// interval clears 1 is green or red.
func significanceClass(s Significance) string {
	switch s {
	case Won:
		return "num good"
	case Lost:
		return "num bad"
	}
	return "num"
}

// gainIntervalCell is a condition's gain with its interval.
func gainIntervalCell(c *Condition) cell {
	return cell{Text: withInterval(c.Gain, c.GainCI.Lo, c.GainCI.Hi, c.GainCI.TooFew, 2, 1), Class: significanceClass(c.Significance)}
}

// towRedIntervalCell is a condition's ToW reduction (%) with its interval.
func towRedIntervalCell(c *Condition) cell {
	lo, hi := c.ToWRedInterval()
	return cell{Text: withInterval(c.ToWRedPct, lo, hi, c.ToWGainCI.TooFew, 1, 0), Class: significanceClass(c.ToWSignificance)}
}

// verdictCounts counts conditions by Significance.
type verdictCounts struct{ Won, Lost, Undecided, TooFew int }

func (v *verdictCounts) add(s Significance) {
	switch s {
	case Won:
		v.Won++
	case Lost:
		v.Lost++
	case Undecided:
		v.Undecided++
	case TooFewLoads:
		v.TooFew++
	}
}

func (v verdictCounts) total() int { return v.Won + v.Lost + v.Undecided + v.TooFew }

// countCell is a count of conditions, coloured with class only when not 0.
func countCell(n int, class string) cell {
	if n == 0 {
		class = "num"
	}
	return cell{Text: strconv.Itoa(n), Class: class}
}

// String is "won / lost / undecided / too few", as one table cell.
func (v verdictCounts) String() string {
	return fmt.Sprintf("%d / %d / %d / %d", v.Won, v.Lost, v.Undecided, v.TooFew)
}

// IntervalNote states the method once, above the report's tables (under
// the heading "How to read intervals").
func IntervalNote() string {
	return fmt.Sprintf("A gain in brackets, e.g. 1.23 [1.10, 1.37], is the ratio of the two medians "+
		"(baseline / variant) with its 95%% percentile bootstrap interval: both conditions' loads resampled with replacement "+
		"%d times, the 2.5%% and 97.5%% quantiles of the resampled ratios (seeded from the loads, so the same every build). "+
		"A condition is won when its whole interval lies above 1, lost when below 1, undecided when it contains 1; "+
		"with fewer than %d successful loads on a side there is no interval (too few loads). "+
		"ToW reductions carry the same interval of the ToW ratio, as 100 (1 − 1/gain). In the per-condition tables only won and lost gains are coloured.",
		stats.RatioResamples, stats.MinIntervalN)
}
