package report

import (
	"math"
	"testing"
)

// A rate sweep whose loads all failed (no points, or rates without a
// gain) or that holds a zero
// rate still draws: the axis falls back to linear instead of gonum's
// log-scale panic.
func TestLogAxisWithoutPositivePointsDraws(t *testing.T) {
	for name, series := range map[string][]Series{
		"no points":   {{Name: "spdy/3.1"}},
		"a zero rate": {{Name: "spdy/3.1", X: []float64{0, 2}, Y: []float64{1.1, 1.2}}},
		// Rates stand but no gain: every load of the sweep failed
		// (seen in a fresh-clone CI run beside a burner).
		"rates without a gain": {{Name: "spdy/3.1", X: []float64{1e6, 2e6}, Y: []float64{math.NaN(), math.NaN()}}},
		// One rate of 1 Mbit/s left with a gain: gonum widens the one-value
		// range to [0, 2] (seen in a fresh-clone CI run, study4 over the
		// shared pages).
		"one rate left at 1": {{Name: "spdy/3.1", X: []float64{1, 5, 10}, Y: []float64{1.1, math.NaN(), math.NaN()}}},
	} {
		for _, zeroLine := range []bool{true, false} {
			if _, _, err := linePlot("gain", "rate", "gain", series, true, zeroLine); err != nil {
				t.Errorf("%s, zero line %v: %v", name, zeroLine, err)
			}
		}
	}
}
