package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Pair is one cell's two samples for a ratio of medians: Median(Num) /
// Median(Den) (a gain: the baseline's PLTs over the variant's).
type Pair struct{ Num, Den []float64 }

// GeoMeanRatio is the geometric mean over cells of each cell's ratio of
// medians, with its 95% percentile bootstrap interval: every sample of
// every cell is resampled on its own (the cells are strata: a result
// over many cells must not let one cell's loads stand in for another's),
// RatioResamples times. It is what a finding of many cells answers with:
// one number and how far its loads' noise can move it. TooFew (ratio, no
// interval) when a cell has fewer than MinIntervalN values on a side;
// NaN without cells or with a median of 0.
func GeoMeanRatio(cells []Pair) RatioCI {
	nan := math.NaN()
	out := RatioCI{Ratio: nan, Lo: nan, Hi: nan}
	if len(cells) == 0 {
		return out
	}
	sorted := make([]Pair, len(cells))
	logSum := 0.0
	for i, c := range cells {
		if len(c.Num) == 0 || len(c.Den) == 0 {
			return out
		}
		a, b := sortedCopy(c.Num), sortedCopy(c.Den)
		r := QuantileSorted(a, 0.5) / QuantileSorted(b, 0.5)
		if !(r > 0) || math.IsInf(r, 0) {
			return out
		}
		logSum += math.Log(r)
		sorted[i] = Pair{a, b}
		if len(a) < MinIntervalN || len(b) < MinIntervalN {
			out.TooFew = true
		}
	}
	out.Ratio = math.Exp(logSum / float64(len(cells)))
	if out.TooFew {
		return out
	}
	seed := uint64(len(cells))
	for _, c := range sorted {
		seed = seed*31 + seedOf(c.Num, c.Den)
	}
	rng := rand.NewPCG(seed, uint64(len(cells)))
	scratch := make([][2][]int, len(sorted))
	for i, c := range sorted {
		scratch[i] = [2][]int{make([]int, len(c.Num)), make([]int, len(c.Den))}
	}
	means := make([]float64, 0, RatioResamples)
	for range RatioResamples {
		sum, ok := 0.0, true
		for i, c := range sorted {
			d := resampledMedian(rng, c.Den, scratch[i][1])
			n := resampledMedian(rng, c.Num, scratch[i][0])
			if !(d > 0) || !(n > 0) {
				ok = false
				break
			}
			sum += math.Log(n / d)
		}
		if ok {
			means = append(means, math.Exp(sum/float64(len(sorted))))
		}
	}
	slices.Sort(means)
	out.Lo, out.Hi = QuantileSorted(means, 0.025), QuantileSorted(means, 0.975)
	return out
}
