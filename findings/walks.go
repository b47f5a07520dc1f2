package findings

import (
	"fmt"
	"math"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/report"
)

// walkRows is one row per walk of a walks finding: per cell the gain at
// the walk's start and end with their intervals, and the step that
// carries the change (the largest move in gain) with the critical-path
// category that moved most at that step.
func walkRows(a *report.Analysis, base Row) []Row {
	var rows []Row
	index := map[string]int{}
	for _, t := range a.Walks {
		name := t.Walk.Name()
		i, ok := index[name]
		if !ok {
			r := base
			r.Part, r.Answer, r.Explain = name, nil, nil
			rows = append(rows, r)
			i = len(rows) - 1
			index[name] = i
		}
		ans, exp := walkCell(t)
		rows[i].Answer = append(rows[i].Answer, ans)
		if exp != "" {
			rows[i].Explain = append(rows[i].Explain, exp)
		}
	}
	return rows
}

func walkCell(t report.WalkTable) (answer, explain string) {
	first, last := t.Rows[0], t.Rows[len(t.Rows)-1]
	answer = fmt.Sprintf("%s: gain %s at %s → %s at %s", shortPage(t.Cell), rowGain(first), t.Walk.From, rowGain(last), t.Walk.To)
	var carrier *report.WalkRow
	for i := range t.Rows[1:] {
		r := &t.Rows[i+1]
		if math.IsNaN(r.Delta) {
			continue
		}
		if carrier == nil || math.Abs(r.Delta) > math.Abs(carrier.Delta) {
			carrier = r
		}
	}
	if carrier == nil {
		return answer, ""
	}
	explain = fmt.Sprintf("%s: step %s %s→%s moved the gain %+.2f", shortPage(t.Cell), carrier.Factor, carrier.From, carrier.To, carrier.Delta)
	if !math.IsNaN(carrier.Share) && !math.IsInf(carrier.Share, 0) {
		explain += fmt.Sprintf(" (%.0f%% of the walk's %+.2f)", 100*carrier.Share, t.Total)
	}
	if carrier.Moved != "" {
		explain += fmt.Sprintf("; there %s moved most (%+.0f ms)", probe.CategoryTitle(carrier.Moved), carrier.MovedMs)
	}
	return answer, explain
}

func rowGain(r report.WalkRow) string {
	if r.Variant == nil {
		return "?"
	}
	return gainVerdict(r.Variant)
}
