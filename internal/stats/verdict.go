package stats

import "math"

// Verdict is what a gain's interval says about a variant against its
// baseline. The report stores the values in conditions.csv and .json and
// tune shows them: keep them.
type Verdict string

const (
	Won       Verdict = "won"       // the whole interval above 1: faster beyond the noise
	Lost      Verdict = "lost"      // the whole interval below 1: slower beyond the noise
	Undecided Verdict = "undecided" // the interval contains 1
	// TooFewLoads: a gain, but a side has fewer than MinIntervalN
	// successful loads, too few for an interval.
	TooFewLoads Verdict = "too_few"
	// NoGain (""): baseline conditions and conditions without loads.
	NoGain Verdict = ""
)

// Verdict is the verdict a gain's interval gives.
func (r RatioCI) Verdict() Verdict {
	switch {
	case math.IsNaN(r.Ratio):
		return NoGain
	case r.TooFew:
		return TooFewLoads
	case r.Above(1):
		return Won
	case r.Below(1):
		return Lost
	}
	return Undecided
}
