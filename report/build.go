package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/study"
)

// Files Build writes into an output directory.
const (
	HTMLFile = "report.html"
	CSVFile  = "conditions.csv"
	JSONFile = "conditions.json"
)

// Build rebuilds report.html, conditions.csv and conditions.json in dir
// from dir's store.
func Build(dir string) (*Analysis, error) {
	st, err := study.OpenStore(dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	a, err := Analyze(st)
	if err != nil {
		return nil, err
	}
	page, err := renderHTML(a, st)
	if err != nil {
		return nil, err
	}
	var csvBuf bytes.Buffer
	if err := writeCSV(&csvBuf, a); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(conditionsJSON(a), "", "  ")
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{HTMLFile: page, CSVFile: csvBuf.Bytes(), JSONFile: append(js, '\n')} {
		if err := atomicfile.Write(filepath.Join(dir, name), data); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// WriteWaterfall writes dir/waterfall-ID.html for one stored probe.
func WriteWaterfall(dir string, id int64) (string, error) {
	st, err := study.OpenStore(dir)
	if err != nil {
		return "", err
	}
	defer st.Close()
	p, err := st.ProbeByID(id)
	if err != nil {
		return "", err
	}
	svg, err := WaterfallSVG(p.Result.HAR, probeTitle(p))
	if err != nil {
		return "", fmt.Errorf("probe %d: %w", id, err)
	}
	out := filepath.Join(dir, fmt.Sprintf("waterfall-%d.html", id))
	doc := fmt.Sprintf("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body>%s</body></html>\n",
		template.HTMLEscapeString(probeTitle(p)), svg)
	return out, atomicfile.Write(out, []byte(doc))
}

func probeTitle(p study.Probe) string {
	r := p.Result
	c := r.Condition
	s := fmt.Sprintf("probe %d: %s, %s, %d shard(s), %s, rtt %s, loss %.2g%%, run %d",
		p.ID, c.Proto, c.Page, c.Shards, rateText(c.Link.DownBps, c.Link.UpBps), c.Link.RTT, 100*c.Link.LossDown, r.Run)
	if r.Failed {
		return s + " — FAILED: " + r.Error
	}
	return s + fmt.Sprintf(" — PLT %.0f ms, ToW %.0f ms", r.PLTms, r.ToWms)
}

func rateText(down, up int64) string {
	f := func(b int64) string {
		if b == 0 {
			return "∞"
		}
		return strconv.FormatFloat(float64(b)/1e6, 'g', 4, 64)
	}
	return f(down) + "/" + f(up) + " Mbit/s"
}

// conditionRow is one condition in conditions.json (and, flattened, CSV).
type conditionRow struct {
	Hash          string            `json:"hash"`
	Values        map[string]string `json:"values"`
	Label         string            `json:"variant"`
	Loads         int               `json:"loads"`
	Successful    int               `json:"successful"`
	Failed        int               `json:"failed"`
	TooFew        bool              `json:"too_few_loads"`
	PLTMedian     *float64          `json:"plt_median_ms"`
	PLTP25        *float64          `json:"plt_p25_ms"`
	PLTP75        *float64          `json:"plt_p75_ms"`
	ToWMedian     *float64          `json:"tow_median_ms"`
	ToWP25        *float64          `json:"tow_p25_ms"`
	ToWP75        *float64          `json:"tow_p75_ms"`
	Baseline      string            `json:"baseline_hash,omitempty"`
	Gain          *float64          `json:"gain"`
	ToWReduction  *float64          `json:"tow_reduction_pct"`
	Bound         *float64          `json:"lower_bound_ms"`
	PLTOverBound  *float64          `json:"plt_over_bound"`
	Gateway       Gateway           `json:"gateway_per_load"`
	Errors        []string          `json:"errors,omitempty"`
	CheckProblem  string            `json:"link_check_problem,omitempty"`
	MedianProbeID int64             `json:"median_probe_id,omitempty"`
}

func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func conditionsJSON(a *Analysis) []conditionRow {
	rows := make([]conditionRow, 0, len(a.Conds))
	for _, c := range a.Conds {
		rows = append(rows, conditionRow{
			Hash: c.Hash, Values: c.Values, Label: c.Label, Loads: c.Loads, Successful: c.PLT.N, Failed: c.Failed, TooFew: c.TooFew,
			PLTMedian: num(c.PLT.Median), PLTP25: num(c.PLT.P25), PLTP75: num(c.PLT.P75),
			ToWMedian: num(c.ToW.Median), ToWP25: num(c.ToW.P25), ToWP75: num(c.ToW.P75),
			Baseline: c.BaseHash, Gain: num(c.Gain), ToWReduction: num(c.ToWRedPct), Bound: num(c.BoundMs), PLTOverBound: num(c.PLTOverBound),
			Gateway: c.Gateway, Errors: c.Errors, CheckProblem: c.CheckProblem, MedianProbeID: c.MedianProbe,
		})
	}
	return rows
}

// conditionFactors are the factors every condition has a value for (a
// study's down/up are folded into rate).
func conditionFactors() []string {
	var out []string
	for _, f := range study.FactorNames() {
		if f != "down" && f != "up" {
			out = append(out, f)
		}
	}
	return out
}

func writeCSV(w *bytes.Buffer, a *Analysis) error {
	cw := csv.NewWriter(w)
	head := append([]string{"hash"}, conditionFactors()...)
	head = append(head, "variant", "loads", "successful", "failed", "too_few_loads",
		"plt_median_ms", "plt_p25_ms", "plt_p75_ms", "tow_median_ms", "tow_p25_ms", "tow_p75_ms",
		"gain", "tow_reduction_pct", "lower_bound_ms", "plt_over_bound",
		"queue_drops", "random_loss", "qdelay_p50_ms", "qdelay_p95_ms", "retransmits", "pkts_sent", "connections", "emulator_late_p99_ms", "median_probe_id")
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	for _, c := range a.Conds {
		rec := []string{c.Hash}
		for _, n := range conditionFactors() {
			rec = append(rec, c.Values[n])
		}
		g := c.Gateway
		rec = append(rec, c.Label, strconv.Itoa(c.Loads), strconv.Itoa(c.PLT.N), strconv.Itoa(c.Failed), strconv.FormatBool(c.TooFew),
			f(c.PLT.Median), f(c.PLT.P25), f(c.PLT.P75), f(c.ToW.Median), f(c.ToW.P25), f(c.ToW.P75),
			f(c.Gain), f(c.ToWRedPct), f(c.BoundMs), f(c.PLTOverBound),
			f(g.QueueDrops), f(g.RandomLoss), f(g.QDelayP50ms), f(g.QDelayP95ms), f(g.Retransmits), f(g.PktsSent), f(g.Connections), f(g.LateP99ms),
			strconv.FormatInt(c.MedianProbe, 10))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ---- HTML ----

type figure struct {
	Title   string
	Caption string
	SVG     template.HTML
	Legend  []legendItem
}

type table struct {
	Title   string
	Caption string
	Head    []string
	Rows    [][]cell
}

type cell struct {
	Text  string
	Class string // "good", "bad", "warn", "num"
	Style template.CSS
}

type htmlData struct {
	A         *Analysis
	Generated string
	Summary   []table
	Tables    []table
	Figures   []figure
	Waterfall []figure
	Conds     table
	Warnings  []string
}

func renderHTML(a *Analysis, st *study.Store) ([]byte, error) {
	d := htmlData{A: a, Generated: time.Now().UTC().Format("2006-01-02 15:04 MST")}
	if a.Stored < a.Expected {
		d.Warnings = append(d.Warnings, fmt.Sprintf("Incomplete: %d of %d probes stored (resume the run to finish).", a.Stored, a.Expected))
	}
	tooFew := 0
	for _, c := range a.Conds {
		if c.TooFew {
			tooFew++
		}
	}
	if tooFew > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d condition(s) have fewer than %d successful loads; their medians are marked ⚠ and are not to be trusted.", tooFew, a.MinLoads))
	}
	if w := a.LateWarning(); w != "" {
		d.Warnings = append(d.Warnings, w)
	}
	d.Summary = summaryTables(a)
	d.Tables = append(d.Tables, gainTables(a)...)
	figs, tabs, err := sweepFigures(a)
	if err != nil {
		return nil, err
	}
	d.Figures = append(d.Figures, figs...)
	d.Tables = append(d.Tables, tabs...)
	more, err := breakdownFigures(a)
	if err != nil {
		return nil, err
	}
	d.Figures = append(d.Figures, more...)
	d.Tables = append(d.Tables, gatewayTable(a), boundTable(a))
	d.Waterfall = waterfalls(a, st)
	d.Conds = conditionsTable(a)
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LateWarning says whether the link emulator ran late in any load and, when
// there are enough such loads to judge, whether that moved their page load
// times ("" when it never ran late). Late-emulator loads are kept: dropping
// them would bias the medians towards quiet moments of the machine.
func (a *Analysis) LateWarning() string {
	if a.LateLoads == 0 {
		return ""
	}
	w := fmt.Sprintf("In %d of %d loads (%.1f%%) the link emulator released packets more than %.0f ms late at the 99th percentile (worst %.1f ms): it was short of CPU.",
		a.LateLoads, a.OKLoads, 100*float64(a.LateLoads)/float64(max(a.OKLoads, 1)), LateLimitMs, a.LateWorstMs)
	switch {
	case a.LateLoads < LateJudgeMin:
		return w + " Too few such loads to tell whether it moved the results; a run at -j 1 would."
	case math.Abs(a.LateShiftPct) > LateShiftLimit:
		return w + fmt.Sprintf(" Those loads' PLTs lie a median %+.1f%% from their conditions' medians, so the shortage moved results: re-run with a lower -j.", a.LateShiftPct)
	}
	return w + fmt.Sprintf(" Those loads' PLTs lie a median %+.1f%% from their conditions' medians: no sign that it moved the results.", a.LateShiftPct)
}

func fmtNum(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func gainCell(g float64) cell {
	c := cell{Text: fmtNum(g, 2), Class: "num"}
	switch {
	case math.IsNaN(g):
	case g >= 1.05:
		c.Class += " good"
	case g < 0.95:
		c.Class += " bad"
	}
	return c
}

// variants returns the non-baseline labels.
func (a *Analysis) variants() []string {
	var out []string
	for _, l := range a.Labels {
		if l != a.BaseLabel {
			out = append(out, l)
		}
	}
	return out
}

func (a *Analysis) condsOf(label string) []*Condition {
	var out []*Condition
	for _, c := range a.Conds {
		if c.Label == label {
			out = append(out, c)
		}
	}
	return out
}

// summaryTables: per variant, the CableLabs summary (best, average, worst
// gain; cases with gain >= 1 and >= 2; pages A and B at 0% loss).
func summaryTables(a *Analysis) []table {
	t := table{Title: "Summary: gain against " + a.BaseLabel,
		Caption: "Gain = median PLT of the baseline / median PLT of the variant, per condition (CableLabs' definition); > 1 means the variant is faster. A case is one combination of the other factors.",
		Head:    []string{"variant", "cases", "best", "average", "worst", "gain ≥ 1", "gain ≥ 2", "page A at 0% loss (avg)", "page B at 0% loss (avg)"}}
	for _, l := range a.variants() {
		var gains []float64
		atZero := map[string][]float64{}
		for _, c := range a.condsOf(l) {
			if math.IsNaN(c.Gain) {
				continue
			}
			gains = append(gains, c.Gain)
			if c.Values["loss"] == "0%" {
				atZero[c.Values["page"]] = append(atZero[c.Values["page"]], c.Gain)
			}
		}
		avgAt := func(pg string) cell {
			if g := atZero[pg]; len(g) > 0 {
				return gainCell(mean(g))
			}
			return cell{Text: "–"}
		}
		if len(gains) == 0 {
			t.Rows = append(t.Rows, []cell{{Text: l}, {Text: "0"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}})
			continue
		}
		lo, hi := minMax(gains)
		n1, n2 := 0, 0
		for _, g := range gains {
			if g >= 1 {
				n1++
			}
			if g >= 2 {
				n2++
			}
		}
		t.Rows = append(t.Rows, []cell{{Text: l}, {Text: strconv.Itoa(len(gains)), Class: "num"}, gainCell(hi), gainCell(mean(gains)), gainCell(lo),
			{Text: fmt.Sprintf("%d of %d", n1, len(gains)), Class: "num"}, {Text: fmt.Sprintf("%d of %d", n2, len(gains)), Class: "num"}, avgAt("pageA"), avgAt("pageB")})
	}
	// The page A / B columns are CableLabs'; other studies do without.
	hasAB := false
	for _, p := range distinct(a, "page") {
		if p == "pageA" || p == "pageB" {
			hasAB = true
		}
	}
	if !hasAB {
		t.Head = t.Head[:len(t.Head)-2]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:len(t.Rows[i])-2]
		}
	}
	return []table{t}
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// gainTables are Study 1's tables: for each page x servers cell and each
// channel cell, the max, mean and min gain over the other factors, one
// table pair per variant. Only made when the study varies them.
func gainTables(a *Analysis) []table {
	varied := map[string]bool{}
	for _, v := range a.Study.Varied {
		varied[v] = true
	}
	var siteF, chanF []string
	for _, f := range []string{"page", "shards"} {
		if varied[f] {
			siteF = append(siteF, f)
		}
	}
	for _, f := range []string{"rate", "rtt", "loss", "queue"} {
		if varied[f] {
			chanF = append(chanF, f)
		}
	}
	var out []table
	for _, l := range a.variants() {
		for _, dims := range [][]string{siteF, chanF} {
			if len(dims) == 0 {
				continue
			}
			type agg struct {
				key  []string
				gain []float64
			}
			var order []string
			cells := map[string]*agg{}
			for _, c := range a.condsOf(l) {
				var key []string
				for _, f := range dims {
					key = append(key, c.Values[f])
				}
				k := strings.Join(key, "\x00")
				if cells[k] == nil {
					cells[k] = &agg{key: key}
					order = append(order, k)
				}
				if !math.IsNaN(c.Gain) {
					cells[k].gain = append(cells[k].gain, c.Gain)
				}
			}
			t := table{Title: fmt.Sprintf("Gain of %s over %s by %s", l, a.BaseLabel, strings.Join(dims, " × ")),
				Caption: "max, mean and min of the per-condition gains over every other factor",
				Head:    append(append([]string{}, dims...), "max", "mean", "min", "n")}
			for _, k := range order {
				ag := cells[k]
				row := []cell{}
				for _, v := range ag.key {
					row = append(row, cell{Text: v})
				}
				if len(ag.gain) == 0 {
					row = append(row, cell{Text: "–"}, cell{Text: "–"}, cell{Text: "–"}, cell{Text: "0", Class: "num"})
				} else {
					lo, hi := minMax(ag.gain)
					row = append(row, gainCell(hi), gainCell(mean(ag.gain)), gainCell(lo), cell{Text: strconv.Itoa(len(ag.gain)), Class: "num"})
				}
				t.Rows = append(t.Rows, row)
			}
			out = append(out, t)
		}
	}
	return out
}

// numericX maps a factor value to a plot coordinate.
func numericX(f, v string) (float64, bool) {
	switch f {
	case "rtt":
		d, err := time.ParseDuration(v)
		return float64(d) / float64(time.Millisecond), err == nil
	case "rate":
		down, _, _ := strings.Cut(v, "/")
		bps, err := study.ParseRateValue(down)
		return float64(bps) / 1e6, err == nil && bps > 0
	case "loss":
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		return x, err == nil
	case "iw", "shards", "max_streams", "initial_window":
		x, err := strconv.Atoi(v)
		return float64(x), err == nil
	}
	return 0, false
}

var axisName = map[string]string{
	"rtt": "RTT (ms)", "rate": "down rate (Mbit/s, log)", "loss": "random loss (%)", "iw": "server initcwnd (segments)",
	"shards": "servers (shards)", "max_streams": "SPDY max concurrent streams", "initial_window": "initial stream window (bytes)",
}

// sweepFigures: for every numeric factor the study varies, the % reduction
// in ToW and the median PLT against it, one line per page and variant (the
// other factors averaged when there are too many combinations). Plus the
// streams x RTT heatmap and the m-vs-r regression when streams vary.
func sweepFigures(a *Analysis) ([]figure, []table, error) {
	var figs []figure
	var tabs []table
	for _, f := range a.Study.Varied {
		if _, ok := axisName[f]; !ok {
			continue
		}
		if _, isBase := a.Study.Baseline[f]; isBase {
			continue
		}
		// Lines: page x variant x (the other varied factors) when that is
		// few, else page x variant with the others averaged.
		var others []string
		for _, g := range a.Study.Varied {
			if _, isBase := a.Study.Baseline[g]; g != f && g != "page" && !isBase {
				others = append(others, g)
			}
		}
		lineKey := func(c *Condition, withOthers bool) string {
			k := c.Values["page"]
			if len(a.variants()) > 1 {
				k += " " + c.Label
			}
			if withOthers {
				for _, g := range others {
					k += " " + g + "=" + c.Values[g]
				}
			}
			return k
		}
		keys := map[string]bool{}
		for _, c := range a.Conds {
			keys[lineKey(c, true)] = true
		}
		withOthers := len(keys) <= 8*max(1, len(a.variants()))
		note := ""
		if !withOthers && len(others) > 0 {
			note = " (mean over " + strings.Join(others, ", ") + ")"
		}
		type pt struct{ sum, n float64 }
		red := map[string]map[float64]*pt{}
		plt := map[string]map[float64]*pt{}
		add := func(m map[string]map[float64]*pt, k string, x, y float64) {
			if math.IsNaN(y) {
				return
			}
			if m[k] == nil {
				m[k] = map[float64]*pt{}
			}
			if m[k][x] == nil {
				m[k][x] = &pt{}
			}
			m[k][x].sum += y
			m[k][x].n++
		}
		for _, c := range a.Conds {
			x, ok := numericX(f, c.Values[f])
			if !ok {
				continue
			}
			k := lineKey(c, withOthers)
			if !c.IsBaseline {
				add(red, k, x, c.ToWRedPct)
			}
			pk := c.Values["page"] + " " + c.Label
			if withOthers {
				for _, g := range others {
					pk += " " + g + "=" + c.Values[g]
				}
			}
			add(plt, pk, x, c.PLT.Median)
		}
		toSeries := func(m map[string]map[float64]*pt) []Series {
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			var out []Series
			for _, k := range names {
				s := Series{Name: k}
				for x, p := range m[k] {
					s.X = append(s.X, x)
					s.Y = append(s.Y, p.sum/p.n)
				}
				out = append(out, s)
			}
			return out
		}
		// A log axis only pays when the rates span a decade or more.
		logX := false
		if f == "rate" {
			var xs []float64
			for _, c := range a.Conds {
				if x, ok := numericX(f, c.Values[f]); ok {
					xs = append(xs, x)
				}
			}
			if lo, hi := minMax(xs); len(xs) > 0 && hi >= 10*lo {
				logX = true
			}
		}
		xName := axisName[f]
		if f == "rate" && !logX {
			xName = "down rate (Mbit/s)"
		}
		if len(red) > 0 {
			svg, leg, err := linePlot("Reduction in time on wire vs "+f+note, xName, "ToW reduction vs "+a.BaseLabel+" (%)", toSeries(red), logX, true)
			if err != nil {
				return nil, nil, err
			}
			figs = append(figs, figure{Title: "ToW reduction vs " + f, Caption: "100 × (ToW_base − ToW) / ToW_base of the medians; above the dashed line the variant spends less time on the wire.", SVG: template.HTML(svg), Legend: leg})
		}
		svg, leg, err := linePlot("Median page load time vs "+f+note, xName, "median PLT (ms)", toSeries(plt), logX, false)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, figure{Title: "PLT vs " + f, SVG: template.HTML(svg), Legend: leg})
	}
	varied := map[string]bool{}
	for _, v := range a.Study.Varied {
		varied[v] = true
	}
	if varied["max_streams"] {
		if varied["rtt"] {
			tabs = append(tabs, heatmaps(a)...)
		}
		fig, t, err := streamsRegression(a)
		if err != nil {
			return nil, nil, err
		}
		if fig != nil {
			figs = append(figs, *fig)
		}
		tabs = append(tabs, t)
	}
	return figs, tabs, nil
}

// heatmaps: ToW reduction per max streams (rows) x RTT (columns), one per
// page, as a coloured table.
func heatmaps(a *Analysis) []table {
	var out []table
	pages := distinct(a, "page")
	rtts := distinct(a, "rtt")
	streams := distinct(a, "max_streams")
	sortNumeric("rtt", rtts)
	sortNumeric("max_streams", streams)
	for _, pg := range pages {
		t := table{Title: "ToW reduction (%) of SPDY by max streams × RTT: " + pg,
			Caption: "green: SPDY spends less time on the wire than " + a.BaseLabel + "; red: more",
			Head:    append([]string{"max streams"}, rtts...)}
		for _, s := range streams {
			row := []cell{{Text: s}}
			for _, r := range rtts {
				v := math.NaN()
				for _, c := range a.Conds {
					if c.Values["page"] == pg && c.Values["rtt"] == r && c.Values["max_streams"] == s && !c.IsBaseline && !math.IsNaN(c.ToWRedPct) {
						v = c.ToWRedPct
					}
				}
				row = append(row, cell{Text: fmtNum(v, 1), Class: "num", Style: heatColor(v)})
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

func heatColor(v float64) template.CSS {
	if math.IsNaN(v) {
		return ""
	}
	x := math.Max(-1, math.Min(1, v/50))
	if x >= 0 {
		return template.CSS(fmt.Sprintf("background: rgba(0,158,115,%.2f)", 0.1+0.8*x))
	}
	return template.CSS(fmt.Sprintf("background: rgba(213,94,0,%.2f)", 0.1+0.8*-x))
}

func distinct(a *Analysis, f string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range a.Conds {
		if v := c.Values[f]; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func sortNumeric(f string, v []string) {
	sort.SliceStable(v, func(i, j int) bool {
		x, _ := numericX(f, v[i])
		y, _ := numericX(f, v[j])
		return x < y
	})
}

// streamsRegression finds, per page and RTT, the smallest max_streams m at
// which SPDY's median ToW beats the baseline's, and fits m = a + b r
// against the page's resource count r by least squares.
func streamsRegression(a *Analysis) (*figure, table, error) {
	t := table{Title: "Streams SPDY needs to beat " + a.BaseLabel + " (m) against resources (r)",
		Caption: "m = smallest max concurrent streams whose median ToW is below the baseline's; – = never within the tested range",
		Head:    []string{"page", "resources r", "rtt", "m"}}
	byPage := map[string][]*Condition{}
	for _, c := range a.Conds {
		if !c.IsBaseline {
			byPage[c.Values["page"]] = append(byPage[c.Values["page"]], c)
		}
	}
	var xs, ys []float64
	var pts []Series
	for _, pg := range distinct(a, "page") {
		cs := byPage[pg]
		byRTT := map[string][]*Condition{}
		for _, c := range cs {
			byRTT[c.Values["rtt"]] = append(byRTT[c.Values["rtt"]], c)
		}
		rtts := distinct(a, "rtt")
		sortNumeric("rtt", rtts)
		s := Series{Name: pg}
		for _, rtt := range rtts {
			list := byRTT[rtt]
			sort.Slice(list, func(i, j int) bool {
				x, _ := numericX("max_streams", list[i].Values["max_streams"])
				y, _ := numericX("max_streams", list[j].Values["max_streams"])
				return x < y
			})
			m := math.NaN()
			r := 0
			for _, c := range list {
				r = max(r, c.Resources)
				if !math.IsNaN(c.ToWRedPct) && c.ToWRedPct > 0 {
					m, _ = numericX("max_streams", c.Values["max_streams"])
					break
				}
			}
			t.Rows = append(t.Rows, []cell{{Text: pg}, {Text: strconv.Itoa(r), Class: "num"}, {Text: rtt}, {Text: fmtNum(m, 0), Class: "num"}})
			if !math.IsNaN(m) && r > 0 {
				xs, ys = append(xs, float64(r)), append(ys, m)
				s.X, s.Y = append(s.X, float64(r)), append(s.Y, m)
			}
		}
		pts = append(pts, s)
	}
	if len(xs) == 0 {
		return nil, t, nil
	}
	ia, ib, ok := leastSquares(xs, ys)
	if ok {
		t.Caption += fmt.Sprintf(". Fit: m = %.2f + %.4f × r over %d points.", ia, ib, len(xs))
	}
	svg, leg, err := scatterFit("Streams needed to beat "+a.BaseLabel+" vs page resources", "resources in the page (r)", "max streams needed (m)", pts, ia, ib, ok)
	if err != nil {
		return nil, t, err
	}
	return &figure{Title: "m vs r", Caption: "one point per page and RTT; dashed: least-squares fit", SVG: template.HTML(svg), Legend: leg}, t, nil
}

// leastSquares fits y = a + b x; ok is false when x has no spread.
func leastSquares(x, y []float64) (a, b float64, ok bool) {
	n := float64(len(x))
	mx, my := mean(x), mean(y)
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if n < 2 || sxx == 0 {
		return my, 0, false
	}
	b = sxy / sxx
	return my - b*mx, b, true
}

// breakdownFigures: HAR phase bars per variant and PLT CDFs per variant.
func breakdownFigures(a *Analysis) ([]figure, error) {
	var figs []figure
	names := []string{"blocked", "dns", "connect", "ssl", "send", "wait", "receive"}
	parts := make([]Series, len(names))
	for i, n := range names {
		parts[i].Name = n
	}
	var cats []string
	var cdf []Series
	for _, l := range a.Labels {
		var sum [7]float64
		n := 0.0
		var plts []float64
		for _, c := range a.condsOf(l) {
			if c.PLT.N == 0 {
				continue
			}
			p := c.Phases
			for i, v := range []float64{p.Blocked, p.DNS, p.Connect - p.SSL, p.SSL, p.Send, p.Wait, p.Receive} {
				sum[i] += math.Max(v, 0)
			}
			n++
		}
		for _, p := range a.Probes {
			c := a.ByHash[p.CondHash]
			if c != nil && c.Label == l && !p.Result.Failed {
				plts = append(plts, p.Result.PLTms)
			}
		}
		if n == 0 {
			continue
		}
		cats = append(cats, l)
		for i := range parts {
			parts[i].Y = append(parts[i].Y, sum[i]/n)
		}
		cdf = append(cdf, Series{Name: fmt.Sprintf("%s (%d loads)", l, len(plts)), X: plts})
	}
	if len(cats) == 0 {
		return nil, nil
	}
	var colors []string
	for _, pc := range phaseColors {
		colors = append(colors, pc.color)
	}
	svg, leg, err := stackedBars("HAR phases per load, summed over requests (mean over conditions)", "ms (summed over all requests)", cats, parts, colors)
	if err != nil {
		return nil, err
	}
	figs = append(figs, figure{Title: "Phase breakdown", Caption: "Each load's HAR timings summed over its requests, averaged over the conditions. connect excludes ssl (HAR counts ssl inside connect). Multiplexing trades connect/ssl for wait.", SVG: template.HTML(svg), Legend: leg})
	svg, leg, err = cdfPlot("Page load time, all successful loads", "PLT (ms)", cdf)
	if err != nil {
		return nil, err
	}
	figs = append(figs, figure{Title: "PLT CDF", Caption: "every successful load of every condition, by variant", SVG: template.HTML(svg), Legend: leg})
	return figs, nil
}

func gatewayTable(a *Analysis) table {
	t := table{Title: "Gateway and TCP counters per load",
		Caption: "Means over conditions of per-load means: packets the bottleneck's droptail queue dropped and the random loss it applied (both directions), downlink queueing delay, retransmissions counted by the client's TCP sockets (TCP_INFO on the loader's side), packets offered to the bottleneck, connections opened, and the emulator's own timing error (99th percentile of how late it released packets; well under 1 ms when the emulator had the CPU it needed).",
		Head:    []string{"variant", "queue drops", "random loss", "qdelay p50 (ms)", "qdelay p95 (ms)", "retransmits", "packets sent", "connections", "emulator late p99 (ms)"}}
	for _, l := range a.Labels {
		var g Gateway
		n := 0.0
		for _, c := range a.condsOf(l) {
			if c.PLT.N == 0 {
				continue
			}
			x := c.Gateway
			g.QueueDrops += x.QueueDrops
			g.RandomLoss += x.RandomLoss
			g.QDelayP50ms += x.QDelayP50ms
			g.QDelayP95ms += x.QDelayP95ms
			g.Retransmits += x.Retransmits
			g.PktsSent += x.PktsSent
			g.Connections += x.Connections
			g.LateP99ms += x.LateP99ms
			n++
		}
		if n == 0 {
			continue
		}
		row := []cell{{Text: l}}
		for _, v := range []float64{g.QueueDrops, g.RandomLoss, g.QDelayP50ms, g.QDelayP95ms, g.Retransmits, g.PktsSent, g.Connections} {
			row = append(row, cell{Text: fmtNum(v/n, 1), Class: "num"})
		}
		lateCell := cell{Text: fmtNum(g.LateP99ms/n, 2), Class: "num"}
		if g.LateP99ms/n > LateLimitMs {
			lateCell.Class += " bad"
		}
		row = append(row, lateCell)
		t.Rows = append(t.Rows, row)
	}
	return t
}

func boundTable(a *Analysis) table {
	t := table{Title: "Distance from the lower bound",
		Caption: "bound = max(chain, volume): setup RTTs (DNS if on, TCP 1, TLS 1.2: 2 / 1.3: 1), then one RTT per level of the longest discovery chain plus the bytes each step waits for at the down rate; or setup + 1 RTT + all bytes at the down rate. No protocol can load the page faster. PLT / bound: 1 is perfect.",
		Head:    []string{"variant", "conditions", "median PLT / bound (mean)", "best", "worst"}}
	for _, l := range a.Labels {
		var r []float64
		for _, c := range a.condsOf(l) {
			if !math.IsNaN(c.PLTOverBound) {
				r = append(r, c.PLTOverBound)
			}
		}
		if len(r) == 0 {
			continue
		}
		lo, hi := minMax(r)
		t.Rows = append(t.Rows, []cell{{Text: l}, {Text: strconv.Itoa(len(r)), Class: "num"}, {Text: fmtNum(mean(r), 2), Class: "num"}, {Text: fmtNum(lo, 2), Class: "num"}, {Text: fmtNum(hi, 2), Class: "num"}})
	}
	return t
}

// waterfalls: the median load of each variant on the study's first bench
// group that has loads for every variant.
func waterfalls(a *Analysis, st *study.Store) []figure {
	var out []figure
	for _, g := range study.Groups(a.Study) {
		ok := true
		for _, c := range g.Conds {
			if a.ByHash[c.Hash].MedianProbe == 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, c := range g.Conds {
			p, err := st.ProbeByID(a.ByHash[c.Hash].MedianProbe)
			if err != nil {
				continue
			}
			svg, err := WaterfallSVG(p.Result.HAR, probeTitle(p))
			if err != nil {
				out = append(out, figure{Title: "waterfall", Caption: err.Error()})
				continue
			}
			out = append(out, figure{Title: probeTitle(p), SVG: template.HTML(svg)})
		}
		break
	}
	return out
}

func conditionsTable(a *Analysis) table {
	var cols []string
	for _, f := range a.Study.Varied {
		cols = append(cols, f)
	}
	t := table{Title: "All conditions",
		Caption: fmt.Sprintf("Medians over successful loads with [p25 – p75]. ⚠ = fewer than %d successful loads. Probe ids link to `spdylab report DIR --waterfall ID`.", a.MinLoads),
		Head:    append(append([]string{}, cols...), "loads", "failed", "PLT ms", "ToW ms", "gain", "ToW red. %", "bound ms", "PLT/bound", "median probe")}
	for _, c := range a.Conds {
		row := []cell{}
		for _, f := range cols {
			row = append(row, cell{Text: c.Values[f]})
		}
		warn := ""
		if c.TooFew {
			warn = " ⚠"
		}
		failed := cell{Text: strconv.Itoa(c.Failed), Class: "num"}
		if c.Failed > 0 {
			failed.Class += " bad"
			failed.Text += " (" + strings.Join(c.Errors, "; ") + ")"
		}
		if c.CheckProblem != "" {
			warn += " (link check: " + c.CheckProblem + ")"
		}
		row = append(row,
			cell{Text: strconv.Itoa(c.Loads), Class: "num"}, failed,
			cell{Text: fmt.Sprintf("%s [%s – %s]%s", fmtNum(c.PLT.Median, 0), fmtNum(c.PLT.P25, 0), fmtNum(c.PLT.P75, 0), warn), Class: "num"},
			cell{Text: fmt.Sprintf("%s [%s – %s]", fmtNum(c.ToW.Median, 0), fmtNum(c.ToW.P25, 0), fmtNum(c.ToW.P75, 0)), Class: "num"},
			gainCell(c.Gain), cell{Text: fmtNum(c.ToWRedPct, 1), Class: "num"},
			cell{Text: fmtNum(c.BoundMs, 0), Class: "num"}, cell{Text: fmtNum(c.PLTOverBound, 2), Class: "num"},
			cell{Text: strconv.FormatInt(c.MedianProbe, 10), Class: "num"})
		t.Rows = append(t.Rows, row)
	}
	return t
}

var pageTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>spdylab: {{.A.Study.Name}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em} h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.85em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
td.good{background:#e3f4ea} td.bad{background:#fbe4dc}
.warn{background:#fff4d6;border:1px solid #e0c36a;padding:.5em 1em;margin:.5em 0}
.cap{color:#555;font-size:.85em;margin:.2em 0}
figure{margin:1em 0}
.legend{font-size:.8em;margin:.2em 0 .4em;columns:2;max-width:700px}
.legend span.sw{display:inline-block;width:18px;height:4px;margin:0 6px 3px 0;vertical-align:middle}
.legend span.box{height:10px;width:10px;margin-bottom:0}
.legend span.dash{background-image:linear-gradient(90deg,transparent 60%,#fff 60%) !important;background-size:9px 4px}
.meta td{border:none;padding:.1em .8em .1em 0}
</style></head><body>
<h1>spdylab study: {{.A.Study.Name}}</h1>
<p>{{.A.Study.Description}}</p>
{{if .A.Study.Note}}<p class="cap"><b>Note:</b> {{.A.Study.Note}}</p>{{end}}
<table class="meta">
<tr><td>conditions</td><td>{{len .A.Conds}} ({{.A.Study.Runs}} loads each, baseline {{.A.BaseLabel}})</td></tr>
<tr><td>probes stored</td><td>{{.A.Stored}} attempts for {{.A.Expected}} planned loads</td></tr>
<tr><td>study fingerprint</td><td>{{.A.Meta.Fingerprint}} (seed {{.A.Meta.Seed}})</td></tr>
{{range .A.Sessions}}<tr><td>run</td><td>{{.Started.UTC.Format "2006-01-02 15:04:05 MST"}} on {{.Hostname}}, {{.Kernel}}, {{.Go}}, spdylab {{.Revision}}, -j {{.Jobs}}{{if .Shard}}, shard {{.Shard}}{{end}}</td></tr>{{end}}
<tr><td>report built</td><td>{{.Generated}}</td></tr>
</table>
{{range .Warnings}}<div class="warn">{{.}}</div>{{end}}
{{define "table"}}<h3>{{.Title}}</h3>{{if .Caption}}<p class="cap">{{.Caption}}</p>{{end}}
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}{{if .Style}} style="{{.Style}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>{{end}}
<h2>Summary</h2>
{{range .Summary}}{{template "table" .}}{{end}}
{{if .Figures}}<h2>Plots</h2>{{end}}
{{range .Figures}}<figure><h3>{{.Title}}</h3>{{.SVG}}{{if .Legend}}<div class="legend">{{range .Legend}}<div><span class="sw {{.Shape}}" style="background:{{.Color}}"></span>{{.Name}}</div>{{end}}</div>{{end}}{{if .Caption}}<figcaption class="cap">{{.Caption}}</figcaption>{{end}}</figure>{{end}}
<h2>Tables</h2>
{{range .Tables}}{{template "table" .}}{{end}}
{{if .Waterfall}}<h2>Waterfalls (median loads)</h2>{{end}}
{{range .Waterfall}}<figure>{{if .SVG}}{{.SVG}}{{else}}<p class="cap">{{.Title}}: {{.Caption}}</p>{{end}}</figure>{{end}}
<h2>Conditions</h2>
{{template "table" .Conds}}
<p class="cap">Also in conditions.csv and conditions.json next to this file. Rebuild with <code>spdylab report DIR</code>.</p>
</body></html>
`))
