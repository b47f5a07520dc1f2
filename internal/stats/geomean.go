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
func GeoMeanRatio(cells []Pair) RatioCI { return GeoMeanContrast(cells, nil) }

// GeoMeanContrast is GeoMeanRatio(a) / GeoMeanRatio(b) with its 95%
// interval from the same stratified bootstrap over the cells of both: how
// a gain changes between two settings of a factor (hosts one against
// recorded, the 2012 stack against today's), each setting's cells
// resampled independently. With b empty it is GeoMeanRatio(a).
func GeoMeanContrast(a, b []Pair) RatioCI {
	nan := math.NaN()
	out := RatioCI{Ratio: nan, Lo: nan, Hi: nan}
	sa, la, fewA, okA := sortCells(a)
	sb, lb, fewB, okB := sortCells(b)
	if !okA || !okB || len(a) == 0 {
		return out
	}
	out.Ratio = math.Exp(la - lb)
	if out.TooFew = fewA || fewB; out.TooFew {
		return out
	}
	seed := uint64(len(a))<<32 | uint64(len(b))
	for _, c := range append(append([]Pair(nil), sa...), sb...) {
		seed = seed*31 + seedOf(c.Num, c.Den)
	}
	rng := rand.NewPCG(seed, uint64(len(a)+len(b)))
	ra, rb := newResampler(sa), newResampler(sb)
	vals := make([]float64, 0, RatioResamples)
	for range RatioResamples {
		x, okx := ra.logMean(rng)
		y, oky := rb.logMean(rng)
		if okx && oky {
			vals = append(vals, math.Exp(x-y))
		}
	}
	slices.Sort(vals)
	out.Lo, out.Hi = QuantileSorted(vals, 0.025), QuantileSorted(vals, 0.975)
	return out
}

// sortCells sorts every cell's samples and returns the mean log ratio of
// medians (0 for no cells), whether a cell has too few values for an
// interval, and false when a ratio is not a positive number.
func sortCells(cells []Pair) (sorted []Pair, logMean float64, tooFew, ok bool) {
	sorted = make([]Pair, len(cells))
	for i, c := range cells {
		if len(c.Num) == 0 || len(c.Den) == 0 {
			return nil, 0, false, false
		}
		n, d := sortedCopy(c.Num), sortedCopy(c.Den)
		r := QuantileSorted(n, 0.5) / QuantileSorted(d, 0.5)
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, 0, false, false
		}
		logMean += math.Log(r)
		sorted[i] = Pair{n, d}
		tooFew = tooFew || len(n) < MinIntervalN || len(d) < MinIntervalN
	}
	if len(cells) > 0 {
		logMean /= float64(len(cells))
	}
	return sorted, logMean, tooFew, true
}

// resampler draws one bootstrap replicate of a set of cells' mean log
// ratio of medians.
type resampler struct {
	cells   []Pair
	scratch [][2][]int
}

func newResampler(cells []Pair) *resampler {
	r := &resampler{cells: cells, scratch: make([][2][]int, len(cells))}
	for i, c := range cells {
		r.scratch[i] = [2][]int{make([]int, len(c.Num)), make([]int, len(c.Den))}
	}
	return r
}

// logMean is one replicate (0 for no cells); false when a resampled
// median is not positive.
func (r *resampler) logMean(rng *rand.PCG) (float64, bool) {
	if len(r.cells) == 0 {
		return 0, true
	}
	sum := 0.0
	for i, c := range r.cells {
		d := resampledMedian(rng, c.Den, r.scratch[i][1])
		n := resampledMedian(rng, c.Num, r.scratch[i][0])
		if !(d > 0) || !(n > 0) {
			return 0, false
		}
		sum += math.Log(n / d)
	}
	return sum / float64(len(r.cells)), true
}
