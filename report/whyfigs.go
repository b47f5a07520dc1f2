package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"

	"github.com/spdylab/spdylab/probe"
)

// The report's "Why" section: for the best, the worst and the median
// cell (by the metric's gain against the baseline), the critical path per variant
// as stacked bars; and every cell's sentence in a table.

// categoryColors colour probe.Categories in order: related categories in
// related hues (set-up warm, waiting grey and blue, receiving green).
var categoryColors = []string{
	"#009e73", "#e69f00", "#cc79a7", "#bbbbbb", "#f0e442", "#56b4e9", "#0072b2", "#3a6f9f",
	"#66c2a5", "#d55e00", "#fc8d62", "#8da0cb", "#e31a1c", "#b15928", "#1b9e77", "#6a3d9a", "#a6761d", "#666666",
}

// whyMaxRows caps the sentence table: a big study's cells are in
// `spdylab why`.
const whyMaxRows = 40

func whySection(a *Analysis) ([]figure, []table, error) {
	cells := Why(a, "")
	if len(cells) == 0 {
		return nil, nil, nil
	}
	var figs []figure
	for _, pick := range pickWhyCells(cells) {
		f, err := whyFigure(pick.name, pick.cell)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, f)
	}
	sort.SliceStable(cells, func(i, j int) bool {
		return math.Abs(cells[i].Cond.Value.Median-cells[i].Base.Value.Median) > math.Abs(cells[j].Cond.Value.Median-cells[j].Base.Value.Median)
	})
	t := table{Title: "Why each variant won or lost",
		Caption: "Per condition against its baseline twin, the critical path's categories: median over loads of the variant minus the baseline's, from the largest terms whose 95% bootstrap interval excludes zero (or that have too few loads for one). Largest changes of the report's metric first; `spdylab why OUT` prints every term with its interval.",
		Head:    []string{"cell", "variant", "gain", "why"}}
	for i, c := range cells {
		if i == whyMaxRows {
			break
		}
		t.Rows = append(t.Rows, []cell{{Text: c.Where}, {Text: c.Cond.Label}, gainCell(c.Cond.Gain), {Text: c.Sentence}})
	}
	return figs, []table{t}, nil
}

type whyPick struct {
	name string
	cell WhyCell
}

// pickWhyCells are the best, worst and median cells by gain (each
// once).
func pickWhyCells(cells []WhyCell) []whyPick {
	var ok []WhyCell
	for _, c := range cells {
		if !math.IsNaN(c.Cond.Gain) {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].Cond.Gain > ok[j].Cond.Gain })
	picks := []whyPick{{"best", ok[0]}, {"median", ok[len(ok)/2]}, {"worst", ok[len(ok)-1]}}
	var out []whyPick
	seen := map[*Condition]bool{}
	for _, p := range picks {
		if !seen[p.cell.Cond] {
			seen[p.cell.Cond] = true
			out = append(out, p)
		}
	}
	return out
}

// whyFigure is one cell's critical path per variant, as stacked bars of
// each category's median.
func whyFigure(name string, c WhyCell) (figure, error) {
	base, variant := c.Base.CritPath.Medians(), c.Cond.CritPath.Medians()
	var parts []Series
	var colors []string
	for i, cat := range probe.Categories {
		if base[cat] == 0 && variant[cat] == 0 {
			continue
		}
		parts = append(parts, Series{Name: cat, Y: []float64{base[cat], variant[cat]}})
		colors = append(colors, categoryColors[i%len(categoryColors)])
	}
	title := fmt.Sprintf("Critical path, %s cell (gain %.2f): %s", name, c.Cond.Gain, c.Where)
	svg, leg, err := stackedBars(title, "ms on the critical path (median per category)", []string{c.Base.Label, c.Cond.Label}, parts, colors)
	if err != nil {
		return figure{}, err
	}
	return figure{Title: "Why: the " + name + " cell", Caption: c.Sentence + " Each bar is one variant's critical path: the median over its loads of each category (so a bar's height is near, not exactly, its median of the report's metric).",
		SVG: template.HTML(svg), Legend: leg}, nil
}
