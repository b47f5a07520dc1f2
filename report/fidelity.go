package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// This file is the report's fidelity section: in a study that loads the
// same conditions with the loader and with a real browser, how far the
// loader's median of the chosen metric (PLT by default; FCP and LCP are
// the loader's estimates against Chromium's measurements) is from the
// browser's, cell by cell.

// FidelityGoalPct is the largest loader-vs-Chromium error (in % of
// Chromium's median) a cell may show to count as faithful.
const FidelityGoalPct = 10.0

// FidelityCell pairs one loader condition with the browser condition equal
// to it in every other respect.
type FidelityCell struct {
	Loader, Browser *Condition
	Profile         string  // the loader's browser profile
	Proto           string  // the protocol both loaded with
	LoaderMs        float64 // medians of the chosen metric
	BrowserMs       float64
	Ratio, Lo, Hi   float64 // loader / browser median and its 95% interval
	ErrPct          float64 // 100 * (Ratio - 1)
	// Role is the set the study declared the cell in (spec.RoleCalibration,
	// spec.RoleValidation; "" = none): fidelityroles.go.
	Role string
}

// FidelitySummary is one (profile, protocol, kind of page) row of the
// summary.
type FidelitySummary struct {
	Role                string // the cells' set (FidelityCell.Role)
	Profile, Proto      string
	Pages               string // pageKind of its cells
	Cells               int
	MeanAbsErrPct       float64
	WorstAbsErrPct      float64
	Worst               *FidelityCell
	WithinGoal, Outside int
}

// Fidelity pairs the study's loader and browser conditions (nothing when
// the study does not have both clients) and summarises the errors per
// browser profile and protocol.
func Fidelity(a *Analysis) ([]FidelityCell, []FidelitySummary) {
	samples := a.Values
	browsers := map[string]*Condition{}
	for _, c := range a.Conds {
		if cl, _ := probe.LookupClient(c.Client); cl.Browser {
			browsers[pairKey(c.Condition)] = c
		}
	}
	if len(browsers) == 0 {
		return nil, nil
	}
	var cells []FidelityCell
	for _, c := range a.Conds {
		if c.Client != "" {
			continue
		}
		b := browsers[pairKey(c.Condition)]
		if b == nil {
			continue
		}
		fc := FidelityCell{Loader: c, Browser: b, Profile: c.BrowserProfileName(), Proto: c.Proto,
			LoaderMs: stats.Median(samples[c.Hash]), BrowserMs: stats.Median(samples[b.Hash])}
		fc.Ratio, fc.Lo, fc.Hi = stats.MedianRatioCI95(samples[c.Hash], samples[b.Hash])
		fc.ErrPct = 100 * (fc.Ratio - 1)
		fc.Role = cmp.Or(c.Role, b.Role)
		cells = append(cells, fc)
	}
	return cells, summarizeFidelity(cells)
}

// pairKey is a condition without its client and browser profile.
func pairKey(c probe.Condition) string {
	c.Client, c.BrowserProfile = "", ""
	return spec.HashCondition(c)
}

func summarizeFidelity(cells []FidelityCell) []FidelitySummary {
	var out []FidelitySummary
	idx := map[string]int{}
	for i := range cells {
		c := &cells[i]
		if math.IsNaN(c.ErrPct) {
			continue
		}
		kind := pageKind(c.Loader.Page)
		k := c.Role + "\x00" + c.Profile + "\x00" + c.Proto + "\x00" + kind
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, FidelitySummary{Role: c.Role, Profile: c.Profile, Proto: c.Proto, Pages: kind})
		}
		s := &out[j]
		e := math.Abs(c.ErrPct)
		s.MeanAbsErrPct = (s.MeanAbsErrPct*float64(s.Cells) + e) / float64(s.Cells+1)
		s.Cells++
		if s.Worst == nil || e > s.WorstAbsErrPct {
			s.WorstAbsErrPct, s.Worst = e, c
		}
		if e <= FidelityGoalPct {
			s.WithinGoal++
		} else {
			s.Outside++
		}
	}
	return out
}

// Kinds of page the summary keeps apart: the loader is tuned on the study
// pages, and real pages (recordings replayed over their own hosts) are
// where a user meets it.
const (
	studyPages = "study pages"
	realPages  = "real pages"
)

func pageKind(spec string) string {
	if page.HasOwnHosts(spec) {
		return realPages
	}
	return studyPages
}

// protoClass names a protocol as the fidelity goal does (h1 for https).
func protoClass(p string) string {
	if p == probe.ProtoHTTPS {
		return "h1 (https)"
	}
	return p
}

// cellName describes a cell by the study's varied factors other than the
// client and profile.
func cellName(a *Analysis, c *Condition) string {
	var parts []string
	for _, f := range a.Study.Varied {
		if f == "client" || f == "browser_profile" || f == "protocol" {
			continue
		}
		parts = append(parts, f+"="+c.Values[f])
	}
	return strings.Join(parts, " ")
}

// fidelityTables is the report's fidelity section (none without both
// clients).
func fidelityTables(a *Analysis) []table {
	cells, sums := a.FidelityCells, a.FidelitySums
	if len(cells) == 0 {
		return nil
	}
	m := a.Metric.Title
	sum := table{Title: "Fidelity: loader vs Chromium (" + m + ")",
		Caption: fmt.Sprintf("%s. Per set (calibration: what the loader was fitted on; validation: off it), browser profile, protocol and kind of page (study pages; real pages replayed over their own hosts), the loader's error against real Chromium: |loader median %s / Chromium median %s - 1| over the cells, mean and worst, and how many cells are within the %.0f%% goal.", FidelityGoalLine(cells), m, m, FidelityGoalPct),
		Head:    []string{"set", "loader profile", "protocol", "pages", "cells", "mean |error| %", "worst |error| %", "worst cell", "within " + fmt.Sprintf("%.0f%%", FidelityGoalPct)}}
	for _, s := range sums {
		worst := ""
		if s.Worst != nil {
			worst = cellName(a, s.Worst.Loader)
		}
		cls := "good"
		if s.Outside > 0 {
			cls = "bad"
		}
		sum.Rows = append(sum.Rows, []cell{{Text: roleName(s.Role)}, {Text: s.Profile}, {Text: protoClass(s.Proto)}, {Text: s.Pages}, {Text: fmt.Sprint(s.Cells), Class: "num"},
			{Text: fmtNum(s.MeanAbsErrPct, 1), Class: "num"}, {Text: fmtNum(s.WorstAbsErrPct, 1), Class: "num"}, {Text: worst},
			{Text: fmt.Sprintf("%d of %d", s.WithinGoal, s.Cells), Class: cls}})
	}
	per := table{Title: "Fidelity per cell",
		Caption: "Median " + m + " of the loader (at each browser profile) and of Chromium in the same condition; ratio = loader / Chromium with its 95% bootstrap interval (internal/stats). Below 1 the loader is too fast.",
		Head:    []string{"set", "cell", "protocol", "loader profile", "loader ms", "Chromium ms", "ratio", "95% interval", "error %"}}
	for _, c := range cells {
		cls := "good"
		if math.IsNaN(c.ErrPct) || math.Abs(c.ErrPct) > FidelityGoalPct {
			cls = "bad"
		}
		per.Rows = append(per.Rows, []cell{{Text: roleName(c.Role)}, {Text: cellName(a, c.Loader)}, {Text: protoClass(c.Proto)}, {Text: c.Profile},
			{Text: fmtNum(c.LoaderMs, 0), Class: "num"}, {Text: fmtNum(c.BrowserMs, 0), Class: "num"},
			{Text: fmtNum(c.Ratio, 3), Class: "num"}, {Text: fmtNum(c.Lo, 3) + " – " + fmtNum(c.Hi, 3), Class: "num"},
			{Text: fmtNum(c.ErrPct, 1), Class: cls}})
	}
	tabs := append([]table{fidelityGoalTable(cells), sum, per}, fidelityCategoryTable(a)...) // fidelitywhy.go, fidelityroles.go
	return append(tabs, rendererTable(a)...)
}

// rendererTable shows the renderer costs measured per client, the numbers
// that calibrate the loader on this machine (renderer.go).
func rendererTable(a *Analysis) []table {
	if len(a.Renderer) == 0 {
		return nil
	}
	where := "every fidelity cell"
	if slices.ContainsFunc(a.FidelityCells, func(c FidelityCell) bool { return c.Role == spec.RoleCalibration }) {
		where = "the calibration cells only (fit there, judge on the validation cells)"
	}
	t := table{Title: "Renderer costs measured in this run",
		Caption: "Measured on " + where + ". From each client's HARs (loader.RendererCosts models them): commit = median time from the document's first byte to the first subresource request; dispatch = mean interval between subresource requests that waited for each other on a multiplexed protocol (Chromium sends them in batches, so the mean is its rate). Chromium's are CPU time on the machine that ran the study: give them to the loader with renderer_costs = \"COMMIT/DISPATCH\" (or spdylab load --renderer-costs).",
		Head:    []string{"client", "commit ms", "loads", "dispatch ms", "request pairs"}}
	for _, m := range a.Renderer {
		t.Rows = append(t.Rows, []cell{{Text: m.Client}, {Text: fmtNum(m.CommitMs, 1), Class: "num"}, {Text: fmt.Sprint(m.CommitLoads), Class: "num"},
			{Text: fmtNum(m.DispatchMs, 2), Class: "num"}, {Text: fmt.Sprint(m.Pairs), Class: "num"}})
	}
	return []table{t}
}
