package stats

import (
	"math"
	"testing"
)

func TestQuantileType7(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{3}, 0.5, 3},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},   // mean of the middle two
		{[]float64{4, 1, 3, 2}, 0.25, 1.75}, // unsorted input is sorted first
		{[]float64{1, 2, 3, 4}, 0.75, 3.25},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{10, 20, 30, 40, 50}, 0.99, 49.6},
	} {
		if got := Quantile(tc.xs, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.xs, tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) || !math.IsNaN(Mean(nil)) {
		t.Error("empty sample must give NaN")
	}
}

func TestQuantileDoesNotChangeInput(t *testing.T) {
	xs := []float64{3, 1, 2}
	Median(xs)
	Summarize(xs)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Fatalf("input reordered: %v", xs)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s != (Summary{N: 5, Median: 3, P25: 2, P75: 4, Min: 1, Max: 5}) {
		t.Fatalf("Summarize = %+v", s)
	}
	if e := Summarize(nil); e.N != 0 || !math.IsNaN(e.Median) || !math.IsNaN(e.Max) {
		t.Fatalf("empty Summarize = %+v", e)
	}
}

func TestMeanCI95(t *testing.T) {
	m, half := MeanCI95([]float64{1, 2, 3, 4, 5})
	// sd = sqrt(2.5); half = 1.96*sd/sqrt(5)
	if m != 3 || math.Abs(half-1.96*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-12 {
		t.Fatalf("MeanCI95 = %v ± %v", m, half)
	}
	if m, half := MeanCI95([]float64{7}); m != 7 || half != 0 {
		t.Fatalf("one value: %v ± %v", m, half)
	}
}
