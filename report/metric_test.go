package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

const paintStudy = `
name = "mini-paint"
runs = 6
seed = 1
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
client = "chromium"
protocol = ["https", "h2"]
[baseline]
protocol = "https"
`

const paintHost = "s1.spdylab.test"

// paintManifest is a document referencing a stylesheet (1), a script (2)
// and the LCP image (3).
func paintManifest() *page.Manifest {
	return &page.Manifest{Name: "pageA", Hosts: []string{paintHost}, Resources: []page.Resource{
		{ID: 0, Path: "/", Host: paintHost, Size: 10000, Type: page.TypeHTML, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
		{ID: 1, Path: "/a.css", Host: paintHost, Size: 1000, Type: page.TypeCSS, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 100}},
		{ID: 2, Path: "/b.js", Host: paintHost, Size: 1000, Type: page.TypeJS, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 200}},
		{ID: 3, Path: "/c.jpg", Host: paintHost, Size: 50000, Type: page.TypeImage, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: 300}},
	}}
}

// paintHAR is a load of paintManifest whose image takes imgRecv ms to
// receive (its last byte at 435 + imgRecv ms); the script ends at 483.
func paintHAR(t *testing.T, t0 time.Time, imgRecv float64) []byte {
	entry := func(id int, start float64, tm har.Timings, size int64) har.Entry {
		rid := id
		return har.Entry{StartedDateTime: har.FormatTime(t0.Add(time.Duration(start * float64(time.Millisecond)))), Time: tm.Sum(),
			Request:  har.Request{URL: "https://" + paintHost + paintManifest().Resources[id].Path, HeadersSize: 300},
			Response: har.Response{Status: 200, BodySize: size, HeadersSize: 100}, Timings: tm, Connection: "1", ResourceID: &rid}
	}
	sub := func(wait, recv float64) har.Timings {
		return har.Timings{DNS: -1, Connect: -1, SSL: -1, Send: 1, Wait: wait, Receive: recv}
	}
	d := har.Document{Log: har.Log{Version: "1.2", Pages: []har.Page{har.NewPage(t0, "p", "", har.PageTimings{})}, Entries: []har.Entry{
		entry(0, 0, har.Timings{DNS: -1, Connect: 100, SSL: 100, Send: 1, Wait: 110, Receive: 50}, 10000),
		entry(1, 320, sub(110, 10), 1000),
		entry(2, 322, sub(150, 10), 1000),
		entry(3, 324, sub(110, imgRecv), 50000),
	}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fillPaintStore stores Chromium loads whose PLT is the same for both
// protocols, while h2's LCP is 600 ms at 100 ms RTT (https: 900) and
// 950 ms at 20 ms: in LCP h2 wins one cell and loses the other. The
// first https load at 20 ms has no paint record, as a load stored before
// paint metrics.
func fillPaintStore(t *testing.T, dir string) *spec.Study {
	return fillPaintStoreWith(t, dir, paintStudy)
}

func fillPaintStoreWith(t *testing.T, dir, src string) *spec.Study {
	s, st, sess := openTestStore(t, dir, src)
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		st.PutManifest(spec.ManifestKey(c.Condition), paintManifest())
		lcp := 900.0
		if c.Values["protocol"] == "h2" {
			lcp = map[string]float64{"20ms": 950, "100ms": 600}[c.Values["rtt"]]
		}
		for run := 0; run < s.Runs; run++ {
			d := float64(run-3) * 2
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: 1000 + d, ToWms: 800 + d,
				HAR: paintHAR(t, t0, lcp-20-435)}
			fcp, l := 500+d, lcp+d
			r.Paint = &probe.Paint{FCPms: &fcp, LCPms: &l, LCPURL: "https://" + paintHost + "/c.jpg", LCPElement: "IMG"}
			if run == 0 && c.Values["protocol"] == "https" && c.Values["rtt"] == "20ms" {
				r.Paint = nil
			}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func TestReportMetricLCPGainsAndAnswer(t *testing.T) {
	dir := t.TempDir()
	fillPaintStore(t, dir)
	a, err := BuildWith(dir, Options{Metric: probe.MetricLCP})
	if err != nil {
		t.Fatal(err)
	}
	if a.MetricMissing != 1 || a.OKLoads != 24 {
		t.Errorf("loads without LCP %d of %d, want 1 of 24", a.MetricMissing, a.OKLoads)
	}
	for _, c := range a.Conds {
		if c.Values["protocol"] != "h2" {
			continue
		}
		want := map[string]Significance{"20ms": Lost, "100ms": Won}[c.Values["rtt"]]
		if c.Significance != want || c.Value.N != 6 {
			t.Errorf("h2 at %s: LCP gain %v %s on %d loads, want %s", c.Values["rtt"], c.Gain, c.Significance, c.Value.N, want)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	answer, meta := strings.Index(page, `class="answer"`), strings.Index(page, `class="meta"`)
	if answer < 0 || meta < answer {
		t.Fatalf("report.html does not open with its answer (answer at %d, provenance at %d)", answer, meta)
	}
	para := AnswerOf(a).Paragraph()
	for _, want := range []string{"For LCP:", "h2 against https won 1 cell, lost 1 and left 0 undecided",
		"The best cell: h2 at rtt=100ms, gain 1.50", "(won)", "The worst: h2 at rtt=20ms, gain 0.95", "(lost)",
		"1 of 24 successful loads have no LCP"} {
		if !strings.Contains(para, want) {
			t.Errorf("answer %q lacks %q", para, want)
		}
	}
	// The terms behind the best cell are its why's largest clear one.
	best := Why(a, "rtt=100ms")
	if len(best) != 1 {
		t.Fatalf("why for the best cell: %d cells", len(best))
	}
	top := best[0].Terms[0]
	if !strings.Contains(para, probe.CategoryTitle(top.Cat)) || !strings.Contains(para, "ms less") {
		t.Errorf("answer %q does not name the best cell's largest term (%s %+.0f ms)", para, top.Cat, top.Diff)
	}
	if !strings.Contains(page, "LCP CDF") || !strings.Contains(page, "Gain = median LCP") {
		t.Error("report.html's CDF and gain caption are not LCP's")
	}
	var rows []conditionRow
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil || len(rows) != 4 || rows[0].Metric != "lcp" {
		t.Fatalf("conditions.json: %v, %d rows, metric %q", err, len(rows), rows[0].Metric)
	}

	// The same store in PLT: no variant differs.
	plt, err := AnalyzeDirWith(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := AnswerOf(plt).Paragraph(); !strings.Contains(p, "For PLT: h2 against https won 0 cells, lost 0 and left 2 undecided") {
		t.Errorf("PLT answer %q", p)
	}
}

func TestWhyFCPEndsTheChainAtThePaintsResource(t *testing.T) {
	dir := t.TempDir()
	fillPaintStore(t, dir)
	cells, a, err := WhyDir(dir, "", Options{Metric: probe.MetricFCP})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || len(a.PathsUnknown) != 0 {
		t.Fatalf("%d cells explained, unknown ends %v", len(cells), a.PathsUnknown)
	}
	js := "https://" + paintHost + "/b.js"
	for _, p := range a.Probes {
		b := p.Result.Breakdown
		if p.Result.Paint == nil {
			if b != nil {
				t.Errorf("probe %d has no FCP but a critical path", p.ID)
			}
			continue
		}
		fcp := *p.Result.Paint.FCPms
		if b == nil || b.None != "" || b.Path[len(b.Path)-1].URL != js || math.Abs(b.Total()-fcp) > 0.01 {
			t.Fatalf("probe %d: FCP chain %+v, want it to end at the script and add up to FCP %.0f", p.ID, b, fcp)
		}
	}
	var out strings.Builder
	WriteWhy(&out, cells, a.MetricTitle())
	if !strings.Contains(out.String(), "(FCP median 499 vs 500 ms, 6 and 5 loads)") {
		t.Errorf("why --metric fcp prints:\n%s", out.String())
	}
}

func TestMetricRefusedAndAbsent(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil) // the loader's loads, without paint records
	_, err := AnalyzeDirWith(dir, Options{Metric: probe.MetricSI})
	if err == nil || !strings.Contains(err.Error(), "client loader cannot give it") || !strings.Contains(err.Error(), "frames") {
		t.Fatalf("si from the loader: %v, want refused with the reason", err)
	}
	a, err := BuildWith(dir, Options{Metric: probe.MetricLCP})
	if err != nil {
		t.Fatal(err)
	}
	if a.MetricMissing != a.OKLoads || a.OKLoads == 0 {
		t.Errorf("loads without LCP %d of %d, want all", a.MetricMissing, a.OKLoads)
	}
	for _, c := range a.Conds {
		if c.Value.N != 0 || !math.IsNaN(c.Gain) || c.Missing != c.PLT.N {
			t.Fatalf("%s: LCP on %d loads, gain %v, %d missing: want absent, not zero", c.Label, c.Value.N, c.Gain, c.Missing)
		}
	}
	p := AnswerOf(a).Paragraph()
	if !strings.Contains(p, "no cell has a gain") || !strings.Contains(p, "have no LCP and are left out (absent, not zero)") {
		t.Errorf("answer on a store without paint metrics: %q", p)
	}
	var rows []map[string]any
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	if v, ok := rows[0]["metric_median_ms"]; !ok || v != nil || rows[0]["metric_missing"] == nil {
		t.Errorf("conditions.json row: metric_median_ms %v (present %v), metric_missing %v: want null and counted", v, ok, rows[0]["metric_missing"])
	}
	if _, err := AnalyzeDirWith(dir, Options{Metric: "ttfb"}); err == nil || !strings.Contains(err.Error(), "plt, tow, fcp, lcp, si") {
		t.Errorf("unknown metric: %v", err)
	}
}

// The answer names a cell's largest clear term, and says so when a larger
// one varies too much to be sure of; terms under 5% of the change are
// too small to name.
func TestAnswerTermsSayWhatIsUnclear(t *testing.T) {
	term := func(cat string, d, lo, hi float64) WhyTerm {
		return WhyTerm{Cat: cat, DiffCI: stats.DiffCI{Diff: d, Lo: lo, Hi: hi}}
	}
	c := AnswerCell{Variant: "h2", Base: "https", Diff: 100, Terms: []WhyTerm{
		term(probe.CatTLS, 90, -10, 150), term(probe.CatHOL, 40, 20, 60), term(probe.CatSend, -3, -4, -2)}}
	if got := c.largestTerm(); got != "its largest clear difference is 40 ms more head-of-line blocking on the critical path than https (a larger one, +90 ms of TLS handshakes, varies too much between loads to be sure)" {
		t.Errorf("unclear lead: %q", got)
	}
	c.Terms = []WhyTerm{term(probe.CatTLS, 90, -10, 150), term(probe.CatSend, -3, -4, -2)}
	if got := c.largestTerm(); !strings.HasPrefix(got, "where no critical-path category differs clearly from https (the largest change, +90 ms") {
		t.Errorf("only a term under 5%% of the change is clear: %q", got)
	}
}

// TestStudyMetricIsTheDefault: a study file's metric key is what its
// report is judged on unless --metric says otherwise.
func TestStudyMetricIsTheDefault(t *testing.T) {
	dir := t.TempDir()
	fillPaintStoreWith(t, dir, strings.Replace(paintStudy, "seed = 1\n", "seed = 1\nmetric = \"lcp\"\n", 1))
	a, err := AnalyzeDirWith(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Metric.Name != probe.MetricLCP || !strings.Contains(AnswerOf(a).Paragraph(), "For LCP:") {
		t.Errorf("without --metric the report is in %s, want the study's lcp", a.Metric.Name)
	}
	plt, err := AnalyzeDirWith(dir, Options{Metric: probe.MetricPLT})
	if err != nil {
		t.Fatal(err)
	}
	if plt.Metric.Name != probe.MetricPLT {
		t.Errorf("--metric plt gave %s", plt.Metric.Name)
	}
}

// TestCompareInTheChosenMetric: report --compare gives the metric's
// medians, not PLT's.
func TestCompareInTheChosenMetric(t *testing.T) {
	dir := t.TempDir()
	fillPaintStore(t, dir)
	c, err := CompareWith(dir, dir, Options{Metric: probe.MetricLCP})
	if err != nil {
		t.Fatal(err)
	}
	if c.Metric != "LCP" || c.Common != 4 {
		t.Fatalf("compared %d conditions in %q, want 4 in LCP", c.Common, c.Metric)
	}
	for _, r := range c.Rows {
		if strings.HasPrefix(r.Label, "h2") && strings.Contains(r.Label, "rtt=100ms") && math.Abs(r.A.Median-600) > 2 {
			t.Errorf("%s: median %v, want h2's LCP of 600 ms (its PLT is 1000)", r.Label, r.A.Median)
		}
	}
	var b strings.Builder
	c.Write(&b)
	if !strings.Contains(b.String(), "LCP median A") {
		t.Errorf("the comparison does not say it is in LCP:\n%s", b.String())
	}
}
