package tune

import (
	"bytes"
	"encoding/json"
	"html/template"
	"path/filepath"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/study/studyfile"
)

// The files a tune writes into OUT besides its store.
const (
	ProfileFile = "profile.toml"
	JSONFile    = "tune.json"
	HTMLFile    = "tune.html"
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
	if err := page.Execute(&b, res); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, HTMLFile), b.Bytes())
}

var page = template.Must(template.New("tune").Funcs(template.FuncMap{"n": fmtNum, "list": func(r *Row) []Row { return []Row{*r} }}).Parse(`<!doctype html>
<meta charset="utf-8"><title>spdylab tune: {{.Study}} {{.Protocol}}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.won{background:#dfd}.lost{background:#fdd}</style>
<h1>spdylab tune: {{.Protocol}} against {{.Baseline}} in {{.Study}}</h1>
<p>Objective <b>{{.Objective}}</b> (worst: the smallest gain over the cells; won: the cells whose 95% interval lies above 1; mean: the mean gain),
gain = {{.Baseline}} PLT median / {{.Protocol}} PLT median. Budget {{.BudgetLoads}} loads; {{.LoadsStored}} stored{{if .Wall}}; wall time {{.Wall}}{{end}}.</p>
<p>Winner: <b>{{if .Winner.Settings}}{{range $k, $v := .Winner.Settings}}{{$k}} = {{$v}}; {{end}}{{else}}the defaults{{end}}</b> (profile {{.Profile}}, written to profile.toml).</p>
<p>Training cells: {{range .Train}}<br>{{.}}{{end}}</p>
<p>Held-out cells: {{range .Test}}<br>{{.}}{{else}}none{{end}}</p>
<h2>Winner and defaults on every cell</h2>
{{template "rows" .Evaluation}}
<h2>Ablation: the winner with each knob put back to its default</h2>
<p>The difference to the winner's row is what the knob buys.</p>
{{template "rows" .Ablation}}
{{with .Transport}}<h2>The winner against {{$.Baseline}} given the same transport knobs</h2>
{{template "rows" (list .)}}{{end}}
<h2>Search rounds</h2>
{{range $i, $r := .Rounds}}<h3>round {{$i}}: {{$r.Candidates}} candidates, {{$r.Runs}} runs per cell</h3>
<table><tr><th>candidate</th><th>objective (train)</th></tr>
{{range $r.Scored}}<tr><td>{{.Name}}</td><td>{{n .Objective}}</td></tr>{{end}}</table>{{end}}
{{define "rows"}}<table><tr><th>configuration</th><th>objective train</th><th>objective held out</th><th>cell</th><th>gain [95%]</th><th>verdict</th></tr>
{{range .}}{{$name := .Name}}{{$o := .Objective}}{{$t := .Test}}{{range .Gains}}<tr><td>{{$name}}</td><td>{{n $o}}</td><td>{{n $t}}</td><td>{{.Cell}}{{if .Train}} (train){{end}}</td><td>{{n .Gain}} [{{n .Lo}}, {{n .Hi}}]</td><td class="{{.Verdict}}">{{.Verdict}}</td></tr>{{end}}{{end}}</table>{{end}}
`))
