package study

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/autosize"
	"github.com/spdylab/spdylab/study/store"
)

// lateBench reports its emulator late (p99 5 ms) when late says so, and
// such a load 10% slower: lateness that moves the results.
type lateBench struct {
	Bench
	late func() bool
}

func (b lateBench) Load(ctx context.Context, proto string, run int) probe.Result {
	res := b.Bench.Load(ctx, proto, run)
	if b.late() {
		res.Link.Down.LateP99ms = 5
		res.PLTms *= 1.1
	}
	return res
}

func lateOpener(log *loadLog, delay time.Duration, late func() bool) Opener {
	open := fakeOpener(log, delay, nil)
	return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (Bench, error) {
		b, err := open(ctx, c, pg, seed, dir)
		if err != nil {
			return nil, err
		}
		return lateBench{b, late}, nil
	}
}

// autoRun runs tinyStudy at runs runs with -j auto on fake benches and a
// machine with idle CPU, asking the sizer every millisecond, and checks
// that every probe was stored once: workers that stopped between runs
// left nothing behind. It returns the session's JobsAuto and Jobs.
func autoRun(t *testing.T, runs int, late func(open int) bool, rules autosize.Rules) (string, int) {
	t.Helper()
	defer func(d time.Duration) { jobsTick = d }(jobsTick)
	jobsTick = time.Millisecond
	s := mustParse(t, strings.Replace(tinyStudy, "runs = 3", fmt.Sprintf("runs = %d", runs), 1))
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	lateNow := func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		return late(log.open)
	}
	r := &Runner{Study: s, Store: st, Open: lateOpener(log, 3*time.Millisecond, lateNow), Jobs: JobsAuto, WorkDir: filepath.Join(dir, "w"),
		machine: func() autosize.Machine { return autosize.Machine{IdleCPU: 0.9, MemAvailMiB: 64 << 10} }, rules: &rules}
	sum, err := r.Run(context.Background())
	want := len(s.Conditions) * s.Runs
	if err != nil || sum.Attempts != want || sum.Failed != 0 {
		t.Fatalf("%+v, %v; want %d loads done", sum, err, want)
	}
	probes, _ := st.Probes(false)
	seen := map[string]bool{}
	for _, p := range probes {
		k := fmt.Sprintf("%s %d %d", p.CondHash, p.Run, p.Attempt)
		if seen[k] || p.Attempt != 0 {
			t.Fatalf("probe %s stored twice or retried", k)
		}
		seen[k] = true
	}
	if len(seen) != want {
		t.Fatalf("%d probes stored, want %d", len(seen), want)
	}
	sess, err := st.Sessions()
	if err != nil || len(sess) != 1 {
		t.Fatalf("sessions %v, %v", sess, err)
	}
	return sess[0].JobsAuto, sess[0].Jobs
}

func sizesOf(t *testing.T, trace string) []int {
	t.Helper()
	var sizes []int
	for _, f := range strings.Split(strings.TrimPrefix(trace, "auto "), " -> ") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			t.Fatalf("trace %q: %v", trace, err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// Loads on time on an idle machine: the runner adds testbeds as it runs.
func TestAutoJobsGrowWhileRunning(t *testing.T) {
	trace, jobs := autoRun(t, 40, func(int) bool { return false }, autosize.Rules{GrowMinLoads: 2})
	t.Logf("sizes: %s", trace)
	sizes := sizesOf(t, trace)
	if len(sizes) < 2 || sizes[len(sizes)-1] <= sizes[0] {
		t.Fatalf("sizes %v: did not grow with every load on time", sizes)
	}
	if jobs != sizes[len(sizes)-1] {
		t.Errorf("session -j %d, want the largest size %d", jobs, sizes[len(sizes)-1])
	}
}

// A machine that keeps one testbed on time and beyond runs late a share
// of the loads that falls steeply with every testbed taken away (in 16
// loads at k testbeds: 16 at 5 or more, then 8, 3, 1, none at one): the
// runner takes testbeds away down to one, workers stopping between runs of
// their benches. Each step must cut the late share well below the 0.8 of
// the last one that the controller reads as "shrinking did not help" (a
// linear share, 3/4 after 4/4, sat next to it, and a few loads still
// finishing beside a stopping worker tipped it over on a busy machine);
// each size counts its own loads, so the share at a size is exact.
func TestAutoJobsShrinkOnLateLoads(t *testing.T) {
	lateIn16 := []int{0, 0, 1, 3, 8}
	seen := map[int]int{}
	late := func(open int) bool {
		seen[open]++
		if open >= len(lateIn16) {
			return true
		}
		return seen[open]%16 < lateIn16[open]
	}
	// 160 runs: the sizer is asked on a 1 ms tick, which a busy machine
	// (three suites beside a CPU burner) delays by tens of ms, while the
	// loads go on; at 40 runs such a run ended at 4 testbeds.
	trace, _ := autoRun(t, 160, late, autosize.Rules{GrowMinLoads: 20, Cooldown: time.Hour})
	t.Logf("sizes: %s", trace)
	sizes := sizesOf(t, trace)
	for i := 1; i < len(sizes); i++ {
		if sizes[i] >= sizes[i-1] {
			t.Fatalf("sizes %v: grew with every load late", sizes)
		}
	}
	if sizes[len(sizes)-1] != 1 {
		t.Errorf("sizes %v, want down to 1", sizes)
	}
}

// The work the initial size is computed from: the study's loads over
// 20 and 100 ms links wait on the network more than on the CPU.
func TestAutoJobsStartFromTheModelledWork(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	r := &Runner{Study: s, Store: st, Jobs: JobsAuto, WorkDir: filepath.Join(dir, "w"), pages: page.Cache{},
		machine: func() autosize.Machine { return autosize.Machine{IdleCPU: -1} }}
	tasks, _, err := r.plan()
	if err != nil {
		t.Fatal(err)
	}
	r.modelWeights(tasks)
	j := r.newRunEnv(tasks, time.Now())
	if j.ctl == nil || strings.HasPrefix(j.ctl.How(), "CPU-bound") || j.size < 2 {
		t.Errorf("auto size %d (%s): want at least 2 testbeds for link-bound loads", j.size, j.how())
	}
	r.Jobs = 5
	if j := r.newRunEnv(tasks, time.Now()); j.ctl != nil || j.size != 5 || j.trace() != "" {
		t.Errorf("-j 5 gave %d testbeds (auto: %v, trace %q)", j.size, j.ctl != nil, j.trace())
	}
}

// spdylab run's start line says how many testbeds -j auto starts with and
// why; the progress lines say how many run and the late share.
func TestAutoJobsSayWhatTheyChose(t *testing.T) {
	s := mustParse(t, tinyStudy)
	var log, prog strings.Builder
	cfg := RunConfig{Study: s, Out: filepath.Join(t.TempDir(), "out"), Resume: true, Jobs: JobsAuto, Open: fakeOpener(&loadLog{}, 0, nil), Log: &log, Progress: &prog}
	sum, err := RunInto(context.Background(), cfg)
	if err != nil || sum.Attempts != len(s.Conditions)*s.Runs {
		t.Fatalf("%+v, %v", sum, err)
	}
	if !regexp.MustCompile(`\(estimate \S+ at \d+ testbeds to start with; -j auto: (link-bound|mixed|CPU-bound) loads, their wall time modelled at [0-9.]+x their CPU time\)`).MatchString(log.String()) {
		t.Errorf("start line %q", log.String())
	}
	if !strings.Contains(prog.String(), "testbeds ") || !regexp.MustCompile(`testbeds \d+ \(auto: \S+, 0.0% late\)`).MatchString(prog.String()) {
		t.Errorf("progress %q", prog.String())
	}
	st, err := store.OpenStore(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if sess, _ := st.Sessions(); len(sess) != 1 || !strings.HasPrefix(sess[0].JobsAuto, "auto ") {
		t.Errorf("sessions %+v: want the sizes of -j auto", sess)
	}
}
