package report

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/studyfile"
)

// googleShaped has study4-google's shape: a rate sweep at 60 ms, an RTT
// sweep at 5 Mbit/s and an initcwnd matrix at 100 Mbit/s and 200 ms with
// a queue of its own.
const googleShaped = `
name = "google-shaped"
runs = 1
seed = 4
[factors]
page = ["pageA", "pageB"]
protocol = ["https", "spdy/3.1"]
queue = "100pkt"
iw = 3
[[matrix]]
rate = ["1mbit/256kbit", "2mbit/375kbit", "5mbit/1mbit", "10mbit/2mbit", "20mbit/5mbit"]
rtt = "60ms"
[[matrix]]
rate = "5mbit/1mbit"
rtt = ["20ms", "40ms", "80ms", "120ms", "160ms", "200ms"]
[[matrix]]
rate = "100mbit"
rtt = "200ms"
queue = "1000pkt"
iw = [3, 6, 9, 12, 15, 18]
`

// conditionCode gives every condition of googleShaped its own number, used
// as its median PLT and ToW reduction, so a plotted point tells which
// condition it came from (and a mean of several matches none).
func conditionCode(v map[string]string) float64 {
	rtt, _ := time.ParseDuration(v["rtt"])
	iw, _ := numericX("iw", v["iw"])
	y := float64(rtt.Milliseconds())*1000 + iw*10
	if v["queue"] == "1000pkt" {
		y++
	}
	if v["page"] == "pageB" {
		y += 0.5
	}
	if v["protocol"] == "spdy/3.1" {
		y += 0.25
	}
	return y
}

// googleShapedAnalysis is the analysis of googleShaped with coded medians.
func googleShapedAnalysis(t *testing.T) *Analysis {
	t.Helper()
	s, err := studyfile.Parse([]byte(googleShaped), "")
	if err != nil {
		t.Fatal(err)
	}
	a := &Analysis{Study: s, ByHash: map[string]*Condition{}}
	a.indexConditions()
	for _, c := range a.Conds {
		c.IsBaseline = c.Label == a.BaseLabel
		c.PLT.Median = conditionCode(c.Values)
		if !c.IsBaseline {
			c.ToWRedPct = conditionCode(c.Values)
		}
	}
	return a
}

// points lists "x y" of every point of the given lines, sorted.
func points(lines []Series) []string {
	var out []string
	for _, s := range lines {
		for i := range s.X {
			out = append(out, fmt.Sprintf("%g %g", s.X[i], s.Y[i]))
		}
	}
	sort.Strings(out)
	return out
}

// Each sweep figure plots the conditions of its sweep,
// never a mean that mixes in another sweep's conditions.
func TestSweepChartsPlotOnlyTheirSweep(t *testing.T) {
	a := googleShapedAnalysis(t)
	onSweep := map[string]func(v map[string]string) bool{
		"rate": func(v map[string]string) bool { return v["rtt"] == "60ms" && v["queue"] == "100pkt" && v["iw"] == "3" },
		// the 5 Mbit/s, 60 ms point of the rate sweep lies on the RTT sweep too
		"rtt": func(v map[string]string) bool {
			return v["rate"] == "5mbit/1mbit" && v["queue"] == "100pkt" && v["iw"] == "3"
		},
		"iw": func(v map[string]string) bool { return v["rate"] == "100mbit/100mbit" && v["rtt"] == "200ms" },
	}
	for f, on := range onSweep {
		var wantPLT, wantRed []string
		for _, c := range a.Conds {
			if !on(c.Values) {
				continue
			}
			x, _ := numericX(f, c.Values[f])
			wantPLT = append(wantPLT, fmt.Sprintf("%g %g", x, conditionCode(c.Values)))
			if !c.IsBaseline {
				wantRed = append(wantRed, fmt.Sprintf("%g %g", x, conditionCode(c.Values)))
			}
		}
		sort.Strings(wantPLT)
		sort.Strings(wantRed)
		charts := sweepCharts(a, f)
		if len(charts) != 1 {
			t.Errorf("%s: %d charts, want the one sweep's", f, len(charts))
		}
		var plt, red []Series
		for _, ch := range charts {
			plt, red = append(plt, ch.plt...), append(red, ch.red...)
			if strings.Contains(ch.title+ch.caption, "mean") {
				t.Errorf("%s: chart %q (%s) averages", f, ch.title, ch.caption)
			}
		}
		if got := points(plt); strings.Join(got, ", ") != strings.Join(wantPLT, ", ") {
			t.Errorf("%s: PLT points\n%v\nwant the sweep's\n%v", f, got, wantPLT)
		}
		if got := points(red); strings.Join(got, ", ") != strings.Join(wantRed, ", ") {
			t.Errorf("%s: ToW reduction points\n%v\nwant the sweep's\n%v", f, got, wantRed)
		}
	}
}

// crossStudy sweeps rtt across every combination of the factors in extra,
// over four pages.
func crossStudy(extra string) string {
	return `
name = "cross"
runs = 1
seed = 1
[factors]
page = ["pageA", "pageB", "pageC", "youtube"]
protocol = ["https", "spdy/3.1"]
rate = "10mbit/1mbit"
rtt = ["20ms", "100ms", "300ms"]
` + extra
}

// indexedAnalysis is the analysis of src where each condition's median
// PLT is its position in the study, from 1.
func indexedAnalysis(t *testing.T, src string) *Analysis {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	a := &Analysis{Study: s, ByHash: map[string]*Condition{}}
	a.indexConditions()
	for i, c := range a.Conds {
		c.IsBaseline = c.Label == a.BaseLabel
		c.PLT.Median = float64(i + 1)
	}
	return a
}

// Three loss sweeps of four pages are 12 lines per variant: two charts,
// each line one sweep's, its loss named by the line (or by the title of a
// chart of one sweep).
func TestSweepChartsSplitWhenTooManyLines(t *testing.T) {
	a := indexedAnalysis(t, crossStudy(`loss = ["0%", "1%", "2%"]`))
	charts := sweepCharts(a, "rtt")
	if len(charts) != 2 {
		t.Fatalf("%d charts, want 2 (8 lines per variant, then 4)", len(charts))
	}
	byValue := map[float64]*Condition{}
	for _, c := range a.Conds {
		byValue[c.PLT.Median] = c
	}
	seen := 0
	for _, ch := range charts {
		if len(ch.plt) > 2*maxLinesPerVariant {
			t.Errorf("chart %q has %d lines", ch.title, len(ch.plt))
		}
		for _, s := range ch.plt {
			_, loss, _ := strings.Cut(s.Name+ch.title, "loss=")
			for i, y := range s.Y {
				c := byValue[y]
				if c == nil || c.Values["loss"] != loss || !strings.HasPrefix(s.Name, c.Values["page"]+" "+c.Label) {
					t.Errorf("line %q has point (%v, %v), not one of its conditions", s.Name, s.X[i], y)
				}
				seen++
			}
		}
	}
	if seen != len(a.Conds) {
		t.Errorf("%d points for %d conditions", seen, len(a.Conds))
	}
}

// Nine sweeps (shards x loss) of four pages would take five charts: they
// cover the same points, so one chart shows their means and says so.
func TestSweepChartsAverageAFullCrossAndSayWhat(t *testing.T) {
	a := indexedAnalysis(t, crossStudy("shards = [1, 2, 4]\nloss = [\"0%\", \"1%\", \"2%\"]"))
	charts := sweepCharts(a, "rtt")
	if len(charts) != 1 {
		t.Fatalf("%d charts, want 1", len(charts))
	}
	ch := charts[0]
	for _, want := range []string{"mean of the 9 sweeps", "combination of shards 1|2|4 × loss 0%|1%|2%"} {
		if !strings.Contains(ch.caption, want) {
			t.Errorf("caption %q does not say %q", ch.caption, want)
		}
	}
	sum, n := map[string]float64{}, map[string]float64{}
	for _, c := range a.Conds {
		x, _ := numericX("rtt", c.Values["rtt"])
		k := fmt.Sprintf("%s %s %g", c.Values["page"], c.Label, x)
		sum[k] += c.PLT.Median
		n[k]++
	}
	for _, s := range ch.plt {
		for i, x := range s.X {
			k := fmt.Sprintf("%s %g", s.Name, x)
			if n[k] != 9 || s.Y[i] != sum[k]/9 {
				t.Errorf("%s: %v, want the mean %v of %v conditions", k, s.Y[i], sum[k]/n[k], n[k])
			}
		}
	}
}
