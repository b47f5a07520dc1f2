package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Bench is one condition's testbed: network, servers and page, able to load
// the page with any protocol. Production uses the harness; tests use fakes.
type Bench interface {
	Load(ctx context.Context, proto string, run int) probe.Result
	Check(ctx context.Context) probe.LinkCheck
	// Manifest is the page the bench serves, JSON encoded (for the report's
	// lower bound).
	Manifest() ([]byte, error)
	Close() error
}

// Opener builds a bench for a condition (its Proto is irrelevant). workDir
// is a fresh directory the bench may fill and that is removed after Close;
// its parent (Runner.WorkDir) lives for the whole run and may hold files
// shared between benches, such as generated pages.
type Opener func(ctx context.Context, c probe.Condition, seed int64, workDir string) (Bench, error)

// Shard selects a deterministic slice of a study: groups (conditions that
// differ only in protocol) are dealt round-robin to N shards, index I
// (0-based) runs its own.
type Shard struct{ I, N int }

// ParseShard parses "i/N" with 0 <= i < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/N with 0 <= i < N, e.g. 0/4 (i is 0-based like $SLURM_ARRAY_TASK_ID and $JOB_COMPLETION_INDEX)", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Group is the conditions that share one bench: identical except for the
// protocol, so a runner can interleave protocols on the same network.
type Group struct {
	Key   string // hash of the condition without its protocol
	Conds []Cond // in the study's protocol order
}

// Groups partitions a study's conditions into bench groups in study order.
func Groups(s *Study) []Group {
	var out []Group
	at := map[string]int{}
	for _, c := range s.Conditions {
		bc := c.Condition
		bc.Proto = ""
		k := HashCondition(bc)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Group{Key: k})
		}
		out[i].Conds = append(out[i].Conds, c)
	}
	return out
}

// ShardGroups returns the groups shard sh runs.
func ShardGroups(s *Study, sh Shard) []Group {
	all := Groups(s)
	if sh.N <= 1 {
		return all
	}
	// Deal by sorted key so the partition does not depend on file order.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	var out []Group
	for i, g := range all {
		if i%sh.N == sh.I {
			out = append(out, g)
		}
	}
	return out
}

// Runner runs a study into a store.
type Runner struct {
	Study *Study
	Store *Store
	Open  Opener
	Jobs  int   // parallel benches; <1 = 1
	Shard Shard // zero = everything
	// WorkDir holds per-bench scratch directories (generated pages,
	// certificates); removed when the run ends.
	WorkDir string
	// Progress receives the progress display; nil = none. TTY selects a
	// redrawn bar instead of periodic lines.
	Progress io.Writer
	TTY      bool
	Args     string // command line, for provenance

	weight map[string]float64 // modelled ms per load, by condition hash
}

// Summary is what a run did.
type Summary struct {
	Planned  int // probes this run had to do (after resume)
	Done     int // probes stored by this run (failures included)
	Failed   int // stored failed attempts
	Skipped  int // probes already in the store
	Elapsed  time.Duration
	Canceled bool
}

// Revision is the spdylab source revision, set with
// -ldflags "-X github.com/spdylab/spdylab/study.Revision=$(git rev-parse HEAD)";
// when empty the Go build info is consulted.
var Revision string

// CollectProvenance describes this process and machine.
func CollectProvenance(seed int64, jobs int, sh Shard, args string) Provenance {
	p := Provenance{Started: time.Now(), Go: runtime.Version(), Seed: seed, Jobs: jobs, Shard: sh.String(), Args: args}
	p.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		p.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])
	}
	p.Revision = Revision
	if p.Revision == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			mod := ""
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					p.Revision = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						mod = "+dirty"
					}
				}
			}
			if p.Revision == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				p.Revision = bi.Main.Version
			}
			if p.Revision != "" {
				p.Revision += mod
			}
		}
	}
	if p.Revision == "" {
		p.Revision = worktreeRevision()
	}
	if p.Revision == "" {
		p.Revision = "unknown"
	}
	return p
}

// worktreeRevision is the git revision of the work tree the executable
// lives in (bin/spdylab after `make build`), for builds without VCS stamps.
// It is marked as such because the binary may predate later edits.
func worktreeRevision() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", filepath.Dir(exe), "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if len(rev) != 40 {
		return ""
	}
	return rev + " (work tree at run time)"
}

type task struct {
	group Group
	// pending[r] lists indexes into group.Conds still to load at run r, with
	// the number of attempts already stored.
	pending map[int][]pendingProbe
}

type pendingProbe struct {
	cond     int
	attempts int
}

// Run runs every pending probe of the runner's shard. It returns when all
// are stored, or when ctx is canceled (scheduling stops, benches close,
// stored probes stay; Summary.Canceled is set and the error is ctx's).
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	start := time.Now()
	jobs := max(r.Jobs, 1)
	states, err := r.Store.States()
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	var tasks []task
	for _, g := range ShardGroups(r.Study, r.Shard) {
		t := task{group: g, pending: map[int][]pendingProbe{}}
		for run := 0; run < r.Study.Runs; run++ {
			for ci, c := range g.Conds {
				st := states[ProbeKey{c.Hash, run}]
				// Done: a success, or a failure that was already retried.
				if st.OK || st.Attempts >= 2 {
					sum.Skipped++
					continue
				}
				t.pending[run] = append(t.pending[run], pendingProbe{ci, st.Attempts})
				sum.Planned++
			}
		}
		if len(t.pending) > 0 {
			tasks = append(tasks, t)
		}
	}
	if sum.Planned == 0 {
		return sum, nil
	}
	sess, err := r.Store.StartSession(CollectProvenance(r.Study.Seed, jobs, r.Shard, r.Args))
	if err != nil {
		return sum, err
	}
	if r.WorkDir == "" {
		r.WorkDir = filepath.Join(os.TempDir(), "spdylab-work")
	}
	if _, err := os.Stat(r.WorkDir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(r.WorkDir, 0o755); err != nil {
			return sum, err
		}
		// We made it, so everything in it (pages shared between benches,
		// certificates) is ours to remove.
		defer os.RemoveAll(r.WorkDir)
	} else {
		defer os.Remove(r.WorkDir) // only if empty: never someone else's files
	}

	// Model each condition's load time for the ETA (0 when its page
	// cannot be built here; the runner's Open will say why).
	weight := map[string]float64{}
	var plannedWork float64
	manifests := map[string]*page.Manifest{}
	for _, t := range tasks {
		for _, c := range t.group.Conds {
			key := ManifestKey(c.Condition)
			m, ok := manifests[key]
			if !ok {
				m, _ = manifestFor(c.Condition, r.Study.Seed)
				manifests[key] = m
			}
			if m != nil {
				weight[c.Hash] = LowerBound(m, c.Condition).Total*estBoundFactor + float64(estLoadOverhead/time.Millisecond)
			}
		}
		for _, pps := range t.pending {
			for _, pp := range pps {
				plannedWork += weight[t.group.Conds[pp.cond].Hash]
			}
		}
	}
	r.weight = weight
	// Longest modelled bench first: with the long ones started early the
	// run does not end with a few long benches running alone while the
	// other slots sit idle (the classic longest-processing-time order).
	modelled := make([]float64, len(tasks))
	for i, t := range tasks {
		for _, pps := range t.pending {
			for _, pp := range pps {
				modelled[i] += weight[t.group.Conds[pp.cond].Hash]
			}
		}
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
	tasks = sorted
	prog := newProgress(r.Progress, r.TTY, sum.Planned, plannedWork)
	defer prog.finish()

	// A fatal error (a bench that cannot be built twice, a store that
	// cannot be written) stops the whole run.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var mu sync.Mutex
	work := make(chan task)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				done, failed, err := r.runTask(runCtx, t, sess, prog)
				mu.Lock()
				sum.Done += done
				sum.Failed += failed
				mu.Unlock()
				if err != nil && runCtx.Err() == nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for _, t := range tasks {
		select {
		case work <- t:
		case <-runCtx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	sum.Elapsed = time.Since(start)
	if ctx.Err() != nil {
		sum.Canceled = true
		return sum, ctx.Err()
	}
	if err := context.Cause(runCtx); err != nil && !errors.Is(err, context.Canceled) {
		return sum, err
	}
	return sum, nil
}

// runTask opens one bench and runs its pending probes, protocols
// interleaved run by run so that drift of the machine or the network hits
// every protocol alike.
func (r *Runner) runTask(ctx context.Context, t task, sess int64, prog *progress) (done, failed int, err error) {
	cond0 := t.group.Conds[0].Condition
	var b Bench
	var dir string
	for attempt := 0; attempt < 2; attempt++ {
		dir, err = os.MkdirTemp(r.WorkDir, "bench-")
		if err != nil {
			return 0, 0, err
		}
		b, err = safeOpen(ctx, r.Open, cond0, r.Study.Seed, dir)
		if err == nil {
			break
		}
		os.RemoveAll(dir)
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("building the testbed for %s: %w", describe(t.group.Conds[0]), err)
	}
	defer func() {
		if cerr := b.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the testbed for %s: %w", describe(t.group.Conds[0]), cerr)
		}
		os.RemoveAll(dir)
	}()
	if m, merr := b.Manifest(); merr == nil && len(m) > 0 {
		if err := r.Store.PutManifest(ManifestKey(cond0), m); err != nil {
			return 0, 0, err
		}
	}
	check := b.Check(ctx)
	runs := make([]int, 0, len(t.pending))
	for run := range t.pending {
		runs = append(runs, run)
	}
	sort.Ints(runs)
	for _, run := range runs {
		for _, pp := range t.pending[run] {
			c := t.group.Conds[pp.cond]
			for attempt := pp.attempts; attempt < 2; attempt++ {
				if ctx.Err() != nil {
					return done, failed, nil
				}
				t0 := time.Now()
				res := safeLoad(ctx, b, c.Proto, run)
				dur := time.Since(t0)
				if ctx.Err() != nil {
					// Interrupted mid-load: the result says nothing about
					// the protocol; leave the probe for a resumed run.
					return done, failed, nil
				}
				res.Condition = c.Condition
				res.Run = run
				if res.Started.IsZero() {
					res.Started = t0
				}
				if res.Failed && res.Error == "" {
					res.Error = "load failed without a reason"
				}
				if _, err := r.Store.Put(Probe{CondHash: c.Hash, Run: run, Attempt: attempt, SessionID: sess, Duration: dur, Result: res, Check: check}); err != nil {
					return done, failed, err
				}
				done++
				if attempt == pp.attempts {
					prog.add(res.Failed, r.weight[c.Hash])
				} else {
					prog.add(res.Failed, 0) // a retry: not in the plan
				}
				if !res.Failed {
					break
				}
				failed++
			}
		}
	}
	return done, failed, nil
}

func describe(c Cond) string {
	var parts []string
	for _, f := range factors {
		if v, ok := c.Values[f.name]; ok && f.name != "protocol" {
			parts = append(parts, f.name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// MarshalManifest is a helper for openers: JSON of any manifest value.
func MarshalManifest(m any) ([]byte, error) { return json.Marshal(m) }

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

func safeOpen(ctx context.Context, open Opener, c probe.Condition, seed int64, dir string) (b Bench, err error) {
	defer func() {
		if v := recover(); v != nil {
			b, err = nil, fmt.Errorf("panic while building the bench: %v", v)
		}
	}()
	return open(ctx, c, seed, dir)
}
