package stats

import (
	"math"
	"testing"
)

func TestVerdict(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		r    RatioCI
		want Verdict
	}{
		{RatioCI{Ratio: nan, Lo: nan, Hi: nan}, NoGain},
		{RatioCI{Ratio: 1.4, Lo: nan, Hi: nan, TooFew: true}, TooFewLoads},
		{RatioCI{Ratio: 1.2, Lo: 1.05, Hi: 1.3}, Won},
		{RatioCI{Ratio: 0.8, Lo: 0.7, Hi: 0.95}, Lost},
		{RatioCI{Ratio: 1.02, Lo: 0.97, Hi: 1.08}, Undecided},
		{RatioCI{Ratio: 1, Lo: 1, Hi: 1.1}, Undecided}, // an interval touching 1 decides nothing
	} {
		if got := c.r.Verdict(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
