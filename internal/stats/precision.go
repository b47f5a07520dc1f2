package stats

import "math"

// WithinTarget tells whether r's 95% interval is as narrow as asked: its
// half-width at most target × the ratio (target 0.05 = "±5% of the
// gain"). False without an interval (too few values, or no ratio). The
// runner's `--runs auto` stops adding loads by it and the report counts
// the cells that reached it with it, so both judge a cell alike.
func (r RatioCI) WithinTarget(target float64) bool {
	if r.TooFew || math.IsNaN(r.Ratio) || math.IsNaN(r.Lo) || math.IsNaN(r.Hi) || r.Ratio <= 0 {
		return false
	}
	return (r.Hi-r.Lo)/2 <= target*r.Ratio
}
