package stats

import (
	"math"
	"testing"
)

func TestWithinTarget(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		r    RatioCI
		want bool
	}{
		{RatioCI{Ratio: 1.2, Lo: 1.15, Hi: 1.25}, true}, // ±0.05 of 1.2: 4.2%
		{RatioCI{Ratio: 1.0, Lo: 0.9, Hi: 1.1}, false},  // ±10%
		{RatioCI{Ratio: 2.0, Lo: 1.9, Hi: 2.2}, false},  // half-width 0.15: 7.5% of 2
		{RatioCI{Ratio: 1.2, Lo: nan, Hi: nan, TooFew: true}, false},
		{RatioCI{Ratio: nan, Lo: nan, Hi: nan}, false},
	}
	for _, c := range cases {
		if got := c.r.WithinTarget(0.05); got != c.want {
			t.Errorf("%+v within ±5%%: %v, want %v", c.r, got, c.want)
		}
	}
}
