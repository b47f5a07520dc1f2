package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// fakeTune is the fake evaluator behind a whole tune: benches that load
// nothing and give a PLT that says which phase of the tune asked for it.
// In the search the baseline takes 200 ms, the variant's defaults 100 and
// every tuned candidate 50; in the evaluation every load takes 100 ms. An
// evaluation of fresh loads alone then finds a gain of exactly 1 in every
// cell, and any search load it reused moves a gain away from 1.
type fakeTune struct {
	mu          sync.Mutex
	eval        bool            // the tune has logged its evaluation
	searchPages map[string]bool // the pages loaded in the search
	loads       int
	evalLoads   int
	stopAt      int // cancel after this many evaluation loads (0: never)
	stop        context.CancelFunc
}

// Write is the tune's log: its evaluation line starts the second phase.
func (f *fakeTune) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("spdylab tune: evaluation:")) {
		f.mu.Lock()
		f.eval = true
		f.mu.Unlock()
	}
	return len(b), nil
}

func (f *fakeTune) opener() study.Opener {
	return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (study.Bench, error) {
		return fakeTuneBench{f: f, c: c, pg: pg}, nil
	}
}

type fakeTuneBench struct {
	f  *fakeTune
	c  probe.Condition
	pg *page.Manifest
}

func (b fakeTuneBench) Load(ctx context.Context, proto string, run int) probe.Result {
	f := b.f
	f.mu.Lock()
	eval := f.eval
	f.loads++
	if eval {
		f.evalLoads++
		if f.evalLoads == f.stopAt && f.stop != nil {
			f.stop()
		}
	} else {
		f.searchPages[b.c.Page] = true
	}
	f.mu.Unlock()
	plt := 100.0
	switch {
	case eval:
	case proto == probe.ProtoHTTPS:
		plt = 200
	case b.c.Profile != "":
		plt = 50
	}
	return probe.Result{PLTms: plt, ToWms: plt - 10, Resources: 3, Started: time.Now(), HAR: []byte(`{"log":{}}`)}
}

func (b fakeTuneBench) Check(context.Context) probe.LinkCheck { return probe.LinkCheck{OK: true} }
func (b fakeTuneBench) Manifest() *page.Manifest              { return b.pg }
func (b fakeTuneBench) Close() error                          { return nil }

const oosStudy = `name = "oos"
runs = 1
seed = 3
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
loss = ["0%", "1%"]
protocol = ["https", "spdy/3.1"]
`

func fakeTuneConfig(t *testing.T, src string, f *fakeTune) Config {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	knobs, err := ParseKnobs("iw=16|32")
	if err != nil {
		t.Fatal(err)
	}
	f.searchPages = map[string]bool{}
	return Config{Study: s, Objective: "worst", Train: 0.5, Knobs: knobs, Out: filepath.Join(t.TempDir(), "out"), Jobs: 1,
		Budget: Budget{Loads: 100000, Eta: 2, MinRuns: 2, MaxRuns: 3, MaxSamples: 3}, Open: f.opener(), Log: f}
}

// TestEvaluationReadsNoSearchLoad: the winner is judged on fresh loads
// alone. The search's loads (baseline 200 ms, tuned 50) would make the
// training cells' gains 2 or 4; fresh ones (100 ms each) make every gain
// 1, on training and held-out cells, in the evaluation, the ablation and
// the transport-matched row. A tune stopped in its evaluation and run
// again loads only what is missing.
func TestEvaluationReadsNoSearchLoad(t *testing.T) {
	f := &fakeTune{stopAt: 5}
	cfg := fakeTuneConfig(t, oosStudy, f)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.stop = cancel
	tn, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tn.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("the tune stopped in its evaluation returned %v, want context.Canceled", err)
	}
	first := storedLoads(t, cfg.Out) + storedLoads(t, filepath.Join(cfg.Out, EvalDir))
	again := &fakeTune{eval: true}
	cfg.Open, cfg.Log = again.opener(), again
	if tn, err = Prepare(cfg); err != nil {
		t.Fatal(err)
	}
	res, err := tn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stored := storedLoads(t, cfg.Out) + storedLoads(t, filepath.Join(cfg.Out, EvalDir)); first+again.loads != stored {
		t.Errorf("%d loads stored before the stop, %d loaded after, but %d stored: loads repeated", first, again.loads, stored)
	}
	if res.Winner.String() == "defaults" {
		t.Fatalf("the search chose the defaults; every tuned candidate was faster in it")
	}
	rows := append(slices.Clone(res.Evaluation), res.Ablation...)
	if res.Transport == nil {
		t.Error("no transport-matched row for a winner that sets iw")
	} else {
		rows = append(rows, *res.Transport)
	}
	train := 0
	for _, r := range rows {
		for _, g := range r.Gains {
			if g.Gain == nil || *g.Gain != 1 {
				t.Errorf("%s, %s cell %s: gain %s, want 1 (fresh loads only)", r.Name, g.Set, g.Cell, fmtNum(g.Gain))
			}
			if g.Train {
				train++
			}
		}
	}
	if train == 0 || len(res.Test) == 0 {
		t.Fatalf("%d training gains, %d held-out cells: the test needs both", train, len(res.Test))
	}
	checkSplitTables(t, cfg.Out, res)
}

func storedLoads(t *testing.T, dir string) int {
	t.Helper()
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	return len(probes)
}

// checkSplitTables: tune.json, tune.html and the console summary give the
// training and the held-out cells apart, each labelled.
func checkSplitTables(t *testing.T, out string, res *Result) {
	t.Helper()
	var back struct {
		EvalStore  string `json:"evaluation_store"`
		Evaluation []struct {
			Name  string                 `json:"name"`
			Train *Tally                 `json:"train_verdicts"`
			Test  *Tally                 `json:"test_verdicts"`
			Gains []struct{ Set string } `json:"gains"`
		} `json:"evaluation"`
	}
	j, err := os.ReadFile(filepath.Join(out, JSONFile))
	if err != nil || json.Unmarshal(j, &back) != nil {
		t.Fatalf("tune.json: %v", err)
	}
	if back.EvalStore != EvalDir {
		t.Errorf("tune.json names evaluation store %q, want %q", back.EvalStore, EvalDir)
	}
	for _, r := range back.Evaluation {
		if r.Train == nil || r.Test == nil || r.Train.Cells != len(res.Train) || r.Test.Cells != len(res.Test) {
			t.Errorf("tune.json row %s: verdicts %+v training, %+v held out; want %d and %d cells", r.Name, r.Train, r.Test, len(res.Train), len(res.Test))
		}
		for i, g := range r.Gains {
			if want := SetTraining; i >= len(res.Train) {
				want = SetHeldOut
				if g.Set != want {
					t.Errorf("tune.json row %s gain %d: set %q, want %q (training cells first)", r.Name, i, g.Set, want)
				}
			} else if g.Set != want {
				t.Errorf("tune.json row %s gain %d: set %q, want %q (training cells first)", r.Name, i, g.Set, want)
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(out, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	sections := 2 + 1 // evaluation and ablation, and the transport row
	if n := strings.Count(string(html), "<h3>Held-out cells</h3>"); n != sections || strings.Count(string(html), "<h3>Training cells</h3>") != sections {
		t.Errorf("tune.html has %d held-out tables, want %d beside as many training ones", n, sections)
	}
	if !strings.Contains(string(html), "<td>"+SetHeldOut+"</td>") || !strings.Contains(string(html), "on the <b>held-out cells</b>") {
		t.Error("tune.html does not label the held-out cells or the winner's verdict on them")
	}
	sum := strings.Join(res.Summary(), "\n")
	for _, want := range []string{"winner   training: objective", "held out: objective", "fresh loads (" + EvalDir + "/)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("the summary lacks %q:\n%s", want, sum)
		}
	}
}

// TestHeldOutPagesAreNeverInTheSearch: over recorded pages (manifest
// files here), the pages are dealt first; no held-out page is loaded
// before the evaluation, every cell of one is held out, and the plan and
// the result say which pages were which.
func TestHeldOutPagesAreNeverInTheSearch(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, name := range []string{"pageA", "pageB", "pageC", "pageA"} {
		m, err := page.Generate(name, 1, int64(i+1), "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("rec%d.json", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, fmt.Sprintf("%q", p))
	}
	src := strings.Replace(strings.Replace(oosStudy, `page = "pageA"`, "page = ["+strings.Join(paths, ", ")+"]", 1), `loss = ["0%", "1%"]`, "", 1)
	f := &fakeTune{}
	cfg := fakeTuneConfig(t, src, f)
	tn, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tn.testPages) != 2 || len(tn.trainPages) != 2 || !strings.Contains(tn.Plan(), "held out (never in the search)") {
		t.Fatalf("pages dealt %v / %v; plan: %s", tn.trainPages, tn.testPages, tn.Plan())
	}
	res, err := tn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.TrainPages, tn.trainPages) || !slices.Equal(res.TestPages, tn.testPages) {
		t.Errorf("the result names pages %v / %v, the tune dealt %v / %v", res.TrainPages, res.TestPages, tn.trainPages, tn.testPages)
	}
	for p := range f.searchPages {
		if slices.Contains(res.TestPages, p) {
			t.Errorf("held-out page %s was loaded in the search", p)
		}
	}
	for _, c := range tn.train {
		if slices.Contains(res.TestPages, c.Variant.Page) {
			t.Errorf("training cell %s is on held-out page %s", c.Label, c.Variant.Page)
		}
	}
	onTestPages := 0
	for _, c := range tn.test {
		if slices.Contains(res.TestPages, c.Variant.Page) {
			onTestPages++
		}
	}
	if onTestPages != 2*len(res.TestPages) { // two RTTs per page
		t.Errorf("%d held-out cells on the held-out pages, want every one of them (%d)", onTestPages, 2*len(res.TestPages))
	}
	sum := strings.Join(res.Summary(), "\n")
	if !strings.Contains(sum, "held-out pages (never in the search): "+strings.Join(res.TestPages, ", ")) {
		t.Errorf("the summary does not name the held-out pages:\n%s", sum)
	}
}

func TestSplitPagesHoldsOneOutAndIsDeterministic(t *testing.T) {
	pages := []string{"har:a", "har:b", "har:c"}
	for seed := int64(1); seed <= 10; seed++ {
		tr, te := SplitPages(pages, 0.9, seed)
		if len(tr) != 2 || len(te) != 1 {
			t.Errorf("seed %d, 90%% of 3 pages: %v / %v, want one held out", seed, tr, te)
		}
		tr2, te2 := SplitPages([]string{"har:c", "har:a", "har:b"}, 0.9, seed)
		if !slices.Equal(tr, tr2) || !slices.Equal(te, te2) {
			t.Errorf("seed %d: the deal depends on the pages' order", seed)
		}
	}
	if tr, te := SplitPages(pages, 1, 1); len(tr) != 3 || te != nil {
		t.Errorf("--train 1: %v / %v, want every page to train", tr, te)
	}
	if tr, te := SplitPages([]string{"har:a"}, 0.5, 1); len(tr) != 1 || te != nil {
		t.Errorf("one page: %v / %v, want it to train", tr, te)
	}
}
