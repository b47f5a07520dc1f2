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
}

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
func (h *lateHarm) judge() harmEvidence {
	late := make([]stats.CondSample, len(h.late))
	for i, l := range h.late {
		late[i] = stats.CondSample{Cond: l.cond, Value: l.pltMs}
	}
	return harmEvidence{stats.LateShift(late, h.onTime)}
}

// enough tells whether there are pairs enough to trust the shift.
func (e harmEvidence) enough() bool {
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
		return "no PLT pairs yet"
	}
	s := "PLT shift " + e.Shift.String()
	switch {
	case !e.enough():
		return s + fmt.Sprintf(" (%d needed to judge, or %d with an error under %.0f%%)", harmMinPairs, harmFewPairs, stats.LateShiftLimit/2)
	case e.harmful():
		return s + ": harmful"
	case e.harmless():
		return s + ": harmless"
	}
	return s + ": unclear"
}
