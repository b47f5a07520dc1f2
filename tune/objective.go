package tune

import (
	"fmt"
	"math"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
)

// Objectives are what the search maximises over the training cells, from
// each cell's gain (baseline PLT median / candidate PLT median):
// worst, the smallest gain; won, the cells whose 95% interval lies above 1
// (ties broken by the mean gain); mean, the mean gain; never-worse, the
// smallest lower bound of the gains' 95% intervals (stats.MedianRatio, as
// the report's), so a candidate whose every cell is surely not lost beats
// one with a better point estimate but a cell that may be.
var Objectives = []string{"worst", "won", "mean", "never-worse"}

// ObjectiveHelp says what each objective maximises, for --objective's help.
const ObjectiveHelp = "worst (smallest gain), won (cells won by their 95% interval), mean (mean gain), never-worse (smallest lower bound of the gains' 95% intervals; needs --min-runs 5 or more)"

// checkObjectiveRuns refuses never-worse with fewer loads per cell than an
// interval needs: every cell would score NaN and no candidate could win.
func checkObjectiveRuns(o string, minRuns int) error {
	if o == "never-worse" && minRuns < stats.MinIntervalN {
		return fmt.Errorf("--objective never-worse needs a 95%% interval on every cell: --min-runs %d, want %d or more", minRuns, stats.MinIntervalN)
	}
	return nil
}

// CheckObjective refuses an objective not in Objectives.
func CheckObjective(o string) error {
	for _, x := range Objectives {
		if x == o {
			return nil
		}
	}
	return fmt.Errorf("--objective %q: want one of %s", o, strings.Join(Objectives, ", "))
}

// Score is objective o over the cells' gains; NaN when a cell has none
// (no successful loads), so such a candidate ranks last.
func Score(o string, gains []stats.RatioCI) float64 {
	if len(gains) == 0 {
		return math.NaN()
	}
	worst, lowest, sum, won := math.Inf(1), math.Inf(1), 0.0, 0
	for _, g := range gains {
		if math.IsNaN(g.Ratio) {
			return math.NaN()
		}
		worst = min(worst, g.Ratio)
		if g.TooFew {
			lowest = math.NaN() // no interval: not shown never worse
		}
		lowest = min(lowest, g.Lo) // NaN stays NaN
		sum += g.Ratio
		if !g.TooFew && g.Above(1) {
			won++
		}
	}
	mean := sum / float64(len(gains))
	switch o {
	case "worst":
		return worst
	case "won":
		return float64(won) + mean/1000
	case "never-worse":
		if math.IsNaN(lowest) {
			return math.NaN() // a cell without an interval: not shown never worse
		}
		return lowest
	}
	return mean
}

// Verdict is a gain's verdict (stats.Verdict, as the report gives it).
func Verdict(g stats.RatioCI) string {
	if v := g.Verdict(); v != stats.NoGain {
		return string(v)
	}
	return "no loads"
}
