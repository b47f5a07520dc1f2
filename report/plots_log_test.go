package report

import "testing"

// A rate sweep whose loads all failed (no points) or that holds a zero
// rate still draws: the axis falls back to linear instead of gonum's
// log-scale panic.
func TestLogAxisWithoutPositivePointsDraws(t *testing.T) {
	for name, series := range map[string][]Series{
		"no points":   {{Name: "spdy/3.1"}},
		"a zero rate": {{Name: "spdy/3.1", X: []float64{0, 2}, Y: []float64{1.1, 1.2}}},
	} {
		if _, _, err := linePlot("gain", "rate", "gain", series, true, true); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
