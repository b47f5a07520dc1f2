package tune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/study/studyfile"
)

// The files a tune writes into OUT besides its store.
const (
	ProfileFile = "profile.toml"
	JSONFile    = "tune.json"
	HTMLFile    = "tune.html"
	// EvalDir is the folder in OUT of the evaluation's own store
	// (`spdylab report OUT/evaluation` reads it); OUT's store holds the
	// search's loads.
	EvalDir = "evaluation"
)

// write puts the winner's profile, the result as JSON and its page into
// OUT, each whole or not at all.
func (t *Tuner) write(res *Result) error {
	out := t.cfg.Out
	if err := atomicfile.Write(filepath.Join(out, ProfileFile), studyfile.FormatProfile(t.Profile(res.Winner))); err != nil {
		return err
	}
	j, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, JSONFile), append(j, '\n')); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, res); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, HTMLFile), b.Bytes())
}

// Summary is the console's account of a tune: the winner, then each
// evaluation row's objective and verdicts on the training cells and on
// the held-out ones apart (the training cells chose the winner, so only
// the held-out ones say how it does elsewhere), and which recorded pages
// were held out.
func (r *Result) Summary() []string {
	out := []string{fmt.Sprintf("winner: %s (profile %s)", r.Winner, r.Profile),
		fmt.Sprintf("judged on fresh loads (%s/), %d training and %d held-out cells", r.EvalStore, len(r.Train), len(r.Test))}
	if len(r.TestPages) > 0 {
		out = append(out, "  training pages: "+strings.Join(r.TrainPages, ", "), "  held-out pages (never in the search): "+strings.Join(r.TestPages, ", "))
	}
	rows := slices.Clone(r.Evaluation)
	rows = append(rows, r.Ablation...)
	if r.Transport != nil {
		rows = append(rows, *r.Transport)
	}
	for _, row := range rows {
		out = append(out, fmt.Sprintf("  %-8s training: objective %s, %s", row.Name, fmtNum(row.Objective), row.TrainTally))
		held := "none"
		if row.TestTally != nil {
			held = fmt.Sprintf("objective %s, %s", fmtNum(row.Test), *row.TestTally)
		}
		out = append(out, fmt.Sprintf("  %-8s held out: %s", "", held))
	}
	return out
}

var htmlPage = template.Must(template.New("tune").Funcs(template.FuncMap{"n": fmtNum, "list": func(r *Row) []Row { return []Row{*r} },
	"train": func(rows []Row) []Row { return splitRows(rows, true) }, "test": func(rows []Row) []Row { return splitRows(rows, false) }}).Parse(`<!doctype html>
<meta charset="utf-8"><title>spdylab tune: {{.Study}} {{.Protocol}}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.won{background:#dfd}.lost{background:#fdd}</style>
<h1>spdylab tune: {{.Protocol}} against {{.Baseline}} in {{.Study}}</h1>
<p>Objective <b>{{.Objective}}</b> (worst: the smallest gain over the cells; won: the cells whose 95% interval lies above 1; mean: the mean gain; never-worse: the smallest lower bound of the gains' 95% intervals),
gain = {{.Baseline}} {{.MetricTitle}} median / {{.Protocol}} {{.MetricTitle}} median. Budget {{.BudgetLoads}} loads; {{.LoadsStored}} stored{{if .Wall}}; wall time {{.Wall}}{{end}}.</p>
<p>Winner: <b>{{if .Winner.Settings}}{{range $k, $v := .Winner.Settings}}{{$k}} = {{$v}}; {{end}}{{else}}the defaults{{end}}</b> (profile {{.Profile}}, written to profile.toml).
{{range .Evaluation}}{{if eq .Name "winner"}}Its verdicts: on the <b>training cells</b> (which chose it) {{.TrainTally}}; on the <b>held-out cells</b> {{with .TestTally}}{{.}}{{else}}none{{end}}.{{end}}{{end}}</p>
<p>Every table below comes from fresh loads in {{.EvalStore}}/ (none of the search's loads), and gives the training cells and the held-out cells apart.</p>
{{if .TestPages}}<p>Recorded pages dealt before the cells: training pages {{range .TrainPages}}<br>{{.}}{{end}}</p>
<p>Held-out pages (never loaded in the search): {{range .TestPages}}<br>{{.}}{{end}}</p>{{end}}
<p>Training cells: {{range .Train}}<br>{{.}}{{end}}</p>
<p>Held-out cells: {{range .Test}}<br>{{.}}{{else}}none{{end}}</p>
<h2>Winner and defaults</h2>
{{template "split" .Evaluation}}
<h2>Ablation: the winner with each knob put back to its default</h2>
<p>The difference to the winner's row is what the knob buys.</p>
{{template "split" .Ablation}}
{{with .Transport}}<h2>The winner against {{$.Baseline}} given the same transport knobs</h2>
{{template "split" (list .)}}{{end}}
<h2>Search rounds (training cells only)</h2>
{{range $i, $r := .Rounds}}<h3>round {{$i}}: {{$r.Candidates}} candidates, {{$r.Runs}} runs per training cell</h3>
<table><tr><th>candidate</th><th>objective (training cells)</th></tr>
{{range $r.Scored}}<tr><td>{{.Name}}</td><td>{{n .Objective}}</td></tr>{{end}}</table>{{end}}
{{define "split"}}<h3>Training cells</h3>
{{template "rows" (train .)}}
<h3>Held-out cells</h3>
{{template "rows" (test .)}}{{end}}
{{define "rows"}}<table><tr><th>configuration</th><th>objective</th><th>verdicts</th><th>cell</th><th>set</th><th>gain [95%]</th><th>verdict</th></tr>
{{range .}}{{$name := .Name}}{{$o := .Objective}}{{$t := .TrainTally}}{{range .Gains}}<tr><td>{{$name}}</td><td>{{n $o}}</td><td>{{$t}}</td><td>{{.Cell}}</td><td>{{.Set}}</td><td>{{n .Gain}} [{{n .Lo}}, {{n .Hi}}]</td><td class="{{.Verdict}}">{{.Verdict}}</td></tr>{{else}}<tr><td>{{$name}}</td><td colspan="6">no cells in this set</td></tr>{{end}}{{end}}</table>{{end}}
`))

// splitRows is rows narrowed to their training (train) or held-out
// cells, each with that set's objective and verdicts, for the page's
// tables.
func splitRows(rows []Row, train bool) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		tr, te := r.Split()
		out[i] = Row{Name: r.Name, Settings: r.Settings, Knob: r.Knob, Objective: r.Objective, TrainTally: r.TrainTally, Gains: tr}
		if !train {
			out[i].Objective, out[i].Gains = r.Test, te
			if r.TestTally != nil {
				out[i].TrainTally = *r.TestTally
			}
		}
	}
	return out
}
