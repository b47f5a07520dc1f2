package report

// The walks' outputs: text (`spdylab report`), walks.csv, walks.json and
// the HTML tables. Each row is one step: the factor changed, the gain
// with its interval and verdict, the change in gain from the previous
// step, its share of the walk's whole change, and the critical-path
// category that moved most.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/spdylab/spdylab/probe"
)

// Files Build writes for a study with walks.
const (
	WalksCSVFile  = "walks.csv"
	WalksJSONFile = "walks.json"
)

// WalkOrderNote says once what the shares mean.
const WalkOrderNote = "Each step changes one factor of the walk's start towards its end; Δgain is the step's change in gain, " +
	"share its part of the whole change between the two presets. The shares depend on the order of the steps: a factor can matter " +
	"more or less once another has changed. \"Alone\" rows apply each change by itself to the start (Δgain against the start), the " +
	"order-free effect; their shares need not add up to 1. When the two ends' gains do not differ beyond the noise (their 95% intervals overlap; without intervals, gains less than 0.05 apart) there is nothing to split and no share is given."

// stepText names a step's change: "iw 3 → 10", or the start preset at step 0.
func (r WalkRow) stepText(t WalkTable) string {
	if r.Factor == "" {
		return "start: " + t.Walk.From
	}
	return fmt.Sprintf("%s %s → %s", r.Factor, r.From, r.To)
}

func (r WalkRow) gainText() string {
	if r.Variant == nil {
		return "–"
	}
	c := r.Variant
	return withInterval(c.Gain, c.GainCI.Lo, c.GainCI.Hi, c.GainCI.TooFew, 2, 1)
}

func (r WalkRow) verdict() Significance {
	if r.Variant == nil {
		return NoGain
	}
	return r.Variant.Significance
}

func (r WalkRow) movedText() string {
	if r.Moved == "" {
		return "–"
	}
	return fmt.Sprintf("%s %+.0f ms", probe.CategoryTitle(r.Moved), r.MovedMs)
}

func signed(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.*f", prec, x)
}

func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// WriteWalks prints every walk table as text (nothing without walks).
func WriteWalks(w io.Writer, tables []WalkTable) {
	if len(tables) == 0 {
		return
	}
	fmt.Fprintln(w, "Reconciliation walks. "+WalkOrderNote)
	for _, t := range tables {
		fmt.Fprintf(w, "\nwalk %s  (%s)\n", t.Walk.Name(), t.Cell)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  step\tchange\tvariant\tgain [95%]\tverdict\tΔgain\tshare\tmoved most on the critical path\t")
		for _, r := range t.Rows {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Step, r.stepText(t), variantLabel(r), r.gainText(), r.verdict(), signed(r.Delta, 2), pct(r.Share), r.movedText())
		}
		for _, r := range t.Alone {
			fmt.Fprintf(tw, "  alone\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.stepText(t), variantLabel(r), r.gainText(), r.verdict(), signed(r.Delta, 2), pct(r.Share), r.movedText())
		}
		tw.Flush()
		fmt.Fprintf(w, "  %s → %s: the gain changes by %s%s\n", t.Walk.From, t.Walk.To, signed(t.Total, 2), noSplit(t))
	}
}

// noSplit says why a walk has no shares ("" when it has them).
func noSplit(t WalkTable) string {
	if len(t.Rows) > 1 && math.IsNaN(t.Rows[len(t.Rows)-1].Share) && !math.IsNaN(t.Total) {
		return " (within the noise: the two presets agree, no shares)"
	}
	return ""
}

func variantLabel(r WalkRow) string {
	if r.Variant == nil {
		return "–"
	}
	return r.Variant.Label
}

// walkRowJSON is one row of walks.json (and, flattened, walks.csv). The
// names are read by users' scripts: keep them.
type walkRowJSON struct {
	From        string       `json:"walk_from"`
	To          string       `json:"walk_to"`
	Cell        string       `json:"cell"`
	Kind        string       `json:"kind"` // "step" or "alone"
	Step        int          `json:"step"`
	Factor      string       `json:"factor,omitempty"`
	FactorFrom  string       `json:"factor_from,omitempty"`
	FactorTo    string       `json:"factor_to,omitempty"`
	Hash        string       `json:"variant_hash,omitempty"`
	Variant     string       `json:"variant,omitempty"`
	Gain        *float64     `json:"gain"`
	GainLo      *float64     `json:"gain_lo"`
	GainHi      *float64     `json:"gain_hi"`
	Verdict     Significance `json:"significance,omitempty"`
	Delta       *float64     `json:"delta_gain"`
	Share       *float64     `json:"share"`
	TotalChange *float64     `json:"walk_total_change"`
	Moved       string       `json:"moved_category,omitempty"`
	MovedMs     *float64     `json:"moved_ms"`
}

func walksJSON(tables []WalkTable) []walkRowJSON {
	var out []walkRowJSON
	for _, t := range tables {
		add := func(kind string, r WalkRow) {
			j := walkRowJSON{From: t.Walk.From, To: t.Walk.To, Cell: t.Cell, Kind: kind, Step: r.Step, Factor: r.Factor, FactorFrom: r.From, FactorTo: r.To,
				Gain: num(r.Gain()), Delta: num(r.Delta), Share: num(r.Share), TotalChange: num(t.Total), Moved: r.Moved, MovedMs: num(r.MovedMs), Verdict: r.verdict()}
			if c := r.Variant; c != nil {
				j.Hash, j.Variant, j.GainLo, j.GainHi = c.Hash, c.Label, num(c.GainCI.Lo), num(c.GainCI.Hi)
			}
			out = append(out, j)
		}
		for _, r := range t.Rows {
			add("step", r)
		}
		for _, r := range t.Alone {
			add("alone", r)
		}
	}
	return out
}

func writeWalksCSV(w *bytes.Buffer, tables []WalkTable) error {
	cw := csv.NewWriter(w)
	head := []string{"walk_from", "walk_to", "cell", "kind", "step", "factor", "factor_from", "factor_to", "variant_hash", "variant",
		"gain", "gain_lo", "gain_hi", "significance", "delta_gain", "share", "walk_total_change", "moved_category", "moved_ms"}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(x *float64) string {
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'f', -1, 64)
	}
	for _, r := range walksJSON(tables) {
		rec := []string{r.From, r.To, r.Cell, r.Kind, strconv.Itoa(r.Step), r.Factor, r.FactorFrom, r.FactorTo, r.Hash, r.Variant,
			f(r.Gain), f(r.GainLo), f(r.GainHi), string(r.Verdict), f(r.Delta), f(r.Share), f(r.TotalChange), r.Moved, f(r.MovedMs)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// walkHTMLTables are the report's walk tables, one per walk and cell.
func walkHTMLTables(a *Analysis) []table {
	var out []table
	for i, t := range a.Walks {
		tb := table{Title: fmt.Sprintf("Walk %s (%s)", t.Walk.Name(), t.Cell),
			Head: []string{"step", "change", "variant", "gain [95%]", "verdict", "Δgain", "share", "moved most on the critical path"}}
		if i == 0 {
			tb.Caption = WalkOrderNote
		}
		row := func(step string, r WalkRow) []cell {
			g := cell{Text: r.gainText(), Class: significanceClass(r.verdict())}
			return []cell{{Text: step}, {Text: r.stepText(t)}, {Text: variantLabel(r)}, g, {Text: string(r.verdict())},
				{Text: signed(r.Delta, 2), Class: "num"}, {Text: pct(r.Share), Class: "num"}, {Text: r.movedText()}}
		}
		for _, r := range t.Rows {
			tb.Rows = append(tb.Rows, row(strconv.Itoa(r.Step), r))
		}
		for _, r := range t.Alone {
			tb.Rows = append(tb.Rows, row("alone", r))
		}
		tb.Rows = append(tb.Rows, []cell{{Text: "total"}, {Text: t.Walk.From + " → " + t.Walk.To}, {}, {}, {}, {Text: signed(t.Total, 2), Class: "num"}, {}, {}})
		out = append(out, tb)
	}
	return out
}
