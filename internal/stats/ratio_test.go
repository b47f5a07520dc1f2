package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMedianRatioCI95(t *testing.T) {
	num := []float64{110, 120, 130, 125, 115, 118, 122}
	den := []float64{100, 101, 99, 100, 102, 98, 100}
	r, lo, hi := MedianRatioCI95(num, den)
	if r != 120.0/100 {
		t.Fatalf("ratio %v, want 1.2", r)
	}
	if !(lo <= r && r <= hi) || lo < 1.1 || hi > 1.3 {
		t.Fatalf("interval [%v, %v] around %v", lo, hi, r)
	}
	r2, lo2, hi2 := MedianRatioCI95(num, den)
	if r2 != r || lo2 != lo || hi2 != hi {
		t.Fatal("the interval changes from one call to the next")
	}
	// Identical constant samples: no spread at all.
	if r, lo, hi := MedianRatioCI95([]float64{5, 5, 5}, []float64{5, 5}); r != 1 || lo != 1 || hi != 1 {
		t.Fatalf("constant samples: %v [%v, %v]", r, lo, hi)
	}
	if r, _, _ := MedianRatioCI95(nil, den); !math.IsNaN(r) {
		t.Fatal("empty sample has a ratio")
	}
	if r, _, _ := MedianRatioCI95(num, []float64{0, 0}); !math.IsNaN(r) {
		t.Fatal("zero denominator has a ratio")
	}
}

// twoSamples are n loads around two medians, spread like page loads: a
// fixed pattern of deviations of up to ±spread%, so that the test knows
// the answer without drawing random numbers.
func twoSamples(n int, medA, medB, spread float64) (a, b []float64) {
	for i := range n {
		dev := spread / 100 * (float64(i%7)/3 - 1) // -1 .. +1 in sevenths
		a = append(a, medA*(1+dev))
		b = append(b, medB*(1+dev*0.9))
	}
	return a, b
}

func TestMedianRatioWonWhenTheSamplesClearlyDiffer(t *testing.T) {
	base, variant := twoSamples(20, 1500, 1000, 10)
	r := MedianRatio(base, variant)
	if r.TooFew || math.Abs(r.Ratio-1.5) > 0.02 {
		t.Fatalf("ratio %+v, want 1.5 with an interval", r)
	}
	if !r.Above(1) || r.Below(1) || !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) || r.Lo < 1.3 || r.Hi > 1.7 {
		t.Fatalf("interval [%v, %v] of %v: want it around 1.5, entirely above 1", r.Lo, r.Hi, r.Ratio)
	}
	if l := MedianRatio(variant, base); !l.Below(1) || l.Above(1) {
		t.Fatalf("the other way round [%v, %v] is not entirely below 1", l.Lo, l.Hi)
	}
}

func TestMedianRatioUndecidedForOneDistribution(t *testing.T) {
	// The same loads in another order, and a sample with one value more:
	// two draws from one distribution.
	a, _ := twoSamples(20, 1000, 1000, 15)
	b := append([]float64{1000}, a[3:]...)
	b = append(b, a[:3]...)
	r := MedianRatio(a, b)
	if r.TooFew || !(r.Lo < 1 && 1 < r.Hi) || r.Above(1) || r.Below(1) {
		t.Fatalf("one distribution: %v [%v, %v], want an interval around 1", r.Ratio, r.Lo, r.Hi)
	}
}

func TestMedianRatioTooFewLoads(t *testing.T) {
	a, b := twoSamples(MinIntervalN-1, 1500, 1000, 1)
	r := MedianRatio(a, b)
	if !r.TooFew || math.IsNaN(r.Ratio) || !math.IsNaN(r.Lo) || !math.IsNaN(r.Hi) || r.Above(1) || r.Below(1) {
		t.Fatalf("%d loads a side: %+v, want a ratio, no interval, too few", MinIntervalN-1, r)
	}
	if r := MedianRatio(nil, b); r.TooFew || !math.IsNaN(r.Ratio) {
		t.Fatalf("no loads on one side: %+v, want no ratio (not too few)", r)
	}
}

func TestMedianRatioIgnoresTheOrderOfLoads(t *testing.T) {
	a, b := twoSamples(15, 1200, 1000, 20)
	r := MedianRatio(a, b)
	slices.Reverse(a)
	if r2 := MedianRatio(a, b); r2 != r {
		t.Fatalf("reordered loads: %+v, before %+v", r2, r)
	}
}

// resampledMedian's counting walk must agree with the median of the
// drawn values themselves.
func TestResampledMedianIsTheMedianOfTheDraws(t *testing.T) {
	for _, n := range []int{1, 2, 5, 6, 20} {
		sorted := make([]float64, n)
		for i := range sorted {
			sorted[i] = float64(10 * (i + 1))
		}
		rngA, rngB := rand.NewPCG(1, 2), rand.NewPCG(1, 2)
		counts := make([]int, n)
		for range 50 {
			got := resampledMedian(rngA, sorted, counts)
			var draws []float64
			for len(draws) < n {
				r := rngB.Uint64()
				for _, half := range []uint64{r & 0xffffffff, r >> 32} {
					if len(draws) < n {
						draws = append(draws, sorted[half*uint64(n)>>32])
					}
				}
			}
			if want := Median(draws); got != want {
				t.Fatalf("n=%d: %v, the draws' median is %v", n, got, want)
			}
		}
	}
}

// BenchmarkMedianRatio is one cell of a 20-load study: a report of 432
// conditions computes two of these (PLT and ToW) per condition.
func BenchmarkMedianRatio(b *testing.B) {
	x, y := twoSamples(20, 1200, 1000, 20)
	for b.Loop() {
		MedianRatio(x, y)
	}
}
