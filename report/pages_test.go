package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

const corpusStudy = `
name = "mini-corpus"
runs = 3
seed = 1
[factors]
page = ["pageA", "pageB", "twitter", "youtube", "imgur"]
rtt = ["20ms", "100ms"]
protocol = ["https", "spdy/3.1"]
`

// corpusPLT is each condition's median PLT: HTTPS takes 1000 ms; at 20 ms
// SPDY is 50% and 10% faster on two pages, 2% faster and 5% slower (the
// band's edge: within) on two more, 25% slower on one; at 100 ms it moves
// nothing but pageA, which is 6% slower.
func corpusPLT(v map[string]string) float64 {
	if v["protocol"] == "https" {
		return 1000
	}
	if v["rtt"] == "100ms" {
		if v["page"] == "pageA" {
			return 1060
		}
		return 1000
	}
	return map[string]float64{"pageA": 500, "pageB": 980, "twitter": 1250, "youtube": 900, "imgur": 1050}[v["page"]]
}

func fillCorpusStore(t *testing.T, dir string) {
	t.Helper()
	s, st, sess := openTestStore(t, dir, corpusStudy)
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		for run := 0; run < s.Runs; run++ {
			plt := corpusPLT(c.Values) + float64(run-1)*5 // median stays put
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: plt, ToWms: plt - 50, Resources: 2, Connections: 1, HAR: fakeHAR(t0)}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestPageCasesCountLikeTheSCTPStudy(t *testing.T) {
	dir := t.TempDir()
	fillCorpusStore(t, dir)
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	pcs := PageCases(a)
	if len(pcs) != 2 {
		t.Fatalf("%d page cases, want 2 (one per RTT): %+v", len(pcs), pcs)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	for _, pc := range pcs {
		if pc.Variant != "spdy/3.1" || len(pc.Pages) != 5 {
			t.Errorf("case %q: variant %q, %d pages", pc.Case, pc.Variant, len(pc.Pages))
		}
		switch pc.Case {
		case "rtt=20ms":
			if pc.Faster != 2 || pc.Within != 2 || pc.Slower != 1 {
				t.Errorf("20ms: %d faster, %d within, %d slower; want 2, 2, 1", pc.Faster, pc.Within, pc.Slower)
			}
			wantGain := (1000/500.0 + 1000/980.0 + 1000/1250.0 + 1000/900.0 + 1000/1050.0) / 5
			if !near(pc.MeanGain, wantGain) || !near(pc.MeanChangePct, (-50-2+25-10+5)/5.0) {
				t.Errorf("20ms: mean gain %v (want %v), mean change %v%%", pc.MeanGain, wantGain, pc.MeanChangePct)
			}
			for _, p := range pc.Pages {
				if p.Page == "twitter" && (!near(p.Gain, 0.8) || !near(p.ChangePct, 25)) {
					t.Errorf("twitter: gain %v change %v", p.Gain, p.ChangePct)
				}
			}
		case "rtt=100ms":
			if pc.Faster != 0 || pc.Within != 4 || pc.Slower != 1 {
				t.Errorf("100ms: %d faster, %d within, %d slower; want 0, 4, 1", pc.Faster, pc.Within, pc.Slower)
			}
		default:
			t.Errorf("unexpected case %q", pc.Case)
		}
	}
	for change, want := range map[float64]int{-5.01: -1, -5: 0, 0: 0, 5: 0, 5.01: 1} {
		if got := Class(change); got != want {
			t.Errorf("Class(%v) = %d, want %d", change, got, want)
		}
	}

	// The report shows the views.
	if _, err := Build(dir); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pages faster, within ±5%, slower", "Gain per page: spdy/3.1", "CDF of gains over pages", "fraction of pages"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestNoPageViewsForOnePage(t *testing.T) {
	dir := t.TempDir()
	fillStore(t, dir, strings.Replace(cableStudy, `page = ["pageA", "pageB"]`, `page = "pageA"`, 1), nil)
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := Analyze(st)
	if err != nil {
		t.Fatal(err)
	}
	if pcs := PageCases(a); len(pcs) != 0 {
		t.Errorf("one page, yet %d page cases", len(pcs))
	}
}
