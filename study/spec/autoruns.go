package spec

import (
	"fmt"
	"strconv"
)

// AutoRuns is `runs = "auto"`: the runner loads each bench group Min runs
// (protocols interleaved run by run, as for fixed runs), then adds one run
// at a time until every variant's gain against the group's baseline has a
// 95% interval within ±Target of the gain (stats.RatioCI.WithinTarget), or
// the group has Max runs. With it Study.Runs is Min: what every condition
// gets, and what the report's completeness and too-few-loads rules count.
type AutoRuns struct {
	Target float64 `json:"target"` // 0.05 = the interval's half-width at most 5% of the gain
	Min    int     `json:"min"`
	Max    int     `json:"max"`
}

// The defaults of `--runs auto`: ±5%, the fewest
// loads stats.MedianRatio gives an interval for, and a cap of twice the
// fixed 20 runs of the CableLabs study.
const (
	DefaultAutoTarget = 0.05
	DefaultAutoMin    = 5 // stats.MinIntervalN
	DefaultAutoMax    = 40
)

// DefaultAutoRuns is `runs = "auto"` with no other setting.
func DefaultAutoRuns() AutoRuns {
	return AutoRuns{Target: DefaultAutoTarget, Min: DefaultAutoMin, Max: DefaultAutoMax}
}

// Check says what is wrong with a, naming the settings as the command
// line does.
func (a AutoRuns) Check() error {
	switch {
	case !(a.Target > 0 && a.Target < 1):
		return fmt.Errorf("runs auto: target ±%s: want more than 0%% and less than 100%%", a.TargetText())
	case a.Min < DefaultAutoMin:
		return fmt.Errorf("runs auto: at least %d runs before judging (fewer give no interval), got %d", DefaultAutoMin, a.Min)
	case a.Max < a.Min || a.Max > 10000:
		return fmt.Errorf("runs auto: cap %d: want %d..10000 (at least the %d first runs)", a.Max, a.Min, a.Min)
	}
	return nil
}

// TargetText is the target as a percentage, "5%".
func (a AutoRuns) TargetText() string {
	return strconv.FormatFloat(100*a.Target, 'g', 4, 64) + "%"
}

func (a AutoRuns) String() string {
	return fmt.Sprintf("auto (±%s, %d to %d runs)", a.TargetText(), a.Min, a.Max)
}

// SetRunsAuto makes the study's runs automatic: Runs becomes a.Min and the
// fingerprint changes, so an automatic run never mixes with a fixed one.
func (s *Study) SetRunsAuto(a AutoRuns) error {
	if err := a.Check(); err != nil {
		return err
	}
	s.RunsAuto = &a
	s.Runs = a.Min
	return nil
}

// autoFingerprint is the fingerprint's part for automatic runs; "" for
// fixed ones, so their fingerprints (and stored outputs) stay as they were.
func (s *Study) autoFingerprint() string {
	if s.RunsAuto == nil {
		return ""
	}
	a := s.RunsAuto
	return fmt.Sprintf(" auto=%g/%d/%d", a.Target, a.Min, a.Max)
}
