package stats

import (
	"math"
	"testing"
)

func TestLateShiftAgainstOnTimeLoads(t *testing.T) {
	onTime := map[string][]float64{"a": {100, 100, 100}, "b": {200, 200}, "c": {50}}
	late := []CondSample{{"a", 110}, {"a", 110}, {"b", 220}, {"c", 500}, {"d", 1}}
	sh := LateShift(late, onTime)
	pct, pairs := sh.Pct, sh.Pairs
	if pairs != 3 || sh.Unpaired != 2 || math.Abs(pct-10) > 1e-9 {
		t.Errorf("shift %.3f%% over %d pairs, %d unpaired; want +10%% over 3, 2 unpaired (c has one on-time load, d none)", pct, pairs, sh.Unpaired)
	}
	// Most loads of "a" late: against all loads the median is a late
	// one's and the shift would read 0; against on-time loads it is +10%.
	if pct := LateShift([]CondSample{{"a", 110}, {"a", 110}, {"a", 110}, {"a", 110}}, onTime).Pct; math.Abs(pct-10) > 1e-9 {
		t.Errorf("shift %.3f%%, want +10%%", pct)
	}
	if sh := LateShift(late[3:], onTime); sh.Pairs != 0 || sh.Unpaired != 2 || !math.IsNaN(sh.Pct) || sh.Beyond(2) {
		t.Errorf("no pairs: %+v; want NaN, 0, not beyond", sh)
	}
}

// The standard error follows the pairs' spread and number: the same +4 %
// median shift is beyond a 2 % limit over tight pairs, and not over pairs
// spread as on lossy links (log spread 0.25) unless there are many.
func TestLateShiftStandardError(t *testing.T) {
	onTime := map[string][]float64{"a": {1000, 1000}}
	pairs := func(n int, spread float64) []CondSample {
		var late []CondSample
		for i := 0; i < n; i++ {
			// Symmetric around +4 %: the median stays 1040.
			z := spread * (2*float64(i)/float64(n-1) - 1)
			late = append(late, CondSample{"a", 1040 * math.Exp(z)})
		}
		return late
	}
	tight := LateShift(pairs(101, 0.02), onTime)
	wide := LateShift(pairs(101, 0.5), onTime)
	many := LateShift(pairs(2001, 0.5), onTime)
	if math.Abs(tight.Pct-4) > 1e-6 || math.Abs(wide.Pct-4) > 1e-6 {
		t.Fatalf("shifts %v, %v; want +4%%", tight.Pct, wide.Pct)
	}
	// A uniform spread of half-width w has a MAD of w/2: the standard
	// error is 1.2533 x 1.4826 x w/2 / sqrt(n), times 1.04 in %.
	want := 104 * 1.2533 * 1.4826 * 0.25 / math.Sqrt(101)
	if math.Abs(wide.SEPct-want) > 0.01*want {
		t.Errorf("standard error %.3f%%, want %.3f%%", wide.SEPct, want)
	}
	if !tight.Beyond(2) || wide.Beyond(2) || !many.Beyond(2) {
		t.Errorf("beyond 2%%: tight %v (%s), wide %v (%s), many %v (%s); want true, false, true",
			tight.Beyond(2), tight, wide.Beyond(2), wide, many.Beyond(2), many)
	}
	if tight.Beyond(5) {
		t.Errorf("+4%% is beyond a 5%% limit: %s", tight)
	}
}

// A shift is harmful only past LateShiftLimit and past twice its own
// standard error.
func TestShiftHarmfulPastTheLimitAndTheError(t *testing.T) {
	for _, c := range []struct {
		sh   Shift
		want bool
	}{
		{Shift{Pct: 3, SEPct: 1, Pairs: 100}, true},
		{Shift{Pct: -3, SEPct: 1, Pairs: 100}, true},
		{Shift{Pct: 3, SEPct: 2, Pairs: 100}, false}, // within twice the error
		{Shift{Pct: 1.5, SEPct: 0.1, Pairs: 100}, false},
		{Shift{Pct: math.NaN(), SEPct: math.NaN()}, false},
	} {
		if got := c.sh.Harmful(); got != c.want {
			t.Errorf("%+v: harmful %v, want %v", c.sh, got, c.want)
		}
	}
}

// The pairs speak for the late loads only while few of those went
// unpaired: a condition late in every load pairs none of them.
func TestShiftCoversOnlyWithFewUnpaired(t *testing.T) {
	onTime := map[string][]float64{"light": {100, 100, 100}}
	var late []CondSample
	for i := 0; i < 18; i++ {
		late = append(late, CondSample{"light", 100})
	}
	if sh := LateShift(late, onTime); !sh.Covers() || sh.Unpaired != 0 {
		t.Errorf("only paired late loads: %+v, want covered", sh)
	}
	two := append(late, CondSample{"heavy", 900}, CondSample{"heavy", 900})
	if sh := LateShift(two, onTime); !sh.Covers() {
		t.Errorf("2 of 20 unpaired (the limit's tenth): %+v, want covered", sh)
	}
	three := append(two, CondSample{"heavy", 900})
	sh := LateShift(three, onTime)
	if sh.Covers() || sh.Pairs != 18 || sh.Unpaired != 3 {
		t.Errorf("3 of 21 unpaired: %+v, want 18 pairs, 3 unpaired, not covered", sh)
	}
	if got := sh.String(); got != "+0.0% ± 0.0% over 18 pairs, 3 unpaired" {
		t.Errorf("String %q", got)
	}
	if (Shift{}).Covers() != true {
		t.Errorf("no late loads at all: nothing to cover, want covered")
	}
}
