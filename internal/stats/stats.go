// Package stats is the lab's one home for summary statistics: quantiles,
// medians, means and confidence intervals. Everything that prints or stores
// a median (the report, `spdylab load`, the link check, the benchmarks)
// computes it here, so two numbers called "median" always agree.
//
// Quantiles are type 7 of Hyndman and Fan (linear interpolation between
// order statistics; the default of R and NumPy). It was chosen over nearest
// rank because the report and `spdylab load` have always used it (stored
// and published medians keep their values), because it is continuous in the
// data (a median of an even count is the mean of the middle two, as readers
// expect), and because comparisons with other tools' numbers need no
// footnote. An empty sample has no quantile: NaN.
package stats

import (
	"math"
	"slices"
)

// QuantileSorted is the type-7 q-quantile (0 <= q <= 1) of sorted, which
// must be in ascending order; NaN when sorted is empty.
func QuantileSorted(sorted []float64, q float64) float64 {
	switch len(sorted) {
	case 0:
		return math.NaN()
	case 1:
		return sorted[0]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	lo = min(max(lo, 0), len(sorted)-1)
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// Quantile is QuantileSorted of a sorted copy of xs (xs is not changed).
func Quantile(xs []float64, q float64) float64 {
	return QuantileSorted(sortedCopy(xs), q)
}

// Median is the type-7 median of xs; NaN when xs is empty.
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Mean is the arithmetic mean of xs; NaN when xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// MeanCI95 returns the mean of xs and the half-width of its 95% confidence
// interval (normal approximation, 1.96 standard errors; 0 for fewer than two
// values, and 0, 0 for none).
func MeanCI95(xs []float64) (m, half float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	m = Mean(xs)
	if len(xs) < 2 {
		return m, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	return m, 1.96 * sd / math.Sqrt(float64(len(xs)))
}

// Summary is the five numbers the report and `spdylab load` show for one
// metric. The field names are stored in conditions.json: keep them.
type Summary struct {
	N                int
	Median, P25, P75 float64
	Min, Max         float64
}

// Summarize computes the Summary of xs (xs is not changed). Without values
// every statistic is NaN and N is 0.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		nan := math.NaN()
		return Summary{Median: nan, P25: nan, P75: nan, Min: nan, Max: nan}
	}
	s := sortedCopy(xs)
	return Summary{N: len(s), Median: QuantileSorted(s, 0.5), P25: QuantileSorted(s, 0.25), P75: QuantileSorted(s, 0.75),
		Min: s[0], Max: s[len(s)-1]}
}

func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
