package findings

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/spec"
)

// loads is n PLTs spread a little around median ms.
func loads(n int, ms float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = ms * (1 + 0.01*float64(i%5-2))
	}
	return out
}

// The contrast pairs each cell with its twin at the factor's other value
// (same page) and answers with the ratio of the two settings' gains and
// each side's PLT ratio.
func TestContrastLines(t *testing.T) {
	plts := map[string][]float64{}
	var cells []*report.Condition
	for _, pg := range []string{"a", "b"} {
		for hosts, spdy := range map[string]float64{"recorded": 1000, "one": 500} {
			h := pg + hosts
			c := &report.Condition{Cond: spec.Cond{Hash: h, Values: map[string]string{"page": pg, "hosts": hosts, "protocol": "spdy/2"}}, BaseHash: h + "-base"}
			plts[h], plts[h+"-base"] = loads(10, spdy), loads(10, 1000)
			cells = append(cells, c)
		}
	}
	// Order the cells so that recorded comes first, as a study lists them.
	if cells[0].Values["hosts"] != "recorded" {
		cells[0], cells[1] = cells[1], cells[0]
	}
	if cells[2].Values["hosts"] != "recorded" {
		cells[2], cells[3] = cells[3], cells[2]
	}
	f := &File{Contrast: []string{"hosts"}}
	lines := contrastLines(&report.Analysis{BaseLabel: "https"}, f, "spdy/2", cells, plts)
	if len(lines) != 1 {
		t.Fatalf("lines %q, want one", lines)
	}
	for _, want := range []string{"gain at hosts=one / gain at hosts=recorded = 2.00 [", "over 2 cells", "larger beyond the noise", "https 1.00 [", "spdy/2 0.50 ["} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%q lacks %q", lines[0], want)
		}
	}
	f.Contrast = []string{"page", "protocol"}
	lines = contrastLines(&report.Analysis{BaseLabel: "https"}, f, "spdy/2", cells, plts)
	if len(lines) != 2 || !strings.Contains(lines[1], "needs exactly two values") {
		t.Errorf("a factor of one value: %q", lines)
	}
}

func TestTrendLines(t *testing.T) {
	plts := map[string][]float64{}
	var cells []*report.Condition
	for _, rate := range []string{"1mbit", "10mbit"} {
		h := "c" + rate
		cells = append(cells, &report.Condition{Cond: spec.Cond{Hash: h, Values: map[string]string{"rate": rate}}, BaseHash: h + "-base"})
		plts[h], plts[h+"-base"] = loads(10, 1000), loads(10, map[string]float64{"1mbit": 1000, "10mbit": 2000}[rate])
	}
	lines := trendLines(&report.Analysis{BaseLabel: "https"}, &File{Trend: []string{"rate"}}, "spdy/3", cells, plts)
	if len(lines) != 1 || !strings.Contains(lines[0], "1mbit 1.00 [") || !strings.Contains(lines[0], "10mbit 2.00 [") {
		t.Fatalf("lines %q", lines)
	}
}

// TestShortPage: a page's path shortens to its file name, alone or in a
// cell, and a rate's slash is left alone (a walk's cell once lost its page
// and rate to the rate's slash).
func TestShortPage(t *testing.T) {
	for in, want := range map[string]string{
		"har:/x/pages/har/google-2019.har":                             "google-2019.har",
		"page=har:/x/har/linkedin-2019.har rate=1mbit/1mbit rtt=200ms": "page=linkedin-2019.har rate=1mbit/1mbit rtt=200ms",
		"page=pageA loss=0%":                                           "page=pageA loss=0%",
	} {
		if got := shortPage(in); got != want {
			t.Errorf("shortPage(%q) = %q, want %q", in, got, want)
		}
	}
}

// A finding's looked-at cells (a breakdown read to find a mechanism) are
// counted apart from both the cells the variant was chosen on and the
// held-out ones.
func TestLookedAtCellsCountedApart(t *testing.T) {
	f, err := parse("x", "x.toml", []byte("# chosen-on: page=a\n# looked-at: page=b\n# looked-at: page=c; shards=6\n# in-sample: tuned: picked here\n"+smallFinding))
	if err != nil {
		t.Fatal(err)
	}
	a := &report.Analysis{BaseLabel: "https", Values: map[string][]float64{}}
	var cells []*report.Condition
	for _, pg := range []string{"a", "b", "c"} {
		for _, shards := range []string{"1", "2", "3", "4", "5", "6"} {
			h := pg + shards
			cells = append(cells, &report.Condition{Cond: spec.Cond{Hash: h, Values: map[string]string{"page": pg, "shards": shards}},
				BaseHash: h + "-base", Gain: 2, Significance: report.Won})
			a.Values[h], a.Values[h+"-base"] = loads(10, 500), loads(10, 1000)
		}
	}
	lines := sampleLines(a, f, "spdy/3.1 tuned", "", cells)
	want := []string{"6 cells", "(in-sample", "7 cells", "(looked at", "5 cells", "(held-out"}
	if len(lines) != 3 {
		t.Fatalf("lines %q, want 3 (in sample, looked at, held out)", lines)
	}
	for i, l := range lines {
		if !strings.Contains(l, want[2*i]) || !strings.Contains(l, want[2*i+1]) {
			t.Errorf("line %d %q: want %q and %q", i, l, want[2*i], want[2*i+1])
		}
	}
	if _, err := parse("y", "y.toml", []byte("# looked-at: page\n"+smallFinding)); err == nil || !strings.Contains(err.Error(), "line 1: looked-at") {
		t.Errorf("a bad looked-at line: err %v, want one naming it", err)
	}
}
