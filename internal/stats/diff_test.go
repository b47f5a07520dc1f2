package stats

import (
	"math"
	"testing"
)

func TestMedianDiff(t *testing.T) {
	a, b := twoSamples(20, 1500, 1000, 10)
	d := MedianDiff(a, b)
	if d.TooFew || math.Abs(d.Diff-(Median(a)-Median(b))) > 1e-9 || !(d.Lo <= d.Diff && d.Diff <= d.Hi) || !d.Excludes0() {
		t.Fatalf("%+v: want the medians' difference inside an interval above 0", d)
	}
	if d2 := MedianDiff(a, b); d2 != d {
		t.Fatal("the interval changes from one call to the next")
	}
	same, _ := twoSamples(20, 1000, 1000, 15)
	if d := MedianDiff(same, append([]float64{1000}, same...)); d.Excludes0() {
		t.Fatalf("one distribution: %+v excludes 0", d)
	}
	if d := MedianDiff(a[:3], b); !d.TooFew || math.IsNaN(d.Diff) || !math.IsNaN(d.Lo) {
		t.Fatalf("3 values: %+v, want a difference without an interval", d)
	}
	if d := MedianDiff(nil, b); !math.IsNaN(d.Diff) || d.TooFew {
		t.Fatalf("empty: %+v", d)
	}
}
