package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// The loader's constants (its renderer costs above all) were fitted on
// some of the fidelity study's cells; judged on those same cells the
// loader looks better than it is. A study declares its calibration and
// validation sets (a [[matrix]] block's role, spec.Cond.Role), and this
// file gives the fidelity goal per set: the 10% goal is the validation
// set's, the calibration set's count is in sample.

// FidelitySet is the fidelity goal over one set of cells.
type FidelitySet struct {
	Role                 string // spec.RoleValidation, spec.RoleCalibration or "" (none declared)
	Cells, Within        int
	MeanAbsErrPct, Worst float64
}

// FidelitySets counts, per set, the cells within FidelityGoalPct:
// validation first, then calibration, then cells of no declared set.
func FidelitySets(cells []FidelityCell) []FidelitySet {
	var out []FidelitySet
	for _, role := range []string{spec.RoleValidation, spec.RoleCalibration, ""} {
		set := FidelitySet{Role: role}
		for _, c := range cells {
			if c.Role != role || math.IsNaN(c.ErrPct) {
				continue
			}
			e := math.Abs(c.ErrPct)
			set.MeanAbsErrPct = (set.MeanAbsErrPct*float64(set.Cells) + e) / float64(set.Cells+1)
			set.Worst = max(set.Worst, e)
			set.Cells++
			if e <= FidelityGoalPct {
				set.Within++
			}
		}
		if set.Cells > 0 {
			out = append(out, set)
		}
	}
	return out
}

// FidelityGoalLine says how many cells of each set are within the goal:
// "validation: 20 of 36 cells within 10%; calibration (in sample): ...".
func FidelityGoalLine(cells []FidelityCell) string {
	var parts []string
	for _, s := range FidelitySets(cells) {
		parts = append(parts, fmt.Sprintf("%s: %d of %d cells within %.0f%%", roleName(s.Role), s.Within, s.Cells, FidelityGoalPct))
	}
	if len(parts) == 0 {
		return "no cell with loads in both clients"
	}
	return strings.Join(parts, "; ")
}

// roleName is how the report names a set.
func roleName(role string) string {
	switch role {
	case spec.RoleCalibration:
		return "calibration (in sample)"
	case "":
		return "no set declared"
	}
	return role
}

// fidelityGoalTable is the goal per set, with what the renderer costs
// were fitted on.
func fidelityGoalTable(cells []FidelityCell) table {
	t := table{Title: "Fidelity goal: validation apart from calibration",
		Caption: fmt.Sprintf("%s. The goal (every cell within %.0f%% of Chromium's median of the metric) applies to the validation set: cells off what the loader was fitted on. The calibration set is what the loader's constants were fitted on, so its count is in sample. The chromium-modern profile's renderer costs (probe.LoaderRendererCosts) were fitted on %s; its paint cost (probe.ChromiumModernPaintCost, added to the loader's FCP and LCP) on the calibration cells of bench/studies/paint-fidelity.toml; a study without declared sets shows its cells as \"no set declared\".",
			FidelityGoalLine(cells), FidelityGoalPct, probe.ChromiumModernRendererFit),
		Head: []string{"set", "cells", "within " + fmt.Sprintf("%.0f%%", FidelityGoalPct), "mean |error| %", "worst |error| %"}}
	for _, s := range FidelitySets(cells) {
		cls := "good"
		if s.Within < s.Cells {
			cls = "bad"
		}
		t.Rows = append(t.Rows, []cell{{Text: roleName(s.Role)}, {Text: fmt.Sprint(s.Cells), Class: "num"},
			{Text: fmt.Sprintf("%d of %d", s.Within, s.Cells), Class: cls}, {Text: fmtNum(s.MeanAbsErrPct, 1), Class: "num"}, {Text: fmtNum(s.Worst, 1), Class: "num"}})
	}
	return t
}

// WriteFidelityGoal prints the goal per set for `spdylab report`'s text
// (nothing when the study has no fidelity cells).
func WriteFidelityGoal(w io.Writer, a *Analysis) {
	if len(a.FidelityCells) > 0 {
		fmt.Fprintf(w, "fidelity: %s\n", FidelityGoalLine(a.FidelityCells))
	}
}
