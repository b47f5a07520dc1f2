package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

const walkTestStudy = `name = "walk"
runs = 6
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
[presets.old]
iw = 3
rtt = "20ms"
[presets.new]
iw = 10
rtt = "100ms"
[[walk]]
from = "old"
to = "new"
steps = ["iw", "rtt"]
alone = true
`

// walkBreakdown is a load's critical path in the test's model: HTTPS
// spends 500 ms queueing and 500 ms transferring; SPDY's transfer halves
// at iw 10 and its queueing falls to a fifth at 100 ms RTT.
func walkBreakdown(v map[string]string) map[string]float64 {
	q, tr := 500.0, 500.0
	if v["protocol"] != "https" {
		if v["iw"] == "10" {
			tr = 250
		}
		if v["rtt"] == "100ms" {
			q = 100
		}
	}
	return map[string]float64{probe.CatQueued: q, probe.CatTransfer: tr}
}

// fillWalkStore stores six loads per condition of walkTestStudy, spread
// by ±1% around the model's PLT, with their breakdowns.
func fillWalkStore(t *testing.T, dir string) {
	t.Helper()
	s, st, sess := openTestStore(t, dir, walkTestStudy)
	defer st.Close()
	for _, c := range s.Conditions {
		ms := walkBreakdown(c.Values)
		for run := range s.Runs {
			f := 1 + float64(run-3)/100
			b := &probe.Breakdown{Ms: map[string]float64{}}
			plt := 0.0
			for k, v := range ms {
				b.Ms[k] = v * f
				plt += v * f
			}
			r := probe.Result{Condition: c.Condition, Run: run, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), PLTms: plt, ToWms: plt, Breakdown: b}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The walk splits the change in gain between the two presets into each
// step's share, names the category that moved, and shows each change
// alone; the outputs carry the same numbers.
func TestWalkTableFromAStore(t *testing.T) {
	dir := t.TempDir()
	fillWalkStore(t, dir)
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Walks) != 1 {
		t.Fatalf("%d walk tables, want 1", len(a.Walks))
	}
	w := a.Walks[0]
	if w.Cell != "page=pageA" || len(w.Rows) != 3 || len(w.Alone) != 2 {
		t.Fatalf("table %+v", w)
	}
	// Gains: 1000/1000, 1000/750, 1000/350; alone: iw 1000/750, rtt 1000/600.
	near := func(x, want float64) bool { return math.Abs(x-want) < 1e-6 }
	wantGain := []float64{1, 1000.0 / 750, 1000.0 / 350}
	for i, r := range w.Rows {
		if !near(r.Gain(), wantGain[i]) {
			t.Errorf("step %d gain %v, want %v", i, r.Gain(), wantGain[i])
		}
	}
	total := wantGain[2] - wantGain[0]
	if !near(w.Total, total) || !near(w.Rows[1].Delta, wantGain[1]-1) || !near(w.Rows[2].Share, (wantGain[2]-wantGain[1])/total) {
		t.Errorf("total %v, deltas %v %v, share %v", w.Total, w.Rows[1].Delta, w.Rows[2].Delta, w.Rows[2].Share)
	}
	if !math.IsNaN(w.Rows[0].Delta) || w.Rows[0].Moved != "" {
		t.Errorf("step 0 has a delta %v or a moved category %q though nothing changed", w.Rows[0].Delta, w.Rows[0].Moved)
	}
	if w.Rows[1].Moved != probe.CatTransfer || math.Abs(w.Rows[1].MovedMs+250) > 5 || w.Rows[2].Moved != probe.CatQueued || math.Abs(w.Rows[2].MovedMs+400) > 5 {
		t.Errorf("moved: %s %v, %s %v", w.Rows[1].Moved, w.Rows[1].MovedMs, w.Rows[2].Moved, w.Rows[2].MovedMs)
	}
	// Order dependence: rtt alone is worth less than its share at the end.
	if !near(w.Alone[1].Delta, 1000.0/600-1) || w.Alone[1].Factor != "rtt" || w.Alone[1].Delta >= w.Rows[2].Delta {
		t.Errorf("rtt alone %+v", w.Alone[1])
	}
	if w.Rows[2].Variant.Significance != Won {
		t.Errorf("last step verdict %q, want won", w.Rows[2].Variant.Significance)
	}
	var out bytes.Buffer
	WriteWalks(&out, a.Walks)
	for _, want := range []string{"walk old → new  (page=pageA)", "iw 3 → 10", "rtt 20ms → 100ms", "2.86 [", "won", "+0.33", "client queueing -398 ms", "alone", "the gain changes by +1.86"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	WritePresets(&out, PresetGains(a))
	for _, want := range []string{"Presets", "old ", "new ", "2.86 ["} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("presets text lacks %q:\n%s", want, out.String())
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("Walk old → new (page=pageA)")) || !bytes.Contains(html, []byte("Presets: each setup")) {
		t.Error("report.html has no walk table")
	}
	f, err := os.Open(filepath.Join(dir, WalksCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 1+3+2 || recs[3][5] != "rtt" || recs[3][3] != "step" {
		t.Errorf("walks.csv: %v %v", err, recs)
	}
	if _, err := os.Stat(filepath.Join(dir, WalksJSONFile)); err != nil {
		t.Error(err)
	}
}

// Shares are given only when the walk's ends disagree beyond the noise.
func TestWalkSharesOnlyWhenTheEndsDisagree(t *testing.T) {
	c := func(g, lo, hi float64, tooFew bool) *Condition {
		return &Condition{Gain: g, GainCI: stats.RatioCI{Ratio: g, Lo: lo, Hi: hi, TooFew: tooFew}}
	}
	cases := []struct {
		a, b *Condition
		want bool
	}{
		{c(2.45, 2.01, 2.71, false), c(2.53, 2.23, 2.91, false), false}, // overlapping intervals
		{c(1.0, 0.97, 1.03, false), c(2.86, 2.77, 2.93, false), true},
		{c(1.0, math.NaN(), math.NaN(), true), c(1.04, math.NaN(), math.NaN(), true), false}, // no intervals: within 0.05
		{c(1.0, math.NaN(), math.NaN(), true), c(1.5, math.NaN(), math.NaN(), true), true},
		{nil, c(1.5, 1.4, 1.6, false), false},
	}
	for i, tc := range cases {
		if got := endsDisagree(tc.a, tc.b); got != tc.want {
			t.Errorf("case %d: endsDisagree = %v, want %v", i, got, tc.want)
		}
	}
	if !math.IsNaN(share(0.3, math.NaN())) || share(0.5, 2) != 0.25 {
		t.Error("share")
	}
}
