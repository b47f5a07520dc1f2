package stats

import (
	"math"
	"testing"
)

func TestLateShiftAgainstOnTimeLoads(t *testing.T) {
	onTime := map[string][]float64{"a": {100, 100, 100}, "b": {200, 200}, "c": {50}}
	late := []CondSample{{"a", 110}, {"a", 110}, {"b", 220}, {"c", 500}, {"d", 1}}
	pct, pairs := LateShift(late, onTime)
	if pairs != 3 || math.Abs(pct-10) > 1e-9 {
		t.Errorf("shift %.3f%% over %d pairs, want +10%% over 3 (c has one on-time load, d none)", pct, pairs)
	}
	// Most loads of "a" late: against all loads the median is a late
	// one's and the shift would read 0; against on-time loads it is +10%.
	if pct, _ := LateShift([]CondSample{{"a", 110}, {"a", 110}, {"a", 110}, {"a", 110}}, onTime); math.Abs(pct-10) > 1e-9 {
		t.Errorf("shift %.3f%%, want +10%%", pct)
	}
	if pct, pairs := LateShift(late[3:], onTime); pairs != 0 || !math.IsNaN(pct) {
		t.Errorf("no pairs: %v, %d; want NaN, 0", pct, pairs)
	}
}
