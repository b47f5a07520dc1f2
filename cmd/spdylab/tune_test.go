package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
	"github.com/spdylab/spdylab/tune"
)

const tuneSlice = `
name = "tune-slice"
runs = 3
seed = 5
[factors]
page = "twitter"
rate = "100mbit"
rtt = ["10ms", "20ms"]
protocol = ["https", "spdy/3.1"]
`

// countingBench counts the loads of a real bench and cancels the tune
// after a given number: a kill in the middle of a round.
type countingBench struct {
	study.Bench
	loads  *atomic.Int32
	cancel int32
	stop   context.CancelFunc
}

func (b countingBench) Load(ctx context.Context, proto string, run int) probe.Result {
	r := b.Bench.Load(ctx, proto, run)
	if b.loads.Add(1) == b.cancel && b.stop != nil {
		b.stop()
	}
	return r
}

func countingOpener(loads *atomic.Int32, cancelAt int32, stop context.CancelFunc) study.Opener {
	open := harnessOpener("")
	return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (study.Bench, error) {
		b, err := open(ctx, c, pg, seed, dir)
		if err != nil {
			return nil, err
		}
		return countingBench{Bench: b, loads: loads, cancel: cancelAt, stop: stop}, nil
	}
}

// TestTuneEndToEndResumesWithoutRepeatingLoads: a real tune on a 2-cell
// slice over a fast link, stopped after a few loads and run again: the
// second run loads only what the first did not store, and the outputs
// (profile, JSON with ablation, HTML) are written; the profile read as a
// study's profile factor gives the very conditions the tune stored.
func TestTuneEndToEndResumesWithoutRepeatingLoads(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	s, err := studyfile.Parse([]byte(tuneSlice), dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cfg := tune.Config{Study: s, Objective: "worst", Train: 0.5, Out: out, Jobs: 2,
		Knobs:  []tune.Knob{{Name: "cc", Values: []string{"reno"}}, {Name: "iw", Values: []string{"16"}}},
		Budget: tune.Budget{Loads: 50, Eta: 2, MinRuns: 2, MaxRuns: 3, MaxSamples: 3}}
	var first atomic.Int32
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	cfg.Open = countingOpener(&first, 6, stop)
	tn, err := tune.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tn.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped tune returned %v, want context.Canceled", err)
	}
	stored := tuneAttempts(t, out)
	if stored == 0 {
		t.Fatal("the stopped tune stored no load")
	}
	var second atomic.Int32
	cfg.Open = countingOpener(&second, -1, nil)
	tn, err = tune.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	total := tuneAttempts(t, out)
	if int(second.Load()) != total-stored {
		t.Errorf("the resumed tune loaded %d times, but only %d loads were added (%d stored before, %d after): loads repeated", second.Load(), total-stored, stored, total)
	}
	checkOneSuccessPerKey(t, out)
	checkOneSuccessPerKey(t, filepath.Join(out, tune.EvalDir))
	if len(res.Train) != 1 || len(res.Test) != 1 || len(res.Evaluation) != 2 || len(res.Ablation) != len(res.Winner.Settings) {
		t.Errorf("result: %d train, %d test cells, %d evaluation rows, %d ablation rows for winner %v", len(res.Train), len(res.Test), len(res.Evaluation), len(res.Ablation), res.Winner)
	}
	checkTuneOutputs(t, out, res, dir)
}

// tuneAttempts counts the loads of a tune's two stores: the search's in
// out and the evaluation's.
func tuneAttempts(t *testing.T, out string) int {
	return storedAttempts(t, out) + storedAttempts(t, filepath.Join(out, tune.EvalDir))
}

// checkOneSuccessPerKey: no (condition, run) was loaded successfully twice.
func checkOneSuccessPerKey(t *testing.T, out string) {
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	ok := map[store.ProbeKey]int{}
	for _, p := range probes {
		if !p.Result.Failed {
			ok[store.ProbeKey{CondHash: p.CondHash, Run: p.Run}]++
		}
	}
	for k, n := range ok {
		if n > 1 {
			t.Errorf("%v loaded successfully %d times", k, n)
		}
	}
}

// checkTuneOutputs reads the written files back: the profile as
// `--profile` and a study's profile factor read it give the conditions
// the evaluation loaded on every cell.
func checkTuneOutputs(t *testing.T, out string, res *tune.Result, dir string) {
	prof, err := studyfile.ParseProfileFile(filepath.Join(out, tune.ProfileFile))
	if err != nil {
		t.Fatal(err)
	}
	if prof.Label() != res.Profile {
		t.Errorf("profile.toml is %s, the result names %s", prof.Label(), res.Profile)
	}
	var back tune.Result
	if j, err := os.ReadFile(filepath.Join(out, tune.JSONFile)); err != nil || json.Unmarshal(j, &back) != nil || back.Profile != res.Profile {
		t.Errorf("tune.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, tune.HTMLFile)); err != nil {
		t.Error(err)
	}
	if len(prof.Settings) == 0 {
		return // the defaults won: nothing to reproduce
	}
	src := tuneSlice + "profile = [\"\", \"" + filepath.Join(out, tune.ProfileFile) + "\"]\n"
	s, err := studyfile.Parse([]byte(src), dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenStore(filepath.Join(out, tune.EvalDir))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, err := st.States()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Conditions {
		if c.Profile != "" && !states[store.ProbeKey{CondHash: c.Hash, Run: 0}].OK {
			t.Errorf("the study's tuned condition %s (%s) is not the one the tune loaded", c.Hash, c.Describe())
		}
	}
}

// TestTuneExamplesOnBuiltinStudiesArePlanned: every help example that
// tunes a built-in study passes every check before a load (the knobs, the
// protocol, the budget against the plan); the first example once asked
// spdy/2 for a session window and a budget 7 times too small.
func TestTuneExamplesOnBuiltinStudiesArePlanned(t *testing.T) {
	n := 0
	for _, ex := range commands["tune"].examples {
		line, _, _ := strings.Cut(ex, "  #")
		words := shellWords(strings.TrimPrefix(line, "sudo "))
		if len(words) < 3 || words[0] != "spdylab" || words[1] != "tune" || strings.HasSuffix(words[2], ".toml") {
			continue
		}
		n++
		f, status := parseTuneFlags(words[2:], io.Discard)
		if status >= 0 {
			t.Errorf("%s: flags refused", ex)
			continue
		}
		s, err := studyfile.LoadPages(f.study, f.pages)
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		f.cfg.Study = s
		if _, err := tune.Prepare(f.cfg); err != nil {
			t.Errorf("%s: %v", ex, err)
		}
	}
	if n == 0 {
		t.Fatal("no help example tunes a built-in study")
	}
}

// shellWords splits a command line at spaces, keeping single-quoted words
// whole (the help's examples quote their --knobs).
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	quoted, any := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, any = !quoted, true
		case r == ' ' && !quoted:
			if any {
				words, cur, any = append(words, cur.String()), strings.Builder{}, false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		words = append(words, cur.String())
	}
	return words
}
