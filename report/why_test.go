package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// whyCond is a condition with n loads, each spending ms per category.
func whyCond(hash, proto string, n int, ms map[string]float64) *Condition {
	c := &Condition{Cond: spec.Cond{Hash: hash, Values: map[string]string{"protocol": proto, "rtt": "200ms"}}, Label: proto}
	var plt []float64
	for i := range n {
		b := &probe.Breakdown{Ms: map[string]float64{}}
		total := 0.0
		for k, v := range ms {
			b.Ms[k] = v * (1 + float64(i%3)/100) // a little spread
			total += b.Ms[k]
		}
		c.CritPath.add(b)
		plt = append(plt, total)
	}
	c.PLT = stats.Summarize(plt)
	return c
}

func TestWhyNamesTheLargestSavingsAndLosses(t *testing.T) {
	base := whyCond("b", probe.ProtoHTTPS, 6, map[string]float64{probe.CatQueued: 800, probe.CatTLS: 400, probe.CatTransfer: 300})
	spdy := whyCond("s", probe.ProtoSPDY31, 6, map[string]float64{probe.CatQueued: 100, probe.CatTLS: 200, probe.CatTransfer: 300, probe.CatLoss: 250})
	spdy.BaseHash = "b"
	a := &Analysis{Study: &spec.Study{Varied: []string{"protocol", "rtt"}}, Conds: []*Condition{base, spdy}, ByHash: map[string]*Condition{"b": base, "s": spdy}}
	cells := Why(a, "")
	if len(cells) != 1 || cells[0].Terms[0].Cat != probe.CatQueued {
		t.Fatalf("cells %+v, want one with queueing first", cells)
	}
	s := cells[0].Sentence
	for _, want := range []string{"spdy/3.1 saved", "of client queueing", "of TLS handshakes", "lost", "to loss recovery"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "transfer") {
		t.Errorf("sentence %q names a category that did not change", s)
	}
	var out bytes.Buffer
	WriteWhy(&out, cells, "PLT")
	if !strings.Contains(out.String(), s) || !strings.Contains(out.String(), "client queueing") {
		t.Errorf("WriteWhy:\n%s", out.String())
	}
	if len(Why(a, "rtt=20ms")) != 0 || len(Why(a, "rtt=200ms,spdy")) != 1 {
		t.Error("the cell filter does not select by value and word")
	}
}

func TestCritPathKeepsLoadsAligned(t *testing.T) {
	var cp CritPath
	cp.add(&probe.Breakdown{Ms: map[string]float64{probe.CatTLS: 10}})
	cp.add(&probe.Breakdown{None: "failed"})
	cp.add(&probe.Breakdown{Ms: map[string]float64{probe.CatQueued: 30}})
	if cp.Loads != 2 || len(cp.Ms[probe.CatTLS]) != 2 || len(cp.Ms[probe.CatQueued]) != 2 || cp.Ms[probe.CatQueued][0] != 0 {
		t.Fatalf("%+v", cp)
	}
	if m := cp.Medians(); m[probe.CatTLS] != 5 || m[probe.CatQueued] != 15 {
		t.Fatalf("medians %v", m)
	}
}

func TestWhySectionDrawsThePickedCells(t *testing.T) {
	base := whyCond("b", probe.ProtoHTTPS, 6, map[string]float64{probe.CatQueued: 800, probe.CatTLS: 400})
	spdy := whyCond("s", probe.ProtoSPDY31, 6, map[string]float64{probe.CatQueued: 100, probe.CatTLS: 200})
	spdy.BaseHash, spdy.Gain = "b", base.PLT.Median/spdy.PLT.Median
	a := &Analysis{Study: &spec.Study{Varied: []string{"protocol", "rtt"}}, Conds: []*Condition{base, spdy}, ByHash: map[string]*Condition{"b": base, "s": spdy}}
	figs, tabs, err := whySection(a)
	if err != nil || len(figs) != 1 || len(tabs) != 1 || len(tabs[0].Rows) != 1 {
		t.Fatalf("figures %d, tables %v, err %v: want the one cell drawn and listed", len(figs), tabs, err)
	}
	if !strings.Contains(string(figs[0].SVG), "<svg") || !strings.Contains(figs[0].Caption, "saved") {
		t.Errorf("figure %q: %.80s", figs[0].Caption, figs[0].SVG)
	}
}

func TestFidelityGapsNameTheCategory(t *testing.T) {
	loader := whyCond("l", probe.ProtoH2, 5, map[string]float64{probe.CatQueued: 100, probe.CatHOL: 300})
	chromium := whyCond("c", probe.ProtoH2, 5, map[string]float64{probe.CatQueued: 400, probe.CatHOL: 290})
	gaps := FidelityCell{Loader: loader, Browser: chromium}.CategoryGaps()
	if len(gaps) != 2 || gaps[0].Cat != probe.CatQueued || math.Abs(gaps[0].GapMs+300) > 10 {
		t.Fatalf("gaps %+v, want queueing about -300 first", gaps)
	}
}

func TestWaterfallShadesTheCriticalPath(t *testing.T) {
	doc := []byte(`{"log":{"pages":[{"startedDateTime":"2026-11-27T12:00:00.000Z","id":"page_1","title":"p","pageTimings":{"onContentLoad":1,"onLoad":1}}],
	"entries":[{"startedDateTime":"2026-11-27T12:00:00.000Z","time":30,"request":{"url":"https://s1.spdylab.test/"},"response":{"status":200},
	"timings":{"blocked":0,"dns":-1,"connect":10,"ssl":-1,"send":0,"wait":10,"receive":10}}]}}`)
	svg, err := WaterfallPathSVG(doc, "t", []probe.PathStep{{URL: "https://s1.spdylab.test/", StartMs: 0, EndMs: 30}})
	if err != nil || !strings.Contains(svg, "<title>critical path</title>") || !strings.Contains(svg, `font-weight="bold"`) {
		t.Fatalf("err %v; svg lacks the shaded path:\n%.300s", err, svg)
	}
	if plain, _ := WaterfallSVG(doc, "t"); strings.Contains(plain, "critical path") {
		t.Error("a waterfall without a path shades one")
	}
}

func TestWhySentenceSaysWhenTheLargestChangeIsUnclear(t *testing.T) {
	terms := []WhyTerm{
		{probe.CatLoss, stats.DiffCI{Diff: 4000, Lo: -200, Hi: 8000}},
		{probe.CatQueued, stats.DiffCI{Diff: -3000, Lo: -3100, Hi: -2900}},
	}
	s := whySentence("spdy/3.1", "https", terms, 3000)
	if !strings.Contains(s, "saved 3000 ms of client queueing") || !strings.Contains(s, "+4000 ms of loss recovery, varies too much") {
		t.Fatalf("sentence %q", s)
	}
}

func TestCategorySweepFollowsTheFactor(t *testing.T) {
	a := &Analysis{ByHash: map[string]*Condition{}}
	var conds []*Condition
	for i, rtt := range []string{"20ms", "100ms"} {
		scale := float64(i + 1)
		base := whyCond("b"+rtt, probe.ProtoHTTPS, 5, map[string]float64{probe.CatQueued: 500 * scale, probe.CatTLS: 100})
		v := whyCond("s"+rtt, probe.ProtoSPDY31, 5, map[string]float64{probe.CatQueued: 100, probe.CatTLS: 100})
		base.Values["rtt"], v.Values["rtt"], v.BaseHash = rtt, rtt, base.Hash
		a.ByHash[base.Hash], a.ByHash[v.Hash] = base, v
		conds = append(conds, base, v)
	}
	s := categorySweep(a, "rtt", conds, probe.ProtoSPDY31)
	if len(s) == 0 || s[0].Name != probe.CatQueued || len(s[0].X) != 2 || s[0].X[0] != 20 || s[0].Y[1] > s[0].Y[0] {
		t.Fatalf("series %+v: want queueing first, falling from 20 to 100 ms", s)
	}
}
