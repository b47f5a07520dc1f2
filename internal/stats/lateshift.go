package stats

import (
	"fmt"
	"math"
)

// CondSample is one load's value (a PLT) in its condition.
type CondSample struct {
	Cond  string
	Value float64
}

// Shift is how far late loads lie from on-time loads of their
// conditions: the median shift in %, its standard error in % (NaN below
// two pairs), the pairs it rests on, and the late loads it could not
// pair (Unpaired: their condition had fewer than two on-time loads).
type Shift struct {
	Pct, SEPct float64
	Pairs      int
	Unpaired   int
}

// Covers tells whether the pairs speak for the late loads: at most
// UnpairedShareLimit of them went unpaired. The loads that go unpaired
// are not a random few: they are the conditions late throughout, the
// heaviest pages on too many testbeds, whose PLTs the shift of the
// lighter ones' says nothing about.
func (s Shift) Covers() bool {
	return float64(s.Unpaired) <= UnpairedShareLimit*float64(s.Pairs+s.Unpaired)
}

// Beyond tells whether the shift lies past limit (in %) and past twice
// its standard error: a shift the pairs tell apart from none. On lossy
// links a load's PLT spreads 20-30 % around its condition's, and 200
// pairs then leave the median shift a standard error of about 2 %.
func (s Shift) Beyond(limit float64) bool {
	return s.Pairs > 0 && math.Abs(s.Pct) > limit && !(math.Abs(s.Pct) <= 2*s.SEPct)
}

// String is "+4.0% ± 2.2% over 205 pairs" (without ± below two pairs),
// with ", 30 unpaired" when late loads went unpaired.
func (s Shift) String() string {
	str := fmt.Sprintf("%+.1f%% over %d pairs", s.Pct, s.Pairs)
	if s.Pairs >= 2 {
		str = fmt.Sprintf("%+.1f%% ± %.1f%% over %d pairs", s.Pct, s.SEPct, s.Pairs)
	}
	if s.Unpaired > 0 {
		str += fmt.Sprintf(", %d unpaired", s.Unpaired)
	}
	return str
}

// LateShift is how far the values of some loads (late-emulator loads)
// lie from those of the other loads of the same condition (on-time
// loads): the median, over the late loads whose condition has at least
// two on-time loads, of log(late value / median on-time value), as a
// shift in %, with the median's standard error from the pairs' own
// spread (1.2533 robust standard deviations over the root of the pairs;
// the robust deviation is 1.4826 median absolute deviations). The
// reference is the on-time loads, not all loads: where most loads of a
// condition are late, its overall median is a late load's and would hide
// any shift.
func LateShift(late []CondSample, onTime map[string][]float64) Shift {
	medians := map[string]float64{}
	var logs []float64
	unpaired := 0
	for _, l := range late {
		m, ok := medians[l.Cond]
		if !ok {
			if on := onTime[l.Cond]; len(on) >= 2 {
				m = Median(on)
			}
			medians[l.Cond] = m
		}
		switch {
		case !(l.Value > 0):
		case m > 0:
			logs = append(logs, math.Log(l.Value/m))
		default:
			unpaired++
		}
	}
	if len(logs) == 0 {
		return Shift{Pct: math.NaN(), SEPct: math.NaN(), Unpaired: unpaired}
	}
	m := Median(logs)
	sh := Shift{Pct: 100 * (math.Exp(m) - 1), SEPct: math.NaN(), Pairs: len(logs), Unpaired: unpaired}
	if len(logs) >= 2 {
		dev := make([]float64, len(logs))
		for i, l := range logs {
			dev[i] = math.Abs(l - m)
		}
		seLog := 1.2533 * 1.4826 * Median(dev) / math.Sqrt(float64(len(logs)))
		sh.SEPct = 100 * math.Exp(m) * seLog
	}
	return sh
}
