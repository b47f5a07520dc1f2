package stats

import (
	"math"
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
