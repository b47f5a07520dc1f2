package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DiffCI is a difference of two medians with its 95% percentile
// bootstrap interval.
type DiffCI struct {
	Diff   float64 // Median(a) - Median(b); NaN when either sample is empty
	Lo, Hi float64 // the 95% interval; NaN when not defined or TooFew
	// TooFew: a sample has fewer than MinIntervalN values, so there is a
	// difference but no interval.
	TooFew bool
}

// Excludes0 is whether the whole interval lies on one side of zero.
func (d DiffCI) Excludes0() bool { return d.Lo > 0 || d.Hi < 0 }

// MedianDiff is Median(a) - Median(b) with its 95% interval when both
// samples have at least MinIntervalN values: both resampled with
// replacement RatioResamples times, the 2.5% and 97.5% quantiles of the
// resampled differences, seeded from the values as MedianRatioCI95 is (the
// same samples always give the same interval).
func MedianDiff(a, b []float64) DiffCI {
	nan := math.NaN()
	if len(a) == 0 || len(b) == 0 {
		return DiffCI{Diff: nan, Lo: nan, Hi: nan}
	}
	sa, sb := sortedCopy(a), sortedCopy(b)
	d := DiffCI{Diff: QuantileSorted(sa, 0.5) - QuantileSorted(sb, 0.5), Lo: nan, Hi: nan}
	if len(a) < MinIntervalN || len(b) < MinIntervalN {
		d.TooFew = true
		return d
	}
	rng := rand.NewPCG(seedOf(sa, sb), uint64(len(sa))<<32|uint64(len(sb))^0xd1ff)
	ca, cb := make([]int, len(sa)), make([]int, len(sb))
	diffs := make([]float64, RatioResamples)
	for i := range diffs {
		diffs[i] = resampledMedian(rng, sa, ca) - resampledMedian(rng, sb, cb)
	}
	slices.Sort(diffs)
	d.Lo, d.Hi = QuantileSorted(diffs, 0.025), QuantileSorted(diffs, 0.975)
	return d
}
