package study

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

const autoStudy = `
name = "auto"
runs = "auto"
seed = 7
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
protocol = ["https", "spdy/3.1"]
`

// pltBench loads with page load times chosen by the test: plt(proto, rtt
// in ms, run). stopAfter, when set, cancels the run as the given load
// (counted over all benches) finishes, as a kill would.
type pltBench struct {
	c   probe.Condition
	pg  *page.Manifest
	env *pltEnv
}

type pltEnv struct {
	plt       func(proto string, rttMs int64, run int) float64
	mu        sync.Mutex
	loads     map[string]int // "rtt proto run" -> times loaded
	n         int
	stopAfter int
	cancel    context.CancelFunc
	// inflight counts the loads started and not yet returned; at the
	// cancel, interrupted is how many were (the one that cancels among
	// them), and late counts the loads started after it: the loads a kill
	// may cost, which a resume loads again.
	inflight, interrupted, late int
}

func (b *pltBench) Load(ctx context.Context, proto string, run int) probe.Result {
	rtt := b.c.Link.RTT.Milliseconds()
	e := b.env
	e.mu.Lock()
	e.loads[fmt.Sprintf("%d %s %d", rtt, proto, run)]++
	e.n++
	e.inflight++
	if e.stopAfter > 0 && e.n > e.stopAfter {
		e.late++
	}
	if e.n == e.stopAfter {
		e.interrupted = e.inflight
		e.cancel()
	}
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.inflight--
		e.mu.Unlock()
	}()
	return probe.Result{PLTms: e.plt(proto, rtt, run), ToWms: 1}
}
func (b *pltBench) Check(context.Context) probe.LinkCheck { return fakeCheck(b.c) }
func (b *pltBench) Manifest() *page.Manifest              { return b.pg }
func (b *pltBench) Close() error                          { return nil }

func (e *pltEnv) open(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (Bench, error) {
	return &pltBench{c: c, pg: pg, env: e}, nil
}

// runAuto runs s into st with page load times plt, stopping after
// stopAfter loads when it is > 0; it returns what the bench loaded.
func runAuto(t *testing.T, s *spec.Study, st *store.Store, dir string, plt func(string, int64, int) float64, stopAfter int) (map[string]int, Summary) {
	t.Helper()
	env, sum := runAutoEnv(t, s, st, dir, plt, stopAfter)
	return env.loads, sum
}

// runAutoEnv is runAuto giving the whole environment: what was loaded,
// and what the stop interrupted.
func runAutoEnv(t *testing.T, s *spec.Study, st *store.Store, dir string, plt func(string, int64, int) float64, stopAfter int) (*pltEnv, Summary) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := &pltEnv{plt: plt, loads: map[string]int{}, stopAfter: stopAfter, cancel: cancel}
	r := &Runner{Study: s, Store: st, Open: env.open, Jobs: 2, WorkDir: filepath.Join(dir, "work")}
	sum, err := r.Run(ctx)
	if err != nil && (stopAfter == 0 || ctx.Err() == nil) {
		t.Fatal(err)
	}
	return env, sum
}

// storedRuns counts each condition's runs with a stored load, by "rtt
// proto".
func storedRunsBy(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]map[int]bool{}
	for _, p := range probes {
		k := fmt.Sprintf("%d %s", p.Result.Condition.Link.RTT.Milliseconds(), p.Result.Condition.Proto)
		if runs[k] == nil {
			runs[k] = map[int]bool{}
		}
		if runs[k][p.Run] {
			t.Errorf("%s run %d stored twice", k, p.Run)
		}
		runs[k][p.Run] = true
	}
	out := map[string]int{}
	for k, rs := range runs {
		out[k] = len(rs)
	}
	return out
}

func autoTestStudy(t *testing.T, max int) *spec.Study {
	s := mustParse(t, autoStudy)
	if err := s.SetRunsAuto(spec.AutoRuns{Target: 0.05, Min: 5, Max: max}); err != nil {
		t.Fatal(err)
	}
	return s
}

// clearGain: SPDY twice as fast, within a percent from load to load.
func clearGain(proto string, rtt int64, run int) float64 {
	base := 1000.0
	if proto == probe.ProtoSPDY31 {
		base = 500
	}
	return base + float64(run%3)
}

// noisy: both protocols jump between 1000 and 2000 ms out of step, so
// the gain's interval stays about 0.5 to 2.
func noisy(proto string, rtt int64, run int) float64 {
	if proto == probe.ProtoSPDY31 {
		run /= 2
	}
	return 1000 + 1000*float64(run%2)
}

// settling: noisy for the first 6 runs, then every load 1200 ms, so the
// interval narrows after a few more runs (between the minimum and the cap).
func settling(proto string, rtt int64, run int) float64 {
	if run < 6 {
		return noisy(proto, rtt, run) - 200
	}
	return 1200
}

// runAutoExpecting runs the test study (cap 12) into a fresh store with
// page load times plt and checks that every condition got want runs.
func runAutoExpecting(t *testing.T, plt func(string, int64, int) float64, want int) (*spec.Study, *store.Store, string) {
	t.Helper()
	s := autoTestStudy(t, 12)
	st, dir := newTestStore(t, s)
	_, sum := runAuto(t, s, st, dir, plt, 0)
	for k, n := range storedRunsBy(t, st) {
		if n != want {
			t.Errorf("%s: %d runs, want %d", k, n, want)
		}
	}
	if sum.Planned != 4*want || sum.Attempts != 4*want {
		t.Errorf("summary %+v, want %d planned and done", sum, 4*want)
	}
	return s, st, dir
}

func TestRunsAutoStopsAClearGainAtTheMinimum(t *testing.T) {
	runAutoExpecting(t, clearGain, 5)
}

func TestRunsAutoRunsANoisyGroupToTheCap(t *testing.T) {
	s, st, dir := runAutoExpecting(t, noisy, 12)
	// Nothing left: a rerun asks the rule again and loads nothing.
	loads, sum := runAuto(t, s, st, dir, noisy, 0)
	if len(loads) != 0 || sum.Planned != 0 {
		t.Errorf("rerun loaded %v (%+v)", loads, sum)
	}
}

func TestRunsAutoResumesWhereItStopped(t *testing.T) {
	whole := autoTestStudy(t, 30)
	st, dir := newTestStore(t, whole)
	runAuto(t, whole, st, dir, settling, 0)
	want := storedRunsBy(t, st)
	for k, n := range want {
		if n <= 6 || n >= 30 {
			t.Fatalf("%s stopped after %d runs: the test wants a stop between the minimum and the cap", k, n)
		}
	}
	// Killed twice: within the first runs, and after the rule added some.
	killed := autoTestStudy(t, 30)
	st2, dir2 := newTestStore(t, killed)
	seen := map[string]int{}
	mayRepeat := 0
	for _, stop := range []int{7, 21, 0} {
		env, _ := runAutoEnv(t, killed, st2, dir2, settling, stop)
		for k, n := range env.loads {
			seen[k] += n
		}
		mayRepeat += env.interrupted + env.late
	}
	got := storedRunsBy(t, st2)
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d runs after resuming, %d uninterrupted", k, got[k], n)
		}
	}
	// A load a kill interrupted (in flight on either worker, or started
	// after it) is loaded again, as it was not stored; every other load
	// only once. Both kills may interrupt the same load, which is then
	// loaded three times.
	again := 0
	for k, n := range seen {
		if n > 1 {
			again += n - 1
			if n > 3 {
				t.Errorf("%s loaded %d times", k, n)
			}
		}
	}
	if again > mayRepeat {
		t.Errorf("%d loads repeated after two kills, want at most the %d they interrupted", again, mayRepeat)
	}
}

func TestRunsAutoNeverResumesAFixedRun(t *testing.T) {
	fixed := mustParse(t, autoStudy)
	fixed.RunsAuto = nil // runs = 5, as the automatic minimum
	_, dir := newTestStore(t, fixed)
	err := store.CheckOut(dir, autoTestStudy(t, 12))
	if err == nil || !strings.Contains(err.Error(), "auto") {
		t.Errorf("an automatic run into a fixed run's store: %v, want an error naming runs auto", err)
	}
}
