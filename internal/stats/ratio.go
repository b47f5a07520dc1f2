package stats

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// RatioResamples is how many bootstrap resamples a ratio's interval draws:
// enough that the 2.5% and 97.5% quantiles move by well under a percent
// from one seed to another, few enough that a 432-condition report
// computes its intervals in a fraction of a second.
const RatioResamples = 2000

// MinIntervalN is the fewest values each sample needs for MedianRatio to
// give an interval. Below it a resampled median takes only a handful of
// values (with 3 loads, one of 3 numbers), the percentile interval spans
// little more than the extremes, and its 95% would be a false promise.
const MinIntervalN = 5

// RatioCI is a ratio of two medians with its 95% percentile bootstrap
// interval.
type RatioCI struct {
	Ratio  float64 // Median(num) / Median(den); NaN when not defined
	Lo, Hi float64 // the 95% interval; NaN when not defined or TooFew
	// TooFew: a sample has fewer than MinIntervalN values, so there is a
	// ratio but no interval.
	TooFew bool
}

// Above is whether the whole interval lies above x (a gain won beyond
// doubt when x is 1).
func (r RatioCI) Above(x float64) bool { return r.Lo > x }

// Below is whether the whole interval lies below x.
func (r RatioCI) Below(x float64) bool { return r.Hi < x }

// MedianRatio is Median(num)/Median(den) with its 95% interval when both
// samples have at least MinIntervalN values (see MedianRatioCI95).
func MedianRatio(num, den []float64) RatioCI {
	nan := math.NaN()
	if len(num) < MinIntervalN || len(den) < MinIntervalN {
		r := RatioCI{Ratio: nan, Lo: nan, Hi: nan, TooFew: true}
		if d := Median(den); len(num) > 0 && d != 0 {
			r.Ratio = Median(num) / d
		}
		r.TooFew = !math.IsNaN(r.Ratio)
		return r
	}
	ratio, lo, hi := MedianRatioCI95(num, den)
	return RatioCI{Ratio: ratio, Lo: lo, Hi: hi}
}

// MedianRatioCI95 is Median(num)/Median(den) with its 95% percentile
// bootstrap interval: both samples resampled with replacement
// RatioResamples times, the 2.5% and 97.5% quantiles of the resampled
// ratios. Medians of page-load times are skewed and the two samples are
// independent, so no normal approximation applies. The resampling is
// seeded from the values themselves (not their order), so a report shows
// the same interval every time it is built, and two cells do not share
// their random draws. NaN for all three when either sample is empty or
// den's median is 0.
func MedianRatioCI95(num, den []float64) (ratio, lo, hi float64) {
	nan := math.NaN()
	if len(num) == 0 || len(den) == 0 {
		return nan, nan, nan
	}
	a, b := sortedCopy(num), sortedCopy(den)
	dm := QuantileSorted(b, 0.5)
	if dm == 0 {
		return nan, nan, nan
	}
	ratio = QuantileSorted(a, 0.5) / dm
	rng := rand.NewPCG(seedOf(a, b), uint64(len(a))<<32|uint64(len(b)))
	ca, cb := make([]int, len(a)), make([]int, len(b))
	ratios := make([]float64, 0, RatioResamples)
	for range RatioResamples {
		if d := resampledMedian(rng, b, cb); d != 0 {
			ratios = append(ratios, resampledMedian(rng, a, ca)/d)
		}
	}
	slices.Sort(ratios)
	return ratio, QuantileSorted(ratios, 0.025), QuantileSorted(ratios, 0.975)
}

// seedOf hashes two sorted samples into a seed.
func seedOf(a, b []float64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(x float64) {
		u := math.Float64bits(x)
		for i := range buf {
			buf[i] = byte(u >> (8 * i))
		}
		h.Write(buf[:])
	}
	for _, x := range a {
		put(x)
	}
	put(math.NaN()) // a separator: {1,2},{3} and {1},{2,3} seed differently
	for _, x := range b {
		put(x)
	}
	return h.Sum64()
}

// resampledMedian draws len(sorted) values of sorted with replacement and
// returns their type-7 median. It counts how often each value is drawn
// instead of sorting the draws: the sample is sorted already, so walking
// the counts finds the middle order statistics in linear time. counts is
// scratch space of len(sorted).
func resampledMedian(rng *rand.PCG, sorted []float64, counts []int) float64 {
	n := len(sorted)
	clear(counts)
	// Each 64 random bits give two draws, each an index by Lemire's
	// multiply-shift: biased by at most n/2^32, nothing next to the
	// bootstrap's own error, and twice as fast as one IntN per draw.
	for i := 0; i < n; i += 2 {
		r := rng.Uint64()
		counts[(r&0xffffffff)*uint64(n)>>32]++
		if i+1 < n {
			counts[(r>>32)*uint64(n)>>32]++
		}
	}
	// Type 7: the mean of ranks (n-1)/2 and n/2 (the same rank when n is odd).
	loRank, hiRank := (n-1)/2, n/2
	var loVal float64
	seen := 0
	for i, k := range counts {
		seen += k
		if seen > loRank && loRank >= 0 {
			loVal, loRank = sorted[i], -1
		}
		if seen > hiRank {
			return (loVal + sorted[i]) / 2
		}
	}
	return loVal // not reached: the counts add up to n
}
