package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// These tests feed the analysis hand-made results with known medians; the
// real runner's output is exercised by the end-to-end test of cmd/spdylab.

const cableStudy = `
name = "mini-cable"
runs = 5
seed = 3
[factors]
page = ["pageA", "pageB"]
shards = [1, 2]
rate = "10mbit/1mbit"
rtt = ["20ms", "100ms"]
loss = ["0%", "1%"]
iw = [3, 10]
protocol = ["https", "spdy/3.1"]
[baseline]
protocol = "https"
iw = 3
`

// pltFor is the fake median PLT of a condition: the baseline https+iw3
// takes 1000 ms, spdy halves it at 100 ms RTT, iw10 saves 10%.
func pltFor(v map[string]string) float64 {
	plt := 1000.0
	if v["protocol"] == "spdy/3.1" && v["rtt"] == "100ms" {
		plt /= 2
	}
	if v["iw"] == "10" {
		plt *= 0.9
	}
	return plt
}

func fakeHAR(start time.Time) []byte {
	return []byte(fmt.Sprintf(`{"log":{"version":"1.2","pages":[{"startedDateTime":%q,"pageTimings":{"onLoad":300}}],"entries":[
{"startedDateTime":%q,"time":200,"request":{"url":"https://s1.spdylab.test/index.html"},"response":{"status":200,"content":{"size":12800}},"timings":{"blocked":0,"dns":-1,"connect":120,"ssl":80,"send":1,"wait":40,"receive":39}},
{"startedDateTime":%q,"time":90,"request":{"url":"https://s1.spdylab.test/img/1.jpg"},"response":{"status":200,"content":{"size":2600}},"timings":{"blocked":5,"dns":-1,"connect":-1,"ssl":-1,"send":1,"wait":40,"receive":44}}]}}`,
		start.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano), start.Add(210*time.Millisecond).Format(time.RFC3339Nano)))
}

func fillStore(t testing.TB, dir string, src string, failEvery map[string]int) *spec.Study {
	t.Helper()
	s, st, sess := openTestStore(t, dir, src)
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		m, err := page.Generate(c.Page, c.Shards, s.Seed, c.ShardMode)
		if err != nil {
			t.Fatal(err)
		}
		st.PutManifest(spec.ManifestKey(c.Condition), m)
		base := pltFor(c.Values)
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0,
				// runs spread symmetrically around the median: -20, -10, 0, +10, +20
				PLTms: base + float64(run-2)*10, ToWms: base - 100 + float64(run-2)*10,
				Resources: len(m.Resources), Connections: 6,
				Phases:    probe.Phases{Connect: 120, SSL: 80, Send: 2, Wait: 80, Receive: 83, DNS: -1},
				Link:      probe.LinkCounters{Down: probe.LinkDir{PktsOffered: 300, PktsQueueDrop: 2, QDelayP50ms: 4}, Up: probe.LinkDir{PktsOffered: 150, PktsLost: 1}},
				TCP:       []probe.TCPInfo{{Retransmits: 3}},
				ServerTCP: probe.NewServerTCP([]probe.TCPInfo{{Retransmits: 5}, {Retransmits: 2}}), HAR: fakeHAR(t0)}
			r.Link.Down.LateP99ms = 0.1
			if run == 4 && c.Values["iw"] == "10" {
				r.Link.Up.LateP99ms = 2.5 // a starved emulator in one load
			}
			if n := failEvery[c.Values["protocol"]]; n > 0 && run%n == 0 {
				r = probe.Result{Condition: c.Condition, Run: run, Started: t0, Failed: true, Error: "GET /img/7.jpg: stalled"}
			}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func TestAnalysisGainsAndStats(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	if a.BaseLabel != "https iw3" || strings.Join(a.Labels, ",") != "https iw3,spdy/3.1 iw3,https iw10,spdy/3.1 iw10" {
		t.Errorf("labels %q base %q", a.Labels, a.BaseLabel)
	}
	for _, c := range a.Conds {
		want := pltFor(c.Values)
		if c.PLT.N != 5 || c.PLT.Median != want || c.PLT.P25 != want-10 || c.PLT.P75 != want+10 {
			t.Errorf("%s: PLT stats %+v, want median %v", c.Label, c.PLT, want)
		}
		bv := map[string]string{}
		for k, v := range c.Values {
			bv[k] = v
		}
		bv["protocol"], bv["iw"] = "https", "3"
		wantGain := pltFor(bv) / want
		if c.IsBaseline != (c.Label == "https iw3") {
			t.Errorf("%s marked baseline=%v", c.Label, c.IsBaseline)
		}
		if !c.IsBaseline && math.Abs(c.Gain-wantGain) > 1e-12 {
			t.Errorf("%s %v: gain %v, want %v", c.Label, c.Values, c.Gain, wantGain)
		}
		wantRed := 100 * ((pltFor(bv) - 100) - (want - 100)) / (pltFor(bv) - 100)
		if !c.IsBaseline && math.Abs(c.ToWRedPct-wantRed) > 1e-9 {
			t.Errorf("%s: ToW reduction %v, want %v", c.Label, c.ToWRedPct, wantRed)
		}
		if math.IsNaN(c.BoundMs) || c.BoundMs <= 0 || c.PLTOverBound <= 0 {
			t.Errorf("%s: bound %v ratio %v", c.Label, c.BoundMs, c.PLTOverBound)
		}
		if c.Gateway.QueueDrops != 2 || c.Gateway.RandomLoss != 1 || c.Gateway.Retransmits != 3 || c.Gateway.ServerRetransmits != 7 || c.Gateway.PktsSent != 450 {
			t.Errorf("gateway %+v", c.Gateway)
		}
		if c.TooFew {
			t.Errorf("%s flagged too few", c.Label)
		}
		wantLate := 0.1
		if c.Values["iw"] == "10" {
			wantLate = (4*0.1 + 2.5) / 5
		}
		if math.Abs(c.Gateway.LateP99ms-wantLate) > 1e-9 {
			t.Errorf("%s: emulator lateness %v, want %v", c.Label, c.Gateway.LateP99ms, wantLate)
		}
	}
	if a.LateLoads != len(a.Conds)/2 || a.LateWorstMs != 2.5 {
		t.Errorf("late loads %d (want %d), worst %v ms", a.LateLoads, len(a.Conds)/2, a.LateWorstMs)
	}
	// The late loads are each condition's slowest (+20 ms over the median).
	if a.LateShift.Pct <= 0 || a.OKLoads != 5*len(a.Conds) {
		t.Errorf("late loads' shift %v, %d loads counted", a.LateShift, a.OKLoads)
	}
}

func TestFailuresCountedAndTooFewFlagged(t *testing.T) {
	dir := t.TempDir()
	// spdy fails runs 0, 1, 2, 3, 4 -> every run; https fails runs 0 and 3.
	fillStore(t, dir, cableStudy, map[string]int{"spdy/3.1": 1, "https": 3})
	st, _ := store.OpenStore(dir)
	defer st.Close()
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Conds {
		switch c.Values["protocol"] {
		case "spdy/3.1":
			if c.PLT.N != 0 || c.Failed != 5 || !c.TooFew || !math.IsNaN(c.Gain) || len(c.Errors) != 1 || !strings.Contains(c.Errors[0], "/img/7.jpg") {
				t.Errorf("all-failed condition: %+v", c)
			}
		case "https":
			// runs 1, 2, 4 succeed: offsets -10, 0, +20 -> median = base
			if c.PLT.N != 3 || c.Failed != 2 || c.TooFew || c.PLT.Median != pltFor(c.Values) {
				t.Errorf("partly failed condition: N %d failed %d median %v", c.PLT.N, c.Failed, c.PLT.Median)
			}
		}
	}
}

func TestBuildWritesReportCSVAndJSON(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, want := range []string{"<svg", "Gain of spdy/3.1 iw10 over https iw3 by page × shards", "by rtt × loss", "ToW reduction vs rtt", "Phase breakdown", "PLT CDF", "Gateway and TCP counters", "Distance from the lower bound", "Waterfalls", "more than 1 ms late", "emulator late p99", "server retransmits"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if bytes.Contains(html, []byte("http://")) && bytes.Contains(html, []byte(`src="http`)) {
		t.Error("report.html references external assets")
	}
	f, _ := os.Open(filepath.Join(dir, CSVFile))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != len(a.Conds)+1 {
		t.Fatalf("conditions.csv: %d records, %v", len(recs), err)
	}
	if i := slices.Index(recs[0], "server_retransmits"); i < 0 || recs[1][i] != "7" {
		t.Errorf("conditions.csv: server_retransmits column %d in %v", i, recs[1])
	}
	var rows []map[string]any
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil || len(rows) != len(a.Conds) {
		t.Fatalf("conditions.json: %d rows, %v", len(rows), err)
	}
	// summary row: spdy+iw10 at 100 ms gains 1/(0.5*0.9) = 2.22, at 20 ms 1/0.9.
	if !bytes.Contains(html, []byte("2.22")) || !bytes.Contains(html, []byte("1.11")) {
		t.Error("summary gains missing from the report")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestWaterfall(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	out, err := WriteWaterfall(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte("/img/1.jpg")) || !bytes.Contains(b, []byte("<rect")) {
		t.Errorf("waterfall lacks its entries: %.300s", b)
	}
	if _, err := WriteWaterfall(dir, 99999); err == nil || !strings.Contains(err.Error(), "99999") {
		t.Errorf("missing probe: err = %v", err)
	}
	if _, err := WaterfallSVG([]byte("{"), "x"); err == nil {
		t.Error("broken HAR accepted")
	}
}

func TestStreamsRegression(t *testing.T) {
	a, b, ok := leastSquares([]float64{7, 50, 133}, []float64{2, 8, 20})
	if !ok || math.Abs(b-0.1428) > 0.01 || math.Abs(a-(10-b*190.0/3)) > 1e-9 {
		t.Errorf("fit a=%v b=%v", a, b)
	}
	if _, _, ok := leastSquares([]float64{5, 5}, []float64{1, 2}); ok {
		t.Error("fit without spread reported ok")
	}
}

// TestScreenshot renders report.html in headless Chromium and checks that
// a non-blank PNG comes out. SPDYLAB_SCREENSHOT=path keeps the PNG.
func TestScreenshot(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skip("chromium not installed (scripts/deps.sh installs it)")
	}
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	if _, err := Build(dir); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	if p := os.Getenv("SPDYLAB_SCREENSHOT"); p != "" {
		shot, _ = filepath.Abs(p)
	}
	if err := browser.Screenshot(filepath.Join(dir, HTMLFile), shot); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Non-blank: a good share of the top screenful is not background white.
	bnd := img.Bounds()
	dark := 0
	for y := bnd.Min.Y; y < bnd.Min.Y+min(1500, bnd.Dy()); y += 3 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r+g+b < 3*0xc000 {
				dark++
			}
		}
	}
	if dark < 500 {
		t.Errorf("screenshot looks blank (%d dark samples)", dark)
	}
}

func TestCompare(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	fillStore(t, a, cableStudy, nil)
	fillStore(t, b, cableStudy, map[string]int{"https": 5}) // https run 0 fails in B
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Common != 64 {
		t.Errorf("%d common conditions, want 64", c.Common)
	}
	// Without run 0 (-20 ms) the https medians move up by 5 ms, inside the
	// IQR/2 band (10 ms); spdy is identical.
	if c.Within != 64 || c.MedianAbsDiffPct > 0.6 {
		t.Errorf("within %d, median diff %.2f%%", c.Within, c.MedianAbsDiffPct)
	}
	if c.SumPLTb >= c.SumPLTa {
		t.Errorf("sum of PLT: A %v, B %v (B lost loads)", c.SumPLTa, c.SumPLTb)
	}
	// Half the conditions (https) moved up by 5 ms in B: a small positive
	// shift; the baseline got slower, so gains grew but none flipped.
	if c.ShiftPct <= 0 || c.ShiftPct > 1 || c.ShiftCIPct <= 0 {
		t.Errorf("shift %+.2f%% ± %.2f%%", c.ShiftPct, c.ShiftCIPct)
	}
	if c.Gains != 48 || c.GainFlips != 0 || c.MedianGainDiffPct <= 0 {
		t.Errorf("gains %d, flips %d, median diff %.2f%%", c.Gains, c.GainFlips, c.MedianGainDiffPct)
	}
	if c.LateA != 32 || c.LateB != 32 || c.LoadsA != 320 || c.LoadsB != 288 {
		t.Errorf("late loads A %d of %d, B %d of %d", c.LateA, c.LoadsA, c.LateB, c.LoadsB)
	}
	var buf bytes.Buffer
	c.Write(&buf)
	for _, want := range []string{"64 of 64 conditions within noise", "systematic shift", "0 change verdict", "A 32 of 320, B 32 of 288"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q: %s", want, buf.String())
		}
	}
	// A run against itself: no shift, no spread.
	self, err := Compare(a, a)
	if err != nil || self.ShiftPct != 0 || self.ShiftCIPct != 0 || self.MedianGainDiffPct != 0 {
		t.Errorf("self-comparison: %+v, %v", self, err)
	}
}

const streamsStudy = `
name = "mini-streams"
runs = 3
seed = 2
[factors]
page = ["twitter", "imgur"]
protocol = ["https", "spdy/3"]
rtt = ["20ms", "200ms"]
max_streams = [1, 6, 100]
[[exclude]]
protocol = "https"
max_streams = [1, 6]
`

// TestStreamsStudy: gains of every stream limit are taken against https
// at its single measured max_streams, and the heatmap and the m-vs-r
// regression come out.
func TestStreamsStudy(t *testing.T) {
	dir := t.TempDir()
	s, err := studyfile.Parse([]byte(streamsStudy), "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Conditions {
		m, _ := page.Generate(c.Page, 1, 2, "")
		st.PutManifest(spec.ManifestKey(c.Condition), m)
		// https: 1000 ms; spdy: worse with few streams, better with many;
		// imgur (more resources) needs more streams.
		tow := 1000.0
		if c.Proto == "spdy/3" {
			need := map[string]float64{"twitter": 1, "imgur": 6}[c.Page]
			ms := float64(c.MaxStreams)
			if ms >= need {
				tow = 800
			} else {
				tow = 1300
			}
		}
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, PLTms: tow + 50, ToWms: tow, Resources: len(m.Resources)}
			st.Put(store.Probe{CondHash: c.Hash, Run: run, Result: r})
		}
	}
	st.Close()
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Conds {
		if c.Proto == "spdy/3" && (math.IsNaN(c.ToWRedPct) || c.BaseHash == "") {
			t.Errorf("spdy with max_streams %d has no baseline", c.MaxStreams)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, want := range []string{"by max streams × RTT: twitter", "by max streams × RTT: imgur", "Streams SPDY needs to beat https", "m vs r"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	// twitter beats https from 1 stream, imgur from 6: the fit has a positive slope.
	if !bytes.Contains(html, []byte("Fit: m = ")) {
		t.Error("no regression fit in the report")
	}
	_, tab, err := streamsRegression(a)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, row := range tab.Rows {
		got[row[0].Text+" "+row[2].Text] = row[3].Text
	}
	want := map[string]string{"twitter 20ms": "1", "twitter 200ms": "1", "imgur 20ms": "6", "imgur 200ms": "6"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("m for %s = %q, want %s (table %v)", k, got[k], v, got)
		}
	}
}

// A store without any load (a run interrupted before its first probe)
// still gets a report that says so, not an error or a panic.
func TestBuildEmptyStore(t *testing.T) {
	dir := t.TempDir()
	s, _ := studyfile.Parse([]byte(cableStudy), "")
	st, err := store.CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if a.Stored != 0 || !bytes.Contains(html, []byte("Incomplete: 0 of 320")) {
		t.Errorf("empty store report: stored %d", a.Stored)
	}
}

func TestLateWarning(t *testing.T) {
	for _, tc := range []struct {
		late, pairs, unpaired int
		shift, se             float64
		want                  string
	}{
		{0, 0, 0, math.NaN(), math.NaN(), ""},
		{3, 3, 0, 10, 1, "Too few of them (3)"},
		{40, 5, 35, 10, 1, "Too few of them (5)"}, // many late, few beside on-time loads
		{40, 30, 0, 5.5, 1, "+5.5% ± 1.0% over 30 pairs from the on-time loads of their conditions, so the lateness moved results: re-run with a lower -j"},
		{40, 30, 0, 5.5, 3, "within twice the standard error of no shift at all"}, // lossy links' spread
		{40, 30, 0, -0.4, 1, "no sign that it moved the results"},
		{40, 30, 3, -0.4, 1, "no sign that it moved the results"}, // a tenth unpaired
		// The heaviest pages late in every load: the light pages' pairs
		// do not speak for them.
		{40, 30, 10, -0.4, 1, "10 of them had fewer than two on-time loads of their condition beside them"},
	} {
		a := &Analysis{LateLoads: tc.late, LinkLateLoads: tc.late, LateShift: stats.Shift{Pct: tc.shift, SEPct: tc.se, Pairs: tc.pairs, Unpaired: tc.unpaired}, OKLoads: 400, LateWorstMs: 3.2}
		got := a.LateWarning()
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%d late loads, shift %v: %q, want %q", tc.late, tc.shift, got, tc.want)
		}
		if tc.late > 0 && !strings.Contains(got, fmt.Sprintf("In %d of 400 loads", tc.late)) {
			t.Errorf("warning does not count the loads: %q", got)
		}
	}
}

// A load is late when its emulator ran late or its endpoints waited for a
// CPU; the warning names each cause with its own count and worst value.
func TestLateWarningNamesEachCause(t *testing.T) {
	for _, tc := range []struct {
		name             string
		link, wait, both int
		want, notWant    []string
	}{
		{"endpoints only", 0, 12, 12, []string{"In 12 of 400 loads", fmt.Sprintf("goroutines waited more than %.0f ms for a CPU at the 99th percentile in 12 (worst 7.3 ms)", stats.WaitLimitMs)}, []string{"link emulator"}},
		{"emulator only", 5, 0, 5, []string{"In 5 of 400 loads", "released packets more than 1 ms late at the 99th percentile in 5 (worst 3.2 ms)"}, []string{"goroutines"}},
		{"both, one load counted once", 3, 4, 6, []string{"In 6 of 400 loads", "late at the 99th percentile in 3", "for a CPU at the 99th percentile in 4"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Analysis{LateLoads: tc.both, LinkLateLoads: tc.link, WaitLoads: tc.wait, OKLoads: 400, LateWorstMs: 3.2, WaitWorstMs: 7.34, LateShift: stats.Shift{Pct: math.NaN(), SEPct: math.NaN()}}
			got := a.LateWarning()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q names %q, which was not late", got, w)
				}
			}
		})
	}
}

// A probe whose link self-check failed (the short check's rate or queue out
// of tolerance) marks its condition in the all-conditions table.
func TestLinkCheckProblemShown(t *testing.T) {
	s, st := openCableStore(t)
	c := s.Conditions[0]
	const problem = "queue_down 45pkts outside 47..53"
	r := probe.Result{Condition: c.Condition, Run: s.Runs, Started: time.Now(), PLTms: 1000, ToWms: 900, Resources: 1}
	putExtraLoad(t, st, s, c, r, probe.LinkCheck{Problem: problem})
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, row := range conditionsTable(a).Rows {
		for _, cl := range row {
			if strings.Contains(cl.Text, "(link check: "+problem+")") {
				marked++
			}
		}
	}
	if marked != 1 {
		t.Errorf("%d rows carry the link check's problem, want 1", marked)
	}
}

// A stored load whose endpoints waited for a CPU past the limit counts as
// late, and one under it does not, whatever its emulator did.
func TestEndpointWaitMakesALoadLate(t *testing.T) {
	s, st := openCableStore(t)
	before, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	for i, waitMs := range []float64{stats.WaitLimitMs + 3, stats.WaitLimitMs / 2} {
		c := s.Conditions[i]
		r := probe.Result{Condition: c.Condition, Run: s.Runs, Started: time.Now(), PLTms: 1000, ToWms: 900, Resources: 1,
			EndpointWait: &probe.EndpointWait{P50ms: 0.02, P99ms: waitMs, Samples: 5000}}
		putExtraLoad(t, st, s, c, r, probe.LinkCheck{})
	}
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	if a.WaitLoads != before.WaitLoads+1 || a.LateLoads != before.LateLoads+1 || a.LinkLateLoads != before.LinkLateLoads {
		t.Errorf("late %d->%d, waiting %d->%d, link-late %d->%d: want one more waiting load and no more link-late ones",
			before.LateLoads, a.LateLoads, before.WaitLoads, a.WaitLoads, before.LinkLateLoads, a.LinkLateLoads)
	}
	if a.WaitWorstMs != stats.WaitLimitMs+3 {
		t.Errorf("worst wait %.2f ms, want %.2f", a.WaitWorstMs, stats.WaitLimitMs+3)
	}
	if !strings.Contains(a.LateWarning(), "waited more than") {
		t.Errorf("warning %q does not name the endpoints' wait", a.LateWarning())
	}
}
