package findings

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
)

// The files Run writes into its output folder.
const (
	MarkdownFile = "FINDINGS.md"
	HTMLFile     = "findings.html"
)

// writeReport writes FINDINGS.md and findings.html into opt.Out.
func writeReport(opt Options, rows []Row) (*Report, error) {
	now := opt.now().UTC()
	rep := &Report{Rows: rows, Markdown: filepath.Join(opt.Out, MarkdownFile), HTML: filepath.Join(opt.Out, HTMLFile)}
	md := Markdown(rows, opt.Command, revision(), now)
	h, err := HTML(rows, opt.Command, revision(), now)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(rep.Markdown, md); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(rep.HTML, h); err != nil {
		return nil, err
	}
	return rep, nil
}

// rowName is a row's finding, with its walk.
func (r Row) rowName() string {
	if r.Part != "" {
		return r.Finding + ": " + r.Part
	}
	return r.Finding
}

// answerText is what the answer column shows: the numbers of a current
// row, the status and reason of any other (never an old number).
func (r Row) answerText() []string {
	if !r.Shown() {
		return []string{strings.ToUpper(r.Status) + ": " + r.Reason}
	}
	out := r.Answer
	if r.Metric != "" && r.Metric != "PLT" {
		out = append([]string{"gains in " + r.Metric + " (the file's metric), not PLT"}, out...)
	}
	if r.Status == StatusPartial {
		out = append([]string{"PARTIAL: " + r.Reason}, out...)
	}
	if r.Note != "" {
		out = append(out, r.Note)
	}
	return out
}

// runText is the command, commits, date, wall time and machine of a row.
func (r Row) runText() []string {
	out := []string{"`" + r.Command + "`"}
	if r.Shown() {
		out = append(out, "commit "+r.Commits, r.Date)
		if r.Took > 0 {
			out = append(out, "took "+fmtTook(r.Took))
		}
		out = append(out, r.Machine)
	}
	return out
}

// totalTook is the summed wall time of the runs behind the rows (a walks
// finding's rows share one run) and how many findings it covers.
func totalTook(rows []Row) (time.Duration, int) {
	var sum time.Duration
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Shown() && r.Took > 0 && !seen[r.Finding] {
			seen[r.Finding] = true
			sum += r.Took
		}
	}
	return sum, len(seen)
}

// tookLine is the header's sentence on the wall time, "" when no row has one.
func tookLine(rows []Row) string {
	sum, n := totalTook(rows)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("The runs behind the %d findings with a known wall time took %s in all.", n, fmtTook(sum))
}

func fmtTook(d time.Duration) string {
	d = d.Round(time.Minute)
	if d >= time.Hour {
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d min", max(int(d.Minutes()), 1))
}

// Markdown renders the rows as FINDINGS.md: one table row per finding,
// then each driver finding's table.
func Markdown(rows []Row, command, rev string, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Findings\n\nWritten by `%s` at %s from commit %s. One row per finding (findings/*.toml);\n", command, now.Format("2006-01-02 15:04 UTC"), shortRev(rev))
	b.WriteString("gains are the baseline's median PLT (or the metric a row names) / the variant's, with 95% bootstrap intervals;\na row that is not current shows why instead of a number.")
	if l := tookLine(rows); l != "" {
		b.WriteString(" " + l)
	}
	b.WriteString("\n\n")
	b.WriteString("| finding | question | answer [95%] | loads per cell | sample | explained by | late-load shift | run |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(r.rowName()), mdCell(r.Question), mdLines(r.answerText()),
			mdCell(r.Loads), mdCell(r.Sample), mdLines(r.Explain), mdCell(r.LateShift), mdLines(r.runText()))
	}
	for _, r := range rows {
		if r.Table != "" && r.Shown() {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", r.rowName(), strings.TrimSpace(r.Table))
		}
	}
	return b.Bytes()
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}

func mdLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = mdCell(l)
	}
	return strings.Join(out, "<br>")
}

var htmlPage = template.Must(template.New("findings").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>spdylab findings</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;vertical-align:top;font-size:90%}
.bad{background:#fdd}.partial{background:#ffd}pre{white-space:pre-wrap}</style></head><body>
<h1>Findings</h1>
<p>Written by <code>{{.Command}}</code> at {{.Date}} from commit {{.Rev}}. Gains are the baseline's median PLT (or the metric a row names) / the variant's, with 95% bootstrap intervals; a row that is not current shows why instead of a number. {{.Took}}</p>
<table><tr><th>finding</th><th>question</th><th>answer [95%]</th><th>loads per cell</th><th>sample</th><th>explained by</th><th>late-load shift</th><th>run</th></tr>
{{range .Rows}}<tr class="{{.Class}}"><td>{{if .Report}}<a href="{{.Report}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td>{{.Question}}</td><td>{{range .Answer}}{{.}}<br>{{end}}</td><td>{{.Loads}}</td><td>{{.Sample}}</td><td>{{range .Explain}}{{.}}<br>{{end}}</td><td>{{.Late}}</td><td>{{range .Run}}{{.}}<br>{{end}}</td></tr>
{{end}}</table>
{{range .Rows}}{{if .Table}}<h2>{{.Name}}</h2><pre>{{.Table}}</pre>{{end}}{{end}}
</body></html>
`))

type htmlRow struct {
	Name, Question, Loads, Sample, Late, Class, Report, Table string
	Answer, Explain, Run                                      []string
}

// HTML renders the rows as findings.html; each current study row links to
// its store's report.html.
func HTML(rows []Row, command, rev string, now time.Time) ([]byte, error) {
	data := struct {
		Command, Date, Rev, Took string
		Rows                     []htmlRow
	}{Command: command, Date: now.Format("2006-01-02 15:04 UTC"), Rev: shortRev(rev), Took: tookLine(rows)}
	for _, r := range rows {
		h := htmlRow{Name: r.rowName(), Question: r.Question, Loads: r.Loads, Sample: r.Sample, Late: r.LateShift,
			Answer: r.answerText(), Explain: r.Explain, Run: r.runText()}
		switch {
		case !r.Shown():
			h.Class = "bad"
		case r.Status == StatusPartial:
			h.Class = "partial"
		}
		if r.Shown() && r.Table == "" {
			h.Report = filepath.Base(r.Store) + "/report.html"
		}
		if r.Shown() {
			h.Table = r.Table
		}
		data.Rows = append(data.Rows, h)
	}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
