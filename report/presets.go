package report

// The presets' gains: each preset of a study (one published setup) with
// its variants' gains per cell, so the setups can be read side by side
// before the walks split their differences.

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PresetRow is one variant of a preset in one cell.
type PresetRow struct {
	Preset  string
	Where   string // the cell: the page and the study's varied factors but the baseline's
	Variant *Condition
}

// PresetGains lists every preset's variants in study order.
func PresetGains(a *Analysis) []PresetRow {
	skip := map[string]bool{}
	for f := range a.Study.Baseline {
		skip[f] = true
	}
	shown := map[string]bool{"page": true}
	for _, f := range a.Study.Varied {
		if !skip[f] {
			shown[f] = true
		}
	}
	var out []PresetRow
	for _, p := range a.Study.Presets {
		for _, h := range p.Conds {
			if c := a.ByHash[h]; c != nil && !c.IsBaseline && c.BaseHash != "" {
				out = append(out, PresetRow{Preset: p.Name, Where: cellOf(c, shown), Variant: c})
			}
		}
	}
	return out
}

// WritePresets prints the presets' gains as text (nothing without presets).
func WritePresets(w io.Writer, rows []PresetRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "Presets: each setup's gain per cell")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  preset\tvariant\tgain [95%]\tverdict\tcell\t")
	for _, r := range rows {
		c := r.Variant
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\n", r.Preset, c.Label, withInterval(c.Gain, c.GainCI.Lo, c.GainCI.Hi, c.GainCI.TooFew, 2, 1), c.Significance, r.Where)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// presetTable is the HTML table of the presets' gains (none without presets).
func presetTable(a *Analysis) []table {
	rows := PresetGains(a)
	if len(rows) == 0 {
		return nil
	}
	t := table{Title: "Presets: each setup's gain", Caption: "One row per preset, variant and cell (the page and the preset's values of the factors the study varies).",
		Head: []string{"preset", "variant", "gain [95%]", "verdict", "cell"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []cell{{Text: r.Preset}, {Text: r.Variant.Label}, gainIntervalCell(r.Variant), {Text: string(r.Variant.Significance)}, {Text: r.Where}})
	}
	return []table{t}
}
