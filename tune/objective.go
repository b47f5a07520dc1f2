package tune

import (
	"fmt"
	"math"

	"github.com/spdylab/spdylab/internal/stats"
)

// Objectives are what the search maximises over the training cells, from
// each cell's gain (baseline PLT median / candidate PLT median):
// worst, the smallest gain; won, the cells whose 95% interval lies above 1
// (ties broken by the mean gain); mean, the mean gain.
var Objectives = []string{"worst", "won", "mean"}

// CheckObjective refuses an objective not in Objectives.
func CheckObjective(o string) error {
	for _, x := range Objectives {
		if x == o {
			return nil
		}
	}
	return fmt.Errorf("--objective %q: want worst, won or mean", o)
}

// Score is objective o over the cells' gains; NaN when a cell has none
// (no successful loads), so such a candidate ranks last.
func Score(o string, gains []stats.RatioCI) float64 {
	if len(gains) == 0 {
		return math.NaN()
	}
	worst, sum, won := math.Inf(1), 0.0, 0
	for _, g := range gains {
		if math.IsNaN(g.Ratio) {
			return math.NaN()
		}
		worst = min(worst, g.Ratio)
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
