package stats

import (
	"math"
	"testing"
)

func TestGeoMeanRatio(t *testing.T) {
	a, b := twoSamples(20, 1500, 1000, 10) // a cell with a ratio near 1.5
	c, d := twoSamples(20, 1000, 1500, 10) // and one near 2/3
	one := GeoMeanRatio([]Pair{{a, b}})
	if want := MedianRatio(a, b); math.Abs(one.Ratio-want.Ratio) > 1e-12 {
		t.Errorf("one cell: %v, want its own ratio %v", one.Ratio, want.Ratio)
	}
	if !(one.Lo < one.Ratio && one.Ratio < one.Hi) {
		t.Errorf("one cell: interval [%v, %v] does not hold %v", one.Lo, one.Hi, one.Ratio)
	}
	two := GeoMeanRatio([]Pair{{a, b}, {c, d}})
	want := math.Sqrt(MedianRatio(a, b).Ratio * MedianRatio(c, d).Ratio)
	if math.Abs(two.Ratio-want) > 1e-12 || !(two.Lo < two.Ratio && two.Ratio < two.Hi) {
		t.Errorf("two cells: %v [%v, %v], want the geometric mean %v inside its interval", two.Ratio, two.Lo, two.Hi, want)
	}
	// Twice the cells with the same spread: the mean's interval narrows.
	e, f := twoSamples(20, 1600, 1000, 10)
	g, h := twoSamples(20, 1000, 1600, 10)
	four := GeoMeanRatio([]Pair{{a, b}, {c, d}, {e, f}, {g, h}})
	if four.Hi-four.Lo >= two.Hi-two.Lo {
		t.Errorf("four cells' interval %v wide, two cells' %v: want narrower", four.Hi-four.Lo, two.Hi-two.Lo)
	}
	if again := GeoMeanRatio([]Pair{{a, b}, {c, d}}); again != two {
		t.Errorf("not reproducible: %+v then %+v", two, again)
	}
	few := GeoMeanRatio([]Pair{{a, b}, {a[:MinIntervalN-1], b}})
	if !few.TooFew || math.IsNaN(few.Ratio) || !math.IsNaN(few.Lo) {
		t.Errorf("a cell with too few loads: %+v, want a ratio without an interval", few)
	}
	if r := GeoMeanRatio(nil); !math.IsNaN(r.Ratio) {
		t.Errorf("no cells: %+v", r)
	}
}

func TestGeoMeanContrast(t *testing.T) {
	a, b := twoSamples(20, 1500, 1000, 10) // gain near 1.5
	c, d := twoSamples(20, 1000, 1000, 10) // gain near 1
	r := GeoMeanContrast([]Pair{{a, b}}, []Pair{{c, d}})
	want := MedianRatio(a, b).Ratio / MedianRatio(c, d).Ratio
	if math.Abs(r.Ratio-want) > 1e-12 || !r.Above(1) {
		t.Errorf("contrast %+v, want %v with its interval above 1", r, want)
	}
	same := GeoMeanContrast([]Pair{{a, b}}, []Pair{{a, b}})
	if same.Ratio != 1 || !(same.Lo < 1 && same.Hi > 1) {
		t.Errorf("a setting against itself: %+v, want 1 inside its interval", same)
	}
}
