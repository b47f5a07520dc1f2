package report

import (
	"math"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/spec"
)

func TestAutoRunsLineCountsReachedAndCappedCells(t *testing.T) {
	rule := spec.AutoRuns{Target: 0.05, Min: 5, Max: 40}
	cond := func(rtt string, loads int, ci stats.RatioCI, base string) *Condition {
		c := &Condition{Loads: loads, GainCI: ci}
		c.Values = map[string]string{"protocol": "spdy/3.1", "rtt": rtt}
		c.BaseHash = base
		return c
	}
	nan := math.NaN()
	a := &Analysis{Study: &spec.Study{RunsAuto: &rule, Varied: []string{"protocol", "rtt"}}, Conds: []*Condition{
		cond("20ms", 5, stats.RatioCI{Ratio: nan, Lo: nan, Hi: nan}, ""),               // a baseline: no cell
		cond("20ms", 5, stats.RatioCI{Ratio: 2, Lo: 1.95, Hi: 2.05}, "b"),              // reached at the minimum
		cond("100ms", 40, stats.RatioCI{Ratio: 1, Lo: 0.8, Hi: 1.2}, "b"),              // capped
		cond("200ms", 40, stats.RatioCI{Ratio: 1, Lo: 0.97, Hi: 1.03}, "b"),            // reached at the cap
		cond("400ms", 5, stats.RatioCI{Ratio: 1, Lo: nan, Hi: nan, TooFew: true}, "b"), // failed loads
	}}
	line := a.AutoRunsLine()
	for _, want := range []string{"2 of 4 cells reached ±5%", "1 hit the cap of 40 loads", "protocol=spdy/3.1 rtt=100ms", "1 have no interval"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	a.Study.RunsAuto = nil
	if a.AutoRunsLine() != "" {
		t.Error("a line for fixed runs")
	}
}
