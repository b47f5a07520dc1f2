package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// RatioResamples is how many bootstrap resamples MedianRatioCI95 draws.
const RatioResamples = 2000

// MedianRatioCI95 is Median(num)/Median(den) with its 95% percentile
// bootstrap interval: both samples resampled with replacement
// RatioResamples times, the 2.5% and 97.5% quantiles of the resampled
// ratios. Medians of page-load times are skewed and the two samples are
// independent, so no normal approximation applies; the resampling is
// seeded, so a report shows the same interval every time it is built. NaN
// for all three when either sample is empty or den's median is 0.
func MedianRatioCI95(num, den []float64) (ratio, lo, hi float64) {
	nan := math.NaN()
	if len(num) == 0 || len(den) == 0 {
		return nan, nan, nan
	}
	dm := Median(den)
	if dm == 0 {
		return nan, nan, nan
	}
	ratio = Median(num) / dm
	rng := rand.New(rand.NewPCG(uint64(len(num)), uint64(len(den))))
	a, b := make([]float64, len(num)), make([]float64, len(den))
	ratios := make([]float64, 0, RatioResamples)
	for range RatioResamples {
		for i := range a {
			a[i] = num[rng.IntN(len(num))]
		}
		for i := range b {
			b[i] = den[rng.IntN(len(den))]
		}
		if d := Median(b); d != 0 {
			ratios = append(ratios, Median(a)/d)
		}
	}
	slices.Sort(ratios)
	return ratio, QuantileSorted(ratios, 0.025), QuantileSorted(ratios, 0.975)
}
