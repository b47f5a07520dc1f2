package stats

import "math"

// CondSample is one load's value (a PLT) in its condition.
type CondSample struct {
	Cond  string
	Value float64
}

// LateShift is how far the values of some loads (late-emulator loads)
// lie from those of the other loads of the same condition (on-time
// loads): the median, over the late loads whose condition has at least
// two on-time loads, of log(late value / median on-time value), as a
// shift in % (NaN without such a pair), and how many pairs it rests on.
// The reference is the on-time loads, not all loads: where most loads of
// a condition are late, its overall median is a late load's and would
// hide any shift.
func LateShift(late []CondSample, onTime map[string][]float64) (pct float64, pairs int) {
	medians := map[string]float64{}
	var logs []float64
	for _, l := range late {
		m, ok := medians[l.Cond]
		if !ok {
			if on := onTime[l.Cond]; len(on) >= 2 {
				m = Median(on)
			}
			medians[l.Cond] = m
		}
		if m > 0 && l.Value > 0 {
			logs = append(logs, math.Log(l.Value/m))
		}
	}
	if len(logs) == 0 {
		return math.NaN(), 0
	}
	return 100 * (math.Exp(Median(logs)) - 1), len(logs)
}
