package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/autosize"
	"github.com/spdylab/spdylab/study/eta"
	"github.com/spdylab/spdylab/study/event"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// Bench is one condition's testbed: network, servers and page, able to load
// the page with any protocol. Production uses the harness; tests use fakes.
type Bench interface {
	Load(ctx context.Context, proto string, run int) probe.Result
	Check(ctx context.Context) probe.LinkCheck
	// Manifest is the page the bench serves (stored for the report's lower
	// bound); nil when the bench has none to tell.
	Manifest() *page.Manifest
	Close() error
}

// Opener builds a bench for a condition (its Proto is irrelevant). pg is
// the condition's page as the runner opened it for its ETA, shared by every
// bench of that page and never to be changed (nil when the runner could not
// open it: the opener then opens the page itself and reports why). workDir
// is a fresh directory the bench may fill and that is removed after Close;
// its parent (Runner.WorkDir) lives for the whole run and may hold files
// shared between benches, such as generated pages.
type Opener func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, workDir string) (Bench, error)

// Runner runs a study into a store.
type Runner struct {
	Study *spec.Study
	Store *store.Store
	Open  Opener
	Jobs  int        // parallel benches; JobsAuto (0) = sized as the run runs (jobs.go, study/autosize)
	Shard spec.Shard // zero = everything
	// BrowserJobs caps the benches among them whose client is a real
	// browser; <1 = DefaultBrowserJobs (browserjobs.go). BrowserAlone runs
	// each browser bench with no other bench beside it instead.
	BrowserJobs  int
	BrowserAlone bool
	// WorkDir holds per-bench scratch directories (generated pages,
	// certificates); removed when the run ends.
	WorkDir string
	// Progress receives the progress display; nil = none. TTY selects a
	// redrawn bar instead of periodic lines.
	Progress io.Writer
	TTY      bool
	Args     string              // command line, for provenance
	Tools    map[string][]string // programs whose versions the provenance records (RunConfig.Tools)
	// Announce, when set, is told the testbeds the run starts with before
	// the first bench opens, and how they were chosen ("" for -j N).
	Announce func(testbeds int, how string)

	// machine and rules replace the machine's /proc readings and the
	// automatic sizing's evidence rules in tests (nil = the real ones).
	machine func() autosize.Machine
	rules   *autosize.Rules

	weight map[string]float64 // modelled ms per load, by condition hash
	pages  page.Cache         // opened once per ManifestKey for the ETA, shared with the benches
	// autoAdded counts the probes `--runs auto` added to the plan.
	autoAdded atomic.Int64
}

// Summary is what a run did.
type Summary struct {
	Planned int // probes this run had to do (after resume)
	// Counts are what this run stored: probes done, attempts (failures
	// included), failed attempts, and of those the stalled ones
	// (stalledLoad), each loaded again. The progress line and the ETA
	// read the same counts while the run runs.
	event.Counts
	Skipped  int // probes already in the store
	Elapsed  time.Duration
	Canceled bool
}

type task struct {
	group spec.Group
	// pending[r] lists indexes into group.Conds still to load at run r, with
	// the number of attempts already stored.
	pending map[int][]pendingProbe
	// runs hands the pending runs out, in order, to every testbed working
	// on the bench: its own, and helpers once no bench is left to start.
	runs *runQueue
	// auto adds runs to the bench with `--runs auto`; nil for fixed runs.
	auto *autoStop
}

// runQueue is a bench's runs still to start, and how many workers have a
// testbed of the bench open.
type runQueue struct {
	mu      sync.Mutex
	runs    []int
	workers int
	// inflight counts the runs handed out and not yet loaded; grow, for
	// `--runs auto`, adds the next run once none is (nil for fixed runs).
	inflight int
	grow     func() (run int, ok bool, err error)
}

func newRunQueue(pending map[int][]pendingProbe) *runQueue {
	q := &runQueue{}
	for run := range pending {
		q.runs = append(q.runs, run)
	}
	sort.Ints(q.runs)
	return q
}

func (q *runQueue) next() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.runs) == 0 {
		return 0, false
	}
	run := q.runs[0]
	q.runs = q.runs[1:]
	q.inflight++
	return run, true
}

// done counts a run handed out by next as loaded. With `--runs auto` the
// last run of a round to finish asks whether the bench needs another, so
// the decision always sees every run before it.
func (q *runQueue) done() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.inflight--
	if q.inflight > 0 || len(q.runs) > 0 || q.grow == nil {
		return nil
	}
	run, ok, err := q.grow()
	if ok {
		q.runs = append(q.runs, run)
	}
	return err
}

// state is the runs still to hand out and the workers with a testbed of
// the bench open.
func (q *runQueue) state() (left, workers int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.runs), q.workers
}

func (q *runQueue) join() {
	q.mu.Lock()
	q.workers++
	q.mu.Unlock()
}

func (q *runQueue) leave() {
	q.mu.Lock()
	q.workers--
	q.mu.Unlock()
}

// MinRunsToShare is how many runs a bench must have left for an idle
// worker to open a second testbed for it: building one costs about a
// load and a link check, so sharing fewer gains nothing. Without sharing,
// a study whose benches differ a lot in length (slow lossy pages with many
// runs) ends on its longest bench alone while the other slots sit idle.
const MinRunsToShare = 4

type pendingProbe struct {
	cond     int
	attempts int
}

// Run runs every pending probe of the runner's shard. It returns when all
// are stored, or when ctx is canceled (scheduling stops, benches close,
// stored probes stay; Summary.Canceled is set and the error is ctx's).
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	start := time.Now()
	tasks, sum, err := r.plan()
	sum.Planned += int(r.autoAdded.Swap(0)) // runs a resumed automatic run added at once: planned now
	if err != nil || sum.Planned == 0 {
		return sum, err
	}
	r.modelWeights(tasks)
	env := r.newRunEnv(tasks, start)
	prov := CollectProvenance(r.Study.Seed, env.size, r.Shard, r.Args, r.Tools)
	prov.JobsAuto = env.trace()
	sess, err := r.Store.StartSession(prov)
	if err != nil {
		return sum, err
	}
	cleanup, err := r.prepareWorkDir()
	if err != nil {
		return sum, err
	}
	defer cleanup()
	tasks = r.longestFirst(tasks)
	if r.BrowserAlone {
		tasks = browsersFirst(tasks)
	}
	if r.Announce != nil {
		r.Announce(env.size, env.how())
	}
	prog := newProgress(r.Progress, r.TTY, sum.Planned, r.planETA(tasks), env.size)
	defer prog.finish()
	r.attachAuto(tasks, prog)
	env.attach(prog, r.Store, sess)
	runErr := r.runTasks(ctx, tasks, env)
	sum.Counts = env.tally()
	sum.Planned += int(r.autoAdded.Swap(0))
	sum.Elapsed = time.Since(start)
	if ctx.Err() != nil {
		sum.Canceled = true
		return sum, ctx.Err()
	}
	return sum, runErr
}

// plan lists the shard's benches with the probes each still has to load
// (a probe is done after a success or a retried failure).
func (r *Runner) plan() ([]task, Summary, error) {
	var sum Summary
	states, err := r.Store.States()
	if err != nil {
		return nil, sum, err
	}
	var tasks []task
	begun := runsBegun(states)
	for _, g := range spec.ShardGroups(r.Study, r.Shard) {
		t := task{group: g, pending: map[int][]pendingProbe{}}
		runs := r.Study.Runs
		if r.Study.RunsAuto != nil {
			runs = storedRuns(begun, g, r.Study.Runs)
			t.auto = r.newAutoStop(g, t.pending, runs, &r.autoAdded)
		}
		for run := 0; run < runs; run++ {
			for ci, c := range g.Conds {
				st := states[store.ProbeKey{CondHash: c.Hash, Run: run}]
				if st.OK || st.Attempts >= 2 {
					sum.Skipped++
					continue
				}
				t.pending[run] = append(t.pending[run], pendingProbe{ci, st.Attempts})
				sum.Planned++
			}
		}
		if t.auto != nil && len(t.pending) == 0 {
			// Every run begun is stored: ask, as the last run would have.
			if _, _, err := t.auto.grow(); err != nil {
				return nil, sum, err
			}
		}
		if len(t.pending) > 0 {
			t.runs = newRunQueue(t.pending)
			if t.auto != nil {
				t.runs.grow = t.auto.grow
			}
			tasks = append(tasks, t)
		}
	}
	return tasks, sum, nil
}

// prepareWorkDir makes sure the work directory exists and returns how to
// clean it up: all of it when we made it, else only if it is left empty
// (never someone else's files).
func (r *Runner) prepareWorkDir() (func(), error) {
	if r.WorkDir == "" {
		r.WorkDir = filepath.Join(os.TempDir(), "spdylab-work")
	}
	if _, err := os.Stat(r.WorkDir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(r.WorkDir, 0o755); err != nil {
			return nil, err
		}
		// Pages shared between benches, certificates: ours to remove.
		return func() { os.RemoveAll(r.WorkDir) }, nil
	}
	return func() { os.Remove(r.WorkDir) }, nil
}

// modelWeights models each condition's wall time per load (ms) for the
// ETA, the bench order and the testbeds' size, opening each page once (0
// when its page cannot be built here; the bench's Open will say why).
func (r *Runner) modelWeights(tasks []task) {
	r.weight = map[string]float64{}
	if r.pages == nil {
		r.pages = page.Cache{}
	}
	for _, t := range tasks {
		for _, c := range t.group.Conds {
			if m, _ := r.pages.Open(c.Page, c.Shards, r.Study.Seed, c.ShardMode); m != nil {
				r.weight[c.Hash] = float64(spec.ModelledWall(m, c.Condition)) / float64(time.Millisecond)
			}
		}
	}
}

// planETA is the ETA's plan: the benches in the order they will run,
// each with its pending loads.
func (r *Runner) planETA(tasks []task) *eta.Model {
	model := eta.New(pickBench)
	for _, t := range tasks {
		var loads []eta.Load
		for _, pps := range t.pending {
			for _, pp := range pps {
				loads = append(loads, r.etaLoad(t.group.Conds[pp.cond]))
			}
		}
		model.PlanBench(t.group.Key, r.serial(t.group), len(t.group.Conds), loads)
	}
	return model
}

func (r *Runner) etaLoad(c spec.Cond) eta.Load { return eta.Load{Proto: c.Proto, Ms: r.weight[c.Hash]} }

// serial tells a bench that runs with no other beside it.
func (r *Runner) serial(g spec.Group) bool { return r.BrowserAlone && groupIsBrowser(g) }

// taskWork is the modelled work of a bench's pending probes.
func (r *Runner) taskWork(t task) float64 {
	var w float64
	for _, pps := range t.pending {
		for _, pp := range pps {
			w += r.weight[t.group.Conds[pp.cond].Hash]
		}
	}
	return w
}

// longestFirst orders benches by modelled work, longest first: with the
// long ones started early the run does not end with a few long benches
// running alone while the other slots sit idle (the classic
// longest-processing-time order).
func (r *Runner) longestFirst(tasks []task) []task {
	modelled := make([]float64, len(tasks))
	for i, t := range tasks {
		modelled[i] = r.taskWork(t)
	}
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return modelled[order[i]] > modelled[order[j]] })
	sorted := make([]task, len(tasks))
	for i, k := range order {
		sorted[i] = tasks[k]
	}
	return sorted
}

// browsersFirst moves the browser benches, which run alone, ahead of the
// others (keeping each side's order): fed in turn, every browser bench
// made the workers drain the benches beside it first and then wait idle
// while it ran; run first, they take one worker at a time while the
// others wait, and the loader benches then run side by side.
func browsersFirst(tasks []task) []task {
	out := make([]task, 0, len(tasks))
	for _, t := range tasks {
		if groupIsBrowser(t.group) {
			out = append(out, t)
		}
	}
	for _, t := range tasks {
		if !groupIsBrowser(t.group) {
			out = append(out, t)
		}
	}
	return out
}

// jobsTick is how often the runner asks -j auto for the testbeds' size
// (a variable for tests).
var jobsTick = 5 * time.Second

// runTasks runs the benches on as many workers as env.adjust says at each
// moment: it starts workers up to the size, and a worker over it stops
// between two runs. A fatal error (a bench that cannot be built twice, a
// store that cannot be written) stops the whole run and is returned.
func (r *Runner) runTasks(ctx context.Context, tasks []task, env *runEnv) error {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	browsers := newBenchGate(r.BrowserJobs, r.BrowserAlone)
	sched := newScheduler(tasks)
	pool := newWorkerPool(env.testbeds())
	var wg sync.WaitGroup
	runOne := func(t task, first bool, stop func() bool) {
		defer t.runs.leave()
		release, ok := browsers.acquire(t.group, runCtx.Done())
		if !ok {
			return
		}
		err := r.runTask(runCtx, t, first, env, stop)
		release()
		if err != nil && runCtx.Err() == nil {
			cancel(err)
		}
	}
	worker := func() {
		defer wg.Done()
		retired := false
		stop := func() bool {
			retired = retired || pool.retire()
			return retired
		}
		for runCtx.Err() == nil && !stop() {
			t, first, ok := sched.take()
			if !ok {
				break
			}
			runOne(t, first, stop)
		}
		if !retired {
			pool.exit()
		}
	}
	tick := time.NewTicker(jobsTick)
	defer tick.Stop()
	for {
		for runCtx.Err() == nil && sched.hasWork() && pool.grow() {
			wg.Add(1)
			go worker()
		}
		if pool.count() == 0 && (runCtx.Err() != nil || !sched.hasWork()) {
			break
		}
		select {
		case <-pool.changed:
		case now := <-tick.C:
			pool.setTarget(env.adjust(now, pool.count()))
		case <-runCtx.Done():
			wg.Wait()
		}
	}
	wg.Wait()
	if err := context.Cause(runCtx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// runTask opens one bench and runs its pending probes, protocols
// interleaved run by run so that drift of the machine or the network hits
// every protocol alike. It stops between two runs when stop says so,
// leaving the bench's other runs to the next worker; first tells the
// bench's first testbed.
func (r *Runner) runTask(ctx context.Context, t task, first bool, env *runEnv, stop func() bool) (err error) {
	cond0 := t.group.Conds[0].Condition
	t0 := time.Now()
	b, dir, err := r.openBench(ctx, cond0)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("building the testbed for %s: %w", t.group.Conds[0].Describe(), err)
	}
	defer func() {
		closing := time.Now()
		cerr := b.Close()
		env.prog.benchClosed(time.Since(closing))
		if cerr != nil && err == nil {
			err = fmt.Errorf("closing the testbed for %s: %w", t.group.Conds[0].Describe(), cerr)
		}
		os.RemoveAll(dir)
	}()
	if m := b.Manifest(); m != nil {
		if err := r.Store.PutManifest(spec.ManifestKey(cond0), m); err != nil {
			return storeFailure(err)
		}
	}
	check := b.Check(ctx)
	env.prog.benchOpened(t.group.Key, time.Since(t0))
	for !stop() {
		run, ok := t.runs.next()
		if !ok {
			break
		}
		for _, pp := range t.pending[run] {
			err := r.loadProbe(ctx, b, t.group, t.group.Conds[pp.cond], run, pp.attempts, check, env)
			if err != nil || ctx.Err() != nil {
				return err
			}
		}
		if err := t.runs.done(); err != nil {
			return storeFailure(err)
		}
	}
	return nil
}

// openBench builds a bench for c in a fresh scratch directory, trying
// twice.
func (r *Runner) openBench(ctx context.Context, c probe.Condition) (b Bench, dir string, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		dir, err = os.MkdirTemp(r.WorkDir, "bench-")
		if err != nil {
			return nil, "", err
		}
		b, err = safeOpen(ctx, r.Open, c, r.pages.Opened(c.Page, c.Shards, c.ShardMode), r.Study.Seed, dir)
		if err == nil {
			return b, dir, nil
		}
		os.RemoveAll(dir)
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
	}
	return nil, "", err
}

// StalledError is the failure of an attempt during which the link
// emulator stalled (stalledLoad); the probe is loaded again. Its text is
// what the store keeps as the attempt's error, read by every later report,
// so it names the line, not the load's own lateness, and never changes.
type StalledError struct {
	LateP99ms float64 // the load's release lateness, the worse direction
}

func (e *StalledError) Error() string {
	return fmt.Sprintf("the link emulator stalled during the load (packets released over %.0f ms late at the 99th percentile): the load measured the machine, not the link; loaded again", stats.SevereLateMs)
}

// stalledLoad tells whether the link emulator stalled during a load: its
// release lateness over the load (p99, the worse direction) is past
// stats.SevereLateMs, the line -j auto also counts as the whole machine
// stalling. Such a load's PLT measures the machine: in the stored studies
// (0.6-4.2 % of their loads) these loads lay a median +1 to +14 % from
// their conditions' on-time loads, and up to 1.7x. A load that failed
// meanwhile may have failed for the stall itself (a peer's handshake
// deadline passing while the machine stood still), so it is one too.
func stalledLoad(res probe.Result) bool {
	return res.LinkLateP99ms() > stats.SevereLateMs
}

// loadProbe loads one probe, from its next attempt on, until it succeeds
// or has failed twice, storing each attempt and publishing its start and
// its outcome. A first attempt during which the emulator stalled is stored
// as failed (StalledError) and loaded again; a second one stands as it
// is, so that a machine that always stalls still measures every probe.
func (r *Runner) loadProbe(ctx context.Context, b Bench, g spec.Group, c spec.Cond, run, attempts int, check probe.LinkCheck, env *runEnv) error {
	for attempt := attempts; attempt < 2; attempt++ {
		if ctx.Err() != nil {
			return nil
		}
		t0 := time.Now()
		ev := event.Load{Bench: g.Key, Cond: c.Hash, Proto: c.Proto, ModelledMs: r.weight[c.Hash], Serial: r.serial(g),
			Attempt: attempt, Retry: attempt != attempts, Started: t0}
		ev.ID = env.publish(ev)
		res := safeLoad(ctx, b, c.Proto, run)
		dur := time.Since(t0)
		if ctx.Err() != nil {
			// Interrupted mid-load: the result says nothing about the
			// protocol; leave the probe for a resumed run.
			return nil
		}
		if bb, ok := b.(interface{ Broken() error }); ok && res.Failed && bb.Broken() != nil {
			// The bench broke (its link emulator died): the load says
			// nothing of the protocol and every later one would fail
			// the same way. Stop; a resumed run loads it again.
			return fmt.Errorf("the testbed for %s broke during a load, the run stops: %s; every load stored so far is kept: run the same command again to resume", c.Describe(), res.Error)
		}
		if res.Failed && diskFull(res.Error) {
			// The load could not write its capture or HAR: that says
			// nothing of the protocol, and stored as a failed attempt it
			// would use up the probe's attempts, so a resume would skip it.
			return storeFailure(errors.New(res.Error))
		}
		res.Condition = c.Condition
		res.Run = run
		if res.Started.IsZero() {
			res.Started = t0
		}
		if res.Failed && res.Error == "" {
			res.Error = "load failed without a reason"
		}
		stalled := attempt == 0 && stalledLoad(res)
		if stalled {
			why := (&StalledError{LateP99ms: res.LinkLateP99ms()}).Error()
			if res.Failed {
				why += "; the load itself failed: " + res.Error
			}
			res.Failed, res.Error = true, why
		}
		if _, err := r.Store.Put(store.Probe{CondHash: c.Hash, Run: run, Attempt: attempt, SessionID: env.sess, Duration: dur, Result: res, Check: check}); err != nil {
			return storeFailure(err)
		}
		ev.End, ev.Took, ev.LateP99ms, ev.WaitP99ms = true, dur, res.LinkLateP99ms(), res.EndpointWaitP99ms()
		ev.Failed, ev.Stalled, ev.Again = res.Failed, stalled, res.Failed && attempt == 0
		if !res.Failed {
			ev.PLTms = res.PLTms
		}
		env.publish(ev)
		if !res.Failed {
			break
		}
	}
	return nil
}

// safeLoad turns a panic inside a bench into a failed load, so that one
// bug costs one probe (stored with the panic as its reason) instead of the
// run, and the benches still get closed.
func safeLoad(ctx context.Context, b Bench, proto string, run int) (res probe.Result) {
	defer func() {
		if v := recover(); v != nil {
			res = probe.Result{Failed: true, Error: fmt.Sprintf("panic in the bench: %v", v)}
		}
	}()
	return b.Load(ctx, proto, run)
}

// storeFailure explains a failed write to the store: when the output disk
// is full, what to do about it (the store keeps every load written before).
func storeFailure(err error) error {
	if errors.Is(err, syscall.ENOSPC) || diskFull(err.Error()) {
		return fmt.Errorf("the output disk is full (%w); every load stored so far is kept: free space and run again with the same output directory to resume", err)
	}
	return err
}

// diskFull tells whether an error's text says a disk or quota is full
// (SQLite's own message, or the errno's text after a file write).
func diskFull(msg string) bool {
	for _, s := range []string{"disk is full", syscall.ENOSPC.Error(), syscall.EDQUOT.Error()} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func safeOpen(ctx context.Context, open Opener, c probe.Condition, pg *page.Manifest, seed int64, dir string) (b Bench, err error) {
	defer func() {
		if v := recover(); v != nil {
			b, err = nil, fmt.Errorf("panic while building the bench: %v", v)
		}
	}()
	return open(ctx, c, pg, seed, dir)
}
