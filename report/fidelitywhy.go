package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// CategoryGap is one critical-path category's difference between the
// loader and Chromium in one fidelity cell: median over the loader's
// loads minus median over Chromium's (ms).
type CategoryGap struct {
	Cat   string
	GapMs float64
}

// CategoryGaps are a fidelity cell's gaps, largest first (nil when a
// side has no breakdowns).
func (c FidelityCell) CategoryGaps() []CategoryGap {
	lm, bm := c.Loader.CritPath.Medians(), c.Browser.CritPath.Medians()
	if lm == nil || bm == nil {
		return nil
	}
	var out []CategoryGap
	for _, cat := range probe.Categories {
		if g := lm[cat] - bm[cat]; g != 0 {
			out = append(out, CategoryGap{cat, g})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].GapMs) > math.Abs(out[j].GapMs) })
	return out
}

// fidelityCategoryTable names each fidelity cell's gap by category: where
// the loader's critical path spends more (+) or less (-) than Chromium's.
func fidelityCategoryTable(a *Analysis) []table {
	t := table{Title: "Fidelity per category",
		Caption: "Per cell, the critical-path categories where the loader and Chromium differ most: median over the loader's loads minus median over Chromium's, ms (+: the loader spends more). A gap that is all one category names what the loader models wrongly; Chromium's renderer work is not traced, so it shows as other client time.",
		Head:    []string{"cell", "protocol", "loader profile", "error %", "largest gaps (loader - Chromium, ms)"}}
	for _, c := range a.FidelityCells {
		gaps := c.CategoryGaps()
		if len(gaps) == 0 {
			continue
		}
		var parts []string
		for i, g := range gaps {
			if i == 3 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s %+.0f", g.Cat, g.GapMs))
		}
		t.Rows = append(t.Rows, []cell{{Text: cellName(a, c.Loader)}, {Text: protoClass(c.Proto)}, {Text: c.Profile},
			{Text: fmtNum(c.ErrPct, 1), Class: "num"}, {Text: strings.Join(parts, ", ")}})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []table{t}
}
