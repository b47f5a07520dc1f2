package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// analyzeDir builds dir's report and returns its analysis.
func analyzeDir(t testing.TB, dir string) *Analysis {
	t.Helper()
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantSignificance is cableStudy's known answer: every load lies within
// ±20 ms of its condition's median (pltFor), so a variant 100 ms or more
// faster than the baseline wins beyond doubt, and spdy/3.1 with iw3 at
// 20 ms, whose loads are the baseline's own, is undecided.
func wantSignificance(v map[string]string) Significance {
	if v["protocol"] == "spdy/3.1" && v["iw"] == "3" && v["rtt"] == "20ms" {
		return Undecided
	}
	return Won
}

func TestGainIntervalsKnownAnswer(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	a := analyzeDir(t, dir)
	for _, c := range a.Conds {
		if c.IsBaseline {
			if c.Significance != NoGain || !math.IsNaN(c.GainCI.Lo) {
				t.Errorf("baseline %v has a verdict %q [%v, %v]", c.Values, c.Significance, c.GainCI.Lo, c.GainCI.Hi)
			}
			continue
		}
		want := wantSignificance(c.Values)
		if c.Significance != want || c.ToWSignificance != want {
			t.Errorf("%s %v: gain %v [%v, %v] %q, ToW %q; want %q", c.Label, c.Values, c.Gain, c.GainCI.Lo, c.GainCI.Hi, c.Significance, c.ToWSignificance, want)
		}
		if c.GainCI.Ratio != c.Gain || !(c.GainCI.Lo <= c.Gain && c.Gain <= c.GainCI.Hi) {
			t.Errorf("%v: gain %v outside its interval %+v", c.Values, c.Gain, c.GainCI)
		}
		if lo, hi := c.ToWRedInterval(); !(lo <= c.ToWRedPct && c.ToWRedPct <= hi) {
			t.Errorf("%v: ToW reduction %v outside [%v, %v]", c.Values, c.ToWRedPct, lo, hi)
		}
	}
	// Built twice, the intervals are the same.
	again := analyzeDir(t, dir)
	for i, c := range a.Conds {
		if d := again.Conds[i]; d.GainCI != c.GainCI && !(math.IsNaN(c.GainCI.Ratio) && math.IsNaN(d.GainCI.Ratio)) {
			t.Fatalf("%v: interval %+v, then %+v", c.Values, c.GainCI, d.GainCI)
		}
	}
}

func TestGainIntervalsTooFewLoads(t *testing.T) {
	dir := t.TempDir()
	// spdy fails runs 0, 2 and 4: 2 successful loads, fewer than an
	// interval needs, but a gain all the same.
	fillStore(t, dir, cableStudy, map[string]int{"spdy/3.1": 2})
	a := analyzeDir(t, dir)
	for _, c := range a.Conds {
		if c.Values["protocol"] != "spdy/3.1" {
			continue
		}
		if c.PLT.N >= stats.MinIntervalN || c.Significance != TooFewLoads || math.IsNaN(c.Gain) || !math.IsNaN(c.GainCI.Lo) {
			t.Errorf("%v: %d loads, gain %v %+v %q; want too few", c.Values, c.PLT.N, c.Gain, c.GainCI, c.Significance)
		}
		if got := gainIntervalCell(c).Text; !strings.HasSuffix(got, "(too few loads)") {
			t.Errorf("cell %q", got)
		}
	}
}

// summaryCounts reads the won, lost, undecided and too-few columns of the
// summary row of variant l.
func summaryCounts(t *testing.T, tab table, l string) (cases int, counts [4]int) {
	t.Helper()
	for _, row := range tab.Rows {
		if row[0].Text != l {
			continue
		}
		cases, _ = strconv.Atoi(row[slices.Index(tab.Head, "cases")].Text)
		for i, h := range []string{"won", "lost", "undecided", "too few loads"} {
			counts[i], _ = strconv.Atoi(row[slices.Index(tab.Head, h)].Text)
		}
		return cases, counts
	}
	t.Fatalf("no summary row for %q", l)
	return 0, counts
}

func TestIntervalBoundsNeverReadAsOneWhenTheyAreNot(t *testing.T) {
	for _, tc := range []struct {
		est, lo, hi float64
		prec        int
		pivot       float64
		want        string
	}{
		{1.234, 1.1, 1.37, 2, 1, "1.23 [1.10, 1.37]"},
		{1.09, 1.003, 1.2, 2, 1, "1.09 [1.003, 1.20]"}, // won: the bound does not read 1.00
		{0.99, 0.8, 0.9999, 2, 1, "0.99 [0.80, 0.9999]"},
		{1, 1, 1, 2, 1, "1.00 [1.00, 1.00]"},
		{12.34, 0.04, 20, 1, 0, "12.3 [0.04, 20.0]"},
	} {
		if got := withInterval(tc.est, tc.lo, tc.hi, false, tc.prec, tc.pivot); got != tc.want {
			t.Errorf("%v [%v, %v]: %q, want %q", tc.est, tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestSummaryCountsAddUpToTheCases(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, map[string]int{"spdy/3.1": 2})
	a := analyzeDir(t, dir)
	tab := summaryTables(a)[0]
	for _, l := range a.variants() {
		cases, counts := summaryCounts(t, tab, l)
		if cases != len(a.condsOf(l)) || counts[0]+counts[1]+counts[2]+counts[3] != cases {
			t.Errorf("%s: %d cases of %d conditions; won, lost, undecided, too few %v", l, cases, len(a.condsOf(l)), counts)
		}
		wantTooFew := 0
		if strings.HasPrefix(l, "spdy/3.1") {
			wantTooFew = cases
		}
		if counts[3] != wantTooFew {
			t.Errorf("%s: %d too few, want %d", l, counts[3], wantTooFew)
		}
	}
	for _, g := range gainTables(a) {
		col := slices.Index(g.Head, "won / lost / undecided / too few")
		for _, row := range g.Rows {
			var v verdictCounts
			parts := strings.Split(row[col].Text, " / ")
			for i, p := range []*int{&v.Won, &v.Lost, &v.Undecided, &v.TooFew} {
				*p, _ = strconv.Atoi(parts[i])
			}
			if n, _ := strconv.Atoi(row[col-1].Text); v.total() != n {
				t.Errorf("%s: %q adds up to %d, not n = %d", g.Title, row[col].Text, v.total(), n)
			}
		}
	}
}

func TestExportsCarryTheIntervals(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(dir, CSVFile))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for _, name := range []string{"hash", "gain", "tow_reduction_pct", "gain_lo", "gain_hi", "significance", "tow_gain", "tow_gain_lo", "tow_gain_hi", "tow_reduction_lo_pct", "tow_reduction_hi_pct", "tow_significance"} {
		if col[name] = slices.Index(recs[0], name); col[name] < 0 {
			t.Fatalf("conditions.csv has no column %q", name)
		}
	}
	for _, rec := range recs[1:] {
		c := a.ByHash[rec[col["hash"]]]
		if rec[col["significance"]] != string(c.Significance) || rec[col["tow_significance"]] != string(c.ToWSignificance) {
			t.Errorf("%v: significance %q / %q, want %q / %q", c.Values, rec[col["significance"]], rec[col["tow_significance"]], c.Significance, c.ToWSignificance)
		}
		if c.IsBaseline {
			if rec[col["gain_lo"]] != "" || rec[col["tow_gain_hi"]] != "" {
				t.Errorf("baseline row has bounds: %v", rec)
			}
			continue
		}
		lo, _ := strconv.ParseFloat(rec[col["gain_lo"]], 64)
		hi, _ := strconv.ParseFloat(rec[col["gain_hi"]], 64)
		if lo != c.GainCI.Lo || hi != c.GainCI.Hi || !(lo <= c.Gain && c.Gain <= hi) {
			t.Errorf("%v: gain bounds %q, %q; want %v, %v", c.Values, rec[col["gain_lo"]], rec[col["gain_hi"]], c.GainCI.Lo, c.GainCI.Hi)
		}
	}
	var rows []map[string]any
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		c := a.ByHash[r["hash"].(string)]
		if c.IsBaseline {
			continue
		}
		if r["gain_lo"] != c.GainCI.Lo || r["tow_gain_hi"] != c.ToWGainCI.Hi || r["significance"] != string(c.Significance) {
			t.Errorf("conditions.json %v: %v %v %v", c.Values, r["gain_lo"], r["tow_gain_hi"], r["significance"])
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, want := range []string{"How to read intervals", "percentile bootstrap", strconv.Itoa(stats.RatioResamples) + " times",
		gainIntervalCell(a.Conds[1]).Text, "won / lost / undecided / too few"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// barStrokes counts the strokes of the first series' interval bars (its
// colour at the bars' width): three per bar, the bar and its two caps.
func barStrokes(svg string) int {
	return strings.Count(svg, "stroke:"+strings.ToUpper(cssColor(colorAt(0)))+";stroke-width:0.8")
}

// Interval bars are drawn for the points that have an interval, along Y in
// line plots and along X in CDFs.
func TestPlotsDrawIntervalBars(t *testing.T) {
	bare := Series{Name: "a", X: []float64{1, 2, 3}, Y: []float64{10, 20, 15}}
	withBars := bare
	withBars.Lo, withBars.Hi = []float64{5, 18, math.NaN()}, []float64{12, 25, math.NaN()}
	for _, tc := range []struct {
		s    Series
		want int
	}{{bare, 0}, {withBars, 6}} {
		svg, _, err := linePlot("t", "x", "y", []Series{tc.s}, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if n := barStrokes(svg); n != tc.want {
			t.Errorf("line plot: %d strokes of bars, want %d", n, tc.want)
		}
		cdf := tc.s
		cdf.X, cdf.Y = tc.s.Y, nil // a CDF of the gains 10, 20, 15
		if svg, _, err = cdfPlotOf("t", "gain", "pages", []Series{cdf}); err != nil {
			t.Fatal(err)
		}
		if n := barStrokes(svg); n != tc.want {
			t.Errorf("CDF: %d strokes of bars, want %d", n, tc.want)
		}
	}
}

func TestLoadSummaryGainAgainstTheBaseline(t *testing.T) {
	loads := func(median float64, n int) []probe.Result {
		var rs []probe.Result
		for i := range n {
			d := float64(i%5-2) * 0.02 * median
			rs = append(rs, probe.Result{Run: i, PLTms: median + d, ToWms: median - 50 + d})
		}
		return rs
	}
	protos := []string{probe.ProtoSPDY31, probe.ProtoHTTPS}
	if LoadBaseline(protos) != probe.ProtoHTTPS || LoadBaseline([]string{probe.ProtoSPDY31}) != probe.ProtoSPDY31 {
		t.Fatal("the baseline protocol is https when it is loaded, else the first")
	}
	base := SummarizeLoads("pageA", probe.ProtoHTTPS, probe.Condition{}, loads(1000, 10))
	fast := SummarizeLoads("pageA", probe.ProtoSPDY31, probe.Condition{}, loads(500, 10))
	fast.CompareWith(base)
	base.CompareWith(base)
	if base.Against != nil || fast.Against == nil || fast.Against.Significance != Won || *fast.Against.GainLo <= 1 {
		t.Fatalf("against https: %+v (the baseline's own: %+v)", fast.Against, base.Against)
	}
	var out bytes.Buffer
	fast.Print(&out)
	if !strings.Contains(out.String(), "PLT gain vs https: 2.00 [") || !strings.Contains(out.String(), "(won)") {
		t.Errorf("summary:\n%s", out.String())
	}
	few := SummarizeLoads("pageA", probe.ProtoSPDY31, probe.Condition{}, loads(500, 3))
	few.CompareWith(base)
	out.Reset()
	few.Print(&out)
	if few.Against == nil || few.Against.Significance != TooFewLoads || !strings.Contains(out.String(), "too few loads for an interval") {
		t.Errorf("3 loads: %+v\n%s", few.Against, out.String())
	}
	one := SummarizeLoads("pageA", probe.ProtoSPDY31, probe.Condition{}, loads(500, 1))
	if one.CompareWith(base); one.Against != nil {
		t.Error("a gain from a single load")
	}
}

func TestCompareKeepsVerdicts(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, cableStudy, nil)
	c, err := Compare(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Decided != c.Gains || c.SameVerdict != c.Decided || c.WonAndLost != 0 {
		t.Errorf("self-comparison: %d decided of %d gains, %d keep their verdict, %d won and lost", c.Decided, c.Gains, c.SameVerdict, c.WonAndLost)
	}
	var out bytes.Buffer
	c.Write(&out)
	if want := fmt.Sprintf("%d keep their verdict (won / lost / undecided), 0 won in one run and lost in the other", c.Decided); !strings.Contains(out.String(), want) {
		t.Errorf("comparison lacks %q:\n%s", want, out.String())
	}
}

// study432 is a 432-condition study at 20 loads each, the size the
// intervals' cost is judged at.
const study432 = `
name = "bench-432"
runs = 20
seed = 5
[factors]
page = ["pageA", "pageB"]
shards = [1, 2]
rate = ["2mbit/1mbit", "10mbit/1mbit", "50mbit/10mbit"]
rtt = ["20ms", "60ms", "100ms"]
loss = ["0%", "1%", "2%"]
iw = [3, 10]
protocol = ["https", "spdy/3.1"]
[baseline]
protocol = "https"
iw = 3
`

// store432 fills a store with study432 once per benchmark (slow: 8640
// probes with their HARs).
func store432(b *testing.B) string {
	dir := b.TempDir()
	s := fillStore(b, dir, study432, nil)
	if n := len(s.Conditions); n != 432 {
		b.Fatalf("%d conditions", n)
	}
	return dir
}

// BenchmarkGainIntervals432x20 is what the intervals add to a report of
// 432 conditions x 20 loads: two bootstrap intervals per condition.
func BenchmarkGainIntervals432x20(b *testing.B) {
	a := analyzeDir(b, store432(b))
	samples, _ := a.collectSamples()
	for b.Loop() {
		a.gainIntervals(samples)
	}
}

// BenchmarkBuild432x20 is the whole report build (analysis, HTML, CSV,
// JSON) of the same store.
func BenchmarkBuild432x20(b *testing.B) {
	dir := store432(b)
	for b.Loop() {
		if _, err := Build(dir); err != nil {
			b.Fatal(err)
		}
	}
}
