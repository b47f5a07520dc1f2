package report

// Automatic runs (`spdylab run --runs auto`, spec.AutoRuns): how many
// gain cells reached the target width, and which hit the cap of loads
// first. A cell is a condition with a gain against its baseline twin; it
// reached the target when its gain's 95% interval is within ±target of
// the gain (stats.RatioCI.WithinTarget, the runner's own stop rule), and
// hit the cap when it did not and got the cap's loads.

import (
	"fmt"
	"strings"
)

// AutoRunsResult is what automatic runs achieved over a study's cells.
type AutoRunsResult struct {
	Target       string // "5%"
	Max          int    // the cap of runs
	Cells        int    // conditions with a gain
	Reached      int    // their interval within ±Target
	Capped       []string
	OtherStopped int // neither: no interval (a protocol failing its loads) or the run unfinished
}

// AutoRuns tells what automatic runs achieved; nil for fixed runs.
func (a *Analysis) AutoRuns() *AutoRunsResult {
	rule := a.Study.RunsAuto
	if rule == nil {
		return nil
	}
	res := &AutoRunsResult{Target: rule.TargetText(), Max: rule.Max}
	for _, c := range a.Conds {
		if c.BaseHash == "" {
			continue
		}
		res.Cells++
		switch {
		case c.GainCI.WithinTarget(rule.Target):
			res.Reached++
		case c.Loads >= rule.Max:
			res.Capped = append(res.Capped, a.cellName(c))
		default:
			res.OtherStopped++
		}
	}
	return res
}

// cellName names a condition by its varied factors, "spdy/3.1 rtt=100ms".
func (a *Analysis) cellName(c *Condition) string {
	var parts []string
	for _, f := range a.Study.Varied {
		parts = append(parts, f+"="+c.Values[f])
	}
	return strings.Join(parts, " ")
}

// AutoRunsLine is the report's line on automatic runs: "12 of 16 cells
// reached ±5%, 3 hit the cap of 40 loads: ..."; "" for fixed runs.
func (a *Analysis) AutoRunsLine() string {
	r := a.AutoRuns()
	if r == nil {
		return ""
	}
	s := fmt.Sprintf("runs auto: %d of %d cells reached ±%s (the gain's 95%% interval within ±%s of the gain), %d hit the cap of %d loads",
		r.Reached, r.Cells, r.Target, r.Target, len(r.Capped), r.Max)
	if r.OtherStopped > 0 {
		s += fmt.Sprintf(", %d have no interval to judge (failed loads) or are unfinished", r.OtherStopped)
	}
	if len(r.Capped) > 0 {
		const shown = 12
		names := r.Capped[:min(len(r.Capped), shown)]
		s += ": " + strings.Join(names, "; ")
		if len(r.Capped) > shown {
			s += fmt.Sprintf("; and %d more", len(r.Capped)-shown)
		}
	}
	return s
}
