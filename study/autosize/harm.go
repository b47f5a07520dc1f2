package autosize

import (
	"fmt"
	"math"

	"github.com/spdylab/spdylab/internal/stats"
)

// harmMinPairs is how many (late load, condition with on-time loads)
// pairs the controller needs before it trusts the harm evidence. On lossy
// links a load's log(PLT / its condition's median) spreads with a robust
// standard deviation of 0.06-0.10 (BENCHMARKS.md); the median of n such
// values has a standard error of about 1.25 sd / sqrt(n), so 100 pairs put
// it near 1%, half of stats.LateShiftLimit: a shift of 2% is then two
// standard errors away from none. Fewer pairs do when their own
// standard error is already that small (harmFewPairs at least, for the
// error's estimate to hold): a run whose loads are all late pairs few of
// them after each change of bench, and would otherwise judge by frequency
// alone there.
const (
	harmMinPairs = 100
	harmFewPairs = 30
)

// lateHarm is the evidence of whether the emulator's lateness moves what
// the study measures, judged as the report does (judgeLateLoads): how far
// the PLTs of late loads lie from those of on-time loads of the same
// condition. Lateness that shifts no PLT is the machine's timing noise,
// not a measurement going wrong.
type lateHarm struct {
	onTime map[string][]float64 // PLTs (ms) of on-time loads per condition hash
	late   []latePLT            // the last recentLoads late loads
	// lastLate is each condition's last lateThroughout loads' lateness,
	// newest last.
	lastLate map[string][]bool
}

// lateThroughout is how many of a condition's latest loads, all late,
// make its late loads unpaired whatever on-time loads it once had: those
// came at another size, and the pooled shift of the conditions that are
// late now and then (light pages) would dilute that of the ones late
// every time (heavy pages), which is the shift that biases a verdict.
const lateThroughout = 5

type latePLT struct {
	cond  string
	pltMs float64
}

// harmEvidence is the judgement at one moment: the median PLT shift of
// late loads (NaN without pairs), its standard error and pairs.
type harmEvidence struct{ stats.Shift }

// add takes one successful load's PLT, late or not. The late loads are a
// window (recent lateness, across sizes: a shift is the lateness's effect,
// whatever the size that caused it); the on-time ones are all kept, as
// their condition's reference.
func (h *lateHarm) add(cond string, pltMs float64, late bool) {
	if cond == "" || !(pltMs > 0) {
		return
	}
	if h.lastLate == nil {
		h.lastLate = map[string][]bool{}
	}
	last := append(h.lastLate[cond], late)
	h.lastLate[cond] = last[max(0, len(last)-lateThroughout):]
	if !late {
		if h.onTime == nil {
			h.onTime = map[string][]float64{}
		}
		h.onTime[cond] = append(h.onTime[cond], pltMs)
		return
	}
	h.late = append(h.late, latePLT{cond, pltMs})
	if len(h.late) > recentLoads {
		h.late = append(h.late[:0], h.late[len(h.late)-recentLoads:]...)
	}
}

// judge is the late loads' PLT shift against the on-time loads of their
// conditions (stats.LateShift, the report's measure too).
// The late loads of a condition late throughout are counted unpaired.
func (h *lateHarm) judge() harmEvidence {
	late := make([]stats.CondSample, 0, len(h.late))
	throughout := 0
	for _, l := range h.late {
		if h.isLateThroughout(l.cond) {
			throughout++
			continue
		}
		late = append(late, stats.CondSample{Cond: l.cond, Value: l.pltMs})
	}
	sh := stats.LateShift(late, h.onTime)
	sh.Unpaired += throughout
	return harmEvidence{sh}
}

// isLateThroughout tells whether a condition's last lateThroughout loads
// were all late.
func (h *lateHarm) isLateThroughout(cond string) bool {
	last := h.lastLate[cond]
	if len(last) < lateThroughout {
		return false
	}
	for _, l := range last {
		if !l {
			return false
		}
	}
	return true
}

// enough tells whether there are pairs enough to trust the shift, and
// whether they speak for the late loads (stats.Shift.Covers): a page late
// in every load pairs none, and the lighter pages' pairs would otherwise
// call the lateness harmless while that page's PLTs move.
func (e harmEvidence) enough() bool {
	return e.enoughPairs() && e.Covers()
}

func (e harmEvidence) enoughPairs() bool {
	return e.Pairs >= harmMinPairs || e.Pairs >= harmFewPairs && e.SEPct <= stats.LateShiftLimit/2
}

// harmful: enough pairs and a shift beyond the report's limit and twice
// its standard error (stats.Shift.Beyond, the report's test too).
func (e harmEvidence) harmful() bool { return e.enough() && e.Harmful() }

// harmlessEnough: enough pairs and a shift within the report's limit,
// which keeps frequent lateness from shrinking the testbeds (growing
// wants the stricter harmless).
func (e harmEvidence) harmlessEnough() bool { return e.enough() && !e.harmful() }

// harmless: enough pairs and a shift within half the report's limit, so
// that a shift between the two neither grows nor (by itself) shrinks.
func (e harmEvidence) harmless() bool { return e.enough() && math.Abs(e.Pct) <= stats.LateShiftLimit/2 }

// String is the judgement for the progress and the provenance:
// "PLT shift +0.1% over 140 pairs: harmless".
func (e harmEvidence) String() string {
	if e.Pairs == 0 {
		if e.Unpaired > 0 {
			return fmt.Sprintf("no PLT pairs yet, %d late unpaired", e.Unpaired)
		}
		return "no PLT pairs yet"
	}
	s := "PLT shift " + e.Shift.String()
	switch {
	case !e.enoughPairs():
		return s + fmt.Sprintf(" (%d needed to judge, or %d with an error under %.0f%%)", harmMinPairs, harmFewPairs, stats.LateShiftLimit/2)
	case !e.Covers():
		return s + fmt.Sprintf(": over %.0f%% of the late loads unpaired (their conditions late throughout), so the pairs cannot judge them", 100*stats.UnpairedShareLimit)
	case e.harmful():
		return s + ": harmful"
	case e.harmless():
		return s + ": harmless"
	}
	return s + ": unclear"
}
