package report

// HTML rendering: the page template and the cells, tables and figures it
// shows.

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/store"
)

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
	// IntervalNote states how the gains' intervals are computed and read.
	IntervalNote string
	// Answer opens the report (AnswerOf), MetricNote below it says what
	// the metric leaves out (Analysis.MetricNote).
	Answer, MetricNote string
}

func renderHTML(a *Analysis, st *store.Store) ([]byte, error) {
	d := htmlData{A: a, Generated: time.Now().UTC().Format("2006-01-02 15:04 MST"), IntervalNote: IntervalNote(),
		Answer: AnswerOf(a).Paragraph(), MetricNote: a.MetricNote()}
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
	d.Summary = append(d.Summary, fidelityTables(a)...) // fidelity.go: only with both clients
	d.Tables = append(d.Tables, presetTable(a)...)      // presets.go: each preset's gains
	d.Tables = append(d.Tables, walkHTMLTables(a)...)   // walkout.go: the reconciliation walks
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
	whyFigs, whyTabs, err := whySection(a) // whyfigs.go: the critical paths
	if err != nil {
		return nil, err
	}
	d.Figures = append(d.Figures, whyFigs...)
	sweepWhy, err := whySweepFigures(a) // whysweeps.go
	if err != nil {
		return nil, err
	}
	d.Figures = append(d.Figures, sweepWhy...)
	d.Tables = append(d.Tables, whyTabs...)
	pageFigs, pageTabs, err := pageViews(a) // per-page views (pages.go)
	if err != nil {
		return nil, err
	}
	d.Figures = append(d.Figures, pageFigs...)
	d.Tables = append(d.Tables, pageTabs...)
	d.Tables = append(d.Tables, gatewayTable(a), boundTable(a))
	d.Tables = append(d.Tables, sctpTables(a)...) // SPDY over SCTP vs TCP (sctp.go)
	d.Waterfall = waterfalls(a, st)
	d.Conds = conditionsTable(a)
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LateWarning says whether any load ran short of CPU (its link emulator
// late, its endpoints waiting for a CPU) and, when there are enough such
// loads to judge, whether that moved their page load times ("" when none
// did). Late loads are kept: dropping them would bias the medians towards
// quiet moments of the machine.
func (a *Analysis) LateWarning() string {
	if a.LateLoads == 0 {
		return ""
	}
	var why []string
	if a.LinkLateLoads > 0 {
		why = append(why, fmt.Sprintf("the link emulator released packets more than %.0f ms late at the 99th percentile in %d (worst %.1f ms): it was short of CPU, or the host held its virtual CPUs back",
			LateLimitMs, a.LinkLateLoads, a.LateWorstMs))
	}
	if a.WaitLoads > 0 {
		why = append(why, fmt.Sprintf("the loader's and servers' goroutines waited more than %.0f ms for a CPU at the 99th percentile in %d (worst %.1f ms): too many testbeds for the cores",
			stats.WaitLimitMs, a.WaitLoads, a.WaitWorstMs))
	}
	w := fmt.Sprintf("In %d of %d loads (%.1f%%) the testbed ran short of CPU: %s.",
		a.LateLoads, a.OKLoads, 100*float64(a.LateLoads)/float64(max(a.OKLoads, 1)), strings.Join(why, "; "))
	sh := a.LateShift
	switch {
	case sh.Pairs < LateJudgeMin:
		return w + fmt.Sprintf(" Too few of them (%d) beside two on-time loads of their conditions to tell whether it moved the results; a run at -j 1 or with more loads would.", sh.Pairs)
	case !sh.Covers():
		return w + fmt.Sprintf(" %d of them had fewer than two on-time loads of their condition beside them (conditions late throughout, typically the heaviest pages), more than %.0f%% of the late loads: the others' shift, %s, does not speak for them, so a run at a lower -j would tell whether it moved the results.",
			sh.Unpaired, 100*stats.UnpairedShareLimit, sh)
	case sh.Harmful():
		return w + fmt.Sprintf(" Those loads' PLTs lie a median %s from the on-time loads of their conditions, so the lateness moved results: re-run with a lower -j, or on a quieter machine if that does not help.", sh)
	case math.Abs(sh.Pct) > LateShiftLimit:
		return w + fmt.Sprintf(" Those loads' PLTs lie a median %s from the on-time loads of their conditions: beyond %.0f%%, but within twice the standard error of no shift at all, so these loads cannot tell whether it moved the results; more loads would.", sh, LateShiftLimit)
	}
	return w + fmt.Sprintf(" Those loads' PLTs lie a median %s from the on-time loads of their conditions: no sign that it moved the results.", sh)
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
p.answer{font-size:1.1em;margin:.6em 0 1em}
</style></head><body>
<h1>spdylab study: {{.A.Study.Name}}</h1>
<p class="answer" id="answer">{{.Answer}}</p>
{{with .MetricNote}}<p class="cap">{{.}}</p>{{end}}
<p>{{.A.Study.Description}}</p>
{{if .A.Study.Note}}<p class="cap"><b>Note:</b> {{.A.Study.Note}}</p>{{end}}
<table class="meta">
<tr><td>conditions</td><td>{{len .A.Conds}} ({{.A.Study.Runs}} loads each, baseline {{.A.BaseLabel}})</td></tr>
{{with .A.AutoRunsLine}}<tr><td>runs</td><td>{{.}}</td></tr>{{end}}
<tr><td>probes stored</td><td>{{.A.Stored}} attempts for {{.A.Expected}} planned loads</td></tr>
<tr><td>study fingerprint</td><td>{{.A.Meta.Fingerprint}} (seed {{.A.Meta.Seed}})</td></tr>
{{range .A.Sessions}}<tr><td>run</td><td>{{.Started.UTC.Format "2006-01-02 15:04:05 MST"}} on {{.Hostname}}, {{.Kernel}}, {{.Go}}, spdylab {{.Revision}}, -j {{.Jobs}}{{if .JobsAuto}} ({{.JobsAuto}}){{end}}{{if .Shard}}, shard {{.Shard}}{{end}}</td></tr>
{{with .Machine}}{{if .CPUs}}<tr><td>machine</td><td>{{.CPUModel}}, {{.CPUs}} CPUs, {{.MemMiB}} MiB, load {{printf "%.2f %.2f %.2f" (index .LoadAvg 0) (index .LoadAvg 1) (index .LoadAvg 2)}} at start<br>
{{range $k, $v := .Sysctls}}<code>{{$k}}={{$v}}</code> {{end}}<br>
{{range $k, $v := .Deps}}{{$k}} {{$v}}; {{end}}</td></tr>{{end}}{{end}}{{end}}
<tr><td>report built</td><td>{{.Generated}}</td></tr>
</table>
{{range .Warnings}}<div class="warn">{{.}}</div>{{end}}
{{define "table"}}<h3>{{.Title}}</h3>{{if .Caption}}<p class="cap">{{.Caption}}</p>{{end}}
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}{{if .Style}} style="{{.Style}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>{{end}}
<h2>Summary</h2>
<p class="cap" id="intervals"><b>How to read intervals.</b> {{.IntervalNote}}</p>
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
