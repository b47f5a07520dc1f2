package report

// The answer first: one plain paragraph that report.html opens with and
// `spdylab load`'s summary ends with, for the chosen metric: how many cells
// each variant won, lost and left undecided, the best and worst cells, and
// the largest critical-path terms behind them (why.go). One builder, so
// the two say the same thing the same way.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// AnswerCell is one cell's gain against its baseline twin, and the
// critical-path terms behind it (largest first; none without paths on
// both sides).
type AnswerCell struct {
	Variant, Base string
	Where         string // the cell's other values ("" when it has none)
	Gain          stats.RatioCI
	// Diff is the variant's median minus the baseline's (ms): terms
	// under 5% of it are too small to name (as why's sentence does).
	Diff  float64
	Terms []WhyTerm
}

// Answer is what the paragraph is built from.
type Answer struct {
	Metric   string   // as the paragraph names it: "LCP (the loader's estimate)"
	Variants []string // in the order the paragraph counts them
	Cells    []AnswerCell
	// Missing of Loads successful loads have no value of the metric;
	// Refused are the clients that cannot give it, with the reason.
	Missing, Loads int
	Refused        []string
}

// AnswerOf is the study's answer: every condition with a baseline twin.
func AnswerOf(a *Analysis) Answer {
	ans := Answer{Metric: a.MetricTitle(), Variants: a.variants(), Missing: a.MetricMissing, Loads: a.OKLoads}
	for client, why := range a.Refused {
		ans.Refused = append(ans.Refused, fmt.Sprintf("client %s: %s", client, why))
	}
	sort.Strings(ans.Refused)
	why := map[string][]WhyTerm{}
	for _, w := range Why(a, "") {
		why[w.Cond.Hash] = w.Terms
	}
	for _, c := range a.Conds {
		base := a.ByHash[c.BaseHash]
		if base == nil || c.Refused != "" {
			continue
		}
		ans.Cells = append(ans.Cells, AnswerCell{Variant: c.Label, Base: base.Label,
			Where: strings.TrimSpace(describeValues(c, a.Study.Varied)), Gain: c.GainCI, Diff: c.Value.Median - base.Value.Median, Terms: why[c.Hash]})
	}
	return ans
}

// Paragraph is the answer in words.
func (ans Answer) Paragraph() string {
	var b strings.Builder
	fmt.Fprintf(&b, "For %s:", ans.Metric)
	counted := 0
	for _, v := range ans.Variants {
		var n verdictCounts
		base := ""
		for _, c := range ans.Cells {
			if c.Variant == v {
				n.add(c.Gain.Verdict())
				base = c.Base
			}
		}
		if n.total() == 0 {
			continue
		}
		if counted > 0 {
			b.WriteString(";")
		}
		counted++
		fmt.Fprintf(&b, " %s against %s won %s, lost %d and left %d undecided", v, base, cellCount(n.Won), n.Lost, n.Undecided)
		if n.TooFew > 0 {
			fmt.Fprintf(&b, " (%d more with too few loads for an interval)", n.TooFew)
		}
	}
	if counted == 0 {
		b.WriteString(" no cell has a gain against its baseline (no loads with the metric on both sides).")
		return b.String() + ans.missingNote()
	}
	b.WriteString(".")
	best, worst := ans.extremes()
	switch {
	case best == nil:
	case best == worst:
		fmt.Fprintf(&b, " Its one cell: %s.", best.describe())
	default:
		fmt.Fprintf(&b, " The best cell: %s. The worst: %s.", best.describe(), worst.describe())
	}
	return b.String() + ans.missingNote()
}

func cellCount(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// extremes are the cells with the largest and smallest gain (nil without
// any gain).
func (ans Answer) extremes() (best, worst *AnswerCell) {
	for i := range ans.Cells {
		c := &ans.Cells[i]
		if math.IsNaN(c.Gain.Ratio) {
			continue
		}
		if best == nil || c.Gain.Ratio > best.Gain.Ratio {
			best = c
		}
		if worst == nil || c.Gain.Ratio < worst.Gain.Ratio {
			worst = c
		}
	}
	return best, worst
}

// describe is a cell, its gain with its interval and its largest clear
// critical-path term.
func (c *AnswerCell) describe() string {
	s := c.Variant
	if c.Where != "" {
		s += " at " + c.Where
	}
	g := c.Gain
	s += fmt.Sprintf(", gain %s (%s)", withInterval(g.Ratio, g.Lo, g.Hi, g.TooFew, 2, 1), verdictWords(g.Verdict()))
	return s + ", " + c.largestTerm()
}

func verdictWords(v Significance) string {
	if v == TooFewLoads {
		return "too few loads for an interval"
	}
	return string(v)
}

// largestTerm names the largest critical-path difference whose interval
// excludes zero (or that has too few loads for one), and a larger one
// that varies too much to be sure of when it leads; terms under 5% of
// the cell's change (at least 1 ms) are left out.
func (c *AnswerCell) largestTerm() string {
	if len(c.Terms) == 0 {
		return "without critical paths on both sides"
	}
	floor := math.Max(1, 0.05*math.Abs(c.Diff))
	var unclear *WhyTerm
	for i, t := range c.Terms {
		if math.IsNaN(t.Diff) || math.Abs(t.Diff) < floor {
			continue
		}
		if !t.TooFew && !t.Excludes0() {
			if unclear == nil {
				unclear = &c.Terms[i]
			}
			continue
		}
		more := "more"
		if t.Diff < 0 {
			more = "less"
		}
		clear := fmt.Sprintf("%.0f ms %s %s on the critical path than %s", math.Abs(t.Diff), more, probe.CategoryTitle(t.Cat), c.Base)
		if unclear == nil {
			return "mostly " + clear
		}
		return fmt.Sprintf("its largest clear difference is %s (a larger one, %+.0f ms of %s, varies too much between loads to be sure)", clear, unclear.Diff, probe.CategoryTitle(unclear.Cat))
	}
	if unclear != nil {
		return fmt.Sprintf("where no critical-path category differs clearly from %s (the largest change, %+.0f ms of %s, varies too much between loads to be sure)", c.Base, unclear.Diff, probe.CategoryTitle(unclear.Cat))
	}
	return "where no critical-path category differs clearly from " + c.Base
}

// missingNote says which loads the counts leave out.
func (ans Answer) missingNote() string {
	var s string
	if ans.Missing > 0 {
		s += fmt.Sprintf(" %d of %d successful loads have no %s and are left out (absent, not zero).", ans.Missing, ans.Loads, ans.Metric)
	}
	for _, r := range ans.Refused {
		s += " Not given by " + r + "."
	}
	return s
}

// LoadAnswer is `spdylab load`'s answer for its cell: each protocol's
// gain in the chosen metric (SummarizeLoadsWith) against the baseline protocol (LoadSummary.CompareWith), in the
// order given.
func LoadAnswer(summaries []LoadSummary) string {
	ans := Answer{Metric: "PLT"}
	if len(summaries) > 0 {
		ans.Metric = summaries[0].metricTitle()
	}
	byProto := map[string]*LoadSummary{}
	for i := range summaries {
		byProto[summaries[i].Proto] = &summaries[i]
	}
	for _, s := range summaries {
		ans.Loads += len(s.PLTms)
		ans.Missing += len(s.PLTms) - len(s.vals)
		g := s.Against
		base := byProto[g.baseline()]
		if g == nil || base == nil {
			continue
		}
		ans.Variants = append(ans.Variants, s.Proto)
		cell := AnswerCell{Variant: s.Proto, Base: base.Proto, Where: s.Page, Gain: g.plt, Diff: stats.Median(s.vals) - stats.Median(base.vals)}
		if s.cp.Loads > 0 && base.cp.Loads > 0 {
			c := &Condition{Label: s.Proto, CritPath: s.cp, Value: stats.Summarize(s.vals)}
			b := &Condition{Label: base.Proto, CritPath: base.cp, Value: stats.Summarize(base.vals)}
			cell.Terms = explainCell(c, b, s.Page).Terms
		}
		ans.Cells = append(ans.Cells, cell)
	}
	if len(ans.Cells) == 0 {
		return ""
	}
	return ans.Paragraph()
}
