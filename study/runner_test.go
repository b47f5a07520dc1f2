package study

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/eta"
	"github.com/spdylab/spdylab/study/event"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// fakeBench stands in for the harness in unit tests of the runner's
// scheduling and storage logic. Its "PLT" encodes what was asked so tests
// can check that the right probe was stored under the right key.
type fakeBench struct {
	c      probe.Condition
	pg     *page.Manifest
	log    *loadLog
	delay  time.Duration
	fail   func(proto string, run int, n int) bool
	closed bool
	id     int // which testbed of the run (in opening order)
}

type loadLog struct {
	mu    sync.Mutex
	loads []string // "benchKey proto run"
	// byTestbed lists the same loads as "testbed proto run".
	byTestbed []string
	opens     int
	closes    int
	open      int // benches open right now
	peak      int
	// pageless counts benches opened without the runner's page (it opens
	// every built-in page once, for the ETA, and hands it to the benches).
	pageless int
}

func (l *loadLog) add(s string) {
	l.mu.Lock()
	l.loads = append(l.loads, s)
	l.mu.Unlock()
}

func (b *fakeBench) Load(ctx context.Context, proto string, run int) probe.Result {
	if b.delay > 0 {
		select {
		case <-time.After(b.delay):
		case <-ctx.Done():
			return probe.Result{Failed: true, Error: "canceled"}
		}
	}
	key := fmt.Sprintf("%s %d %s %d", b.c.Page, b.c.Link.RTT.Milliseconds(), proto, run)
	b.log.mu.Lock()
	n := 0
	for _, l := range b.log.loads {
		if l == key {
			n++
		}
	}
	b.log.loads = append(b.log.loads, key)
	b.log.byTestbed = append(b.log.byTestbed, fmt.Sprintf("%d %s %d", b.id, proto, run))
	b.log.mu.Unlock()
	if b.fail != nil && b.fail(proto, run, n) {
		return probe.Result{Failed: true, Error: "fake: resource /x timed out", Started: time.Now()}
	}
	plt := float64(100 + run)
	if proto == probe.ProtoSPDY31 {
		plt += 1000
	}
	return probe.Result{PLTms: plt, ToWms: plt - 10, Resources: 3, Started: time.Now(), HAR: []byte(`{"log":{}}`)}
}

func (b *fakeBench) Check(context.Context) probe.LinkCheck {
	return fakeCheck(b.c)
}

// fakeCheck is a link check as a bench with a rate-limited link reports it.
func fakeCheck(c probe.Condition) probe.LinkCheck {
	return probe.LinkCheck{RTTms: float64(c.Link.RTT.Milliseconds()), RTTConfiguredms: float64(c.Link.RTT.Milliseconds()),
		DownMbps: 9.99, UpMbps: 1.01, QueueDownPkts: 50, QueueUpPkts: 49, OK: true,
		Note: "down 9.99 Mbit/s (configured 10), queue 50 pkts (configured 50): 51 of 61 delivered, 10 dropped at the queue"}
}
func (b *fakeBench) Manifest() *page.Manifest { return b.pg }
func (b *fakeBench) Close() error {
	b.log.mu.Lock()
	b.log.closes++
	b.log.open--
	b.log.mu.Unlock()
	b.closed = true
	return nil
}

func fakeOpener(log *loadLog, delay time.Duration, fail func(string, int, int) bool) Opener {
	return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (Bench, error) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("work dir %s missing", dir)
		}
		log.mu.Lock()
		log.opens++
		log.open++
		log.peak = max(log.peak, log.open)
		if pg == nil || pg.Name != c.Page {
			log.pageless++
		}
		id := log.opens
		log.mu.Unlock()
		return &fakeBench{c: c, pg: pg, log: log, delay: delay, fail: fail, id: id}, nil
	}
}

const tinyStudy = `
name = "tiny"
runs = 3
seed = 7
[factors]
page = ["pageA", "pageB"]
rtt = ["20ms", "100ms"]
protocol = ["https", "spdy/3.1"]
`

// newTestStore creates a store for s in a fresh directory, closed when the
// test ends.
func newTestStore(t *testing.T, s *spec.Study) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func mustParse(t *testing.T, src string) *spec.Study {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunnerStoresEveryProbeInterleaved(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	r := &Runner{Study: s, Store: st, Open: fakeOpener(log, 0, nil), Jobs: 2, WorkDir: filepath.Join(dir, "work")}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Planned != 24 || sum.Attempts != 24 || sum.Failed != 0 {
		t.Errorf("summary %+v, want 24 planned and done", sum)
	}
	if log.opens != 4 || log.closes != 4 {
		t.Errorf("%d benches opened, %d closed; want 4 (one per page x rtt)", log.opens, log.closes)
	}
	// Within one bench the protocols alternate run by run.
	byBench := map[string][]string{}
	for _, l := range log.loads {
		f := strings.Fields(l)
		byBench[f[0]+f[1]] = append(byBench[f[0]+f[1]], f[2]+" "+f[3])
	}
	for k, seq := range byBench {
		want := []string{"https 0", "spdy/3.1 0", "https 1", "spdy/3.1 1", "https 2", "spdy/3.1 2"}
		if strings.Join(seq, ",") != strings.Join(want, ",") {
			t.Errorf("bench %s load order %v, want %v", k, seq, want)
		}
	}
	probes, err := st.Probes(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 24 {
		t.Fatalf("%d probes stored", len(probes))
	}
	for _, p := range probes {
		r := p.Result
		wantPLT := float64(100 + p.Run)
		if r.Condition.Proto == probe.ProtoSPDY31 {
			wantPLT += 1000
		}
		if r.PLTms != wantPLT || r.Run != p.Run || spec.HashCondition(r.Condition) != p.CondHash {
			t.Errorf("probe %d stored under the wrong key: %+v", p.ID, p)
		}
		if string(r.HAR) != `{"log":{}}` || p.Check != fakeCheck(r.Condition) {
			t.Errorf("probe %d lost its HAR or link check: %+v", p.ID, p.Check)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "work")); len(entries) != 0 {
		t.Errorf("work dirs left behind: %v", entries)
	}
	mans, _ := st.Manifests()
	if len(mans) != 2 {
		t.Errorf("%d manifests stored, want 2 (pageA, pageB)", len(mans))
	}
	if log.pageless != 0 {
		t.Errorf("%d benches opened without the runner's page", log.pageless)
	}
	sess, _ := st.Sessions()
	if len(sess) != 1 || sess[0].Go == "" || sess[0].Kernel == "" || sess[0].Seed != 7 {
		t.Errorf("provenance %+v", sess)
	}
	// A second run has nothing to do.
	sum, err = r.Run(context.Background())
	if err != nil || sum.Planned != 0 || sum.Skipped != 24 {
		t.Errorf("rerun: %+v %v", sum, err)
	}
}

func TestRunnerRetriesAFailedProbeOnce(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	// run 1 of spdy fails always; run 2 of https fails only the first time.
	fail := func(proto string, run, n int) bool {
		return (proto == probe.ProtoSPDY31 && run == 1) || (proto == probe.ProtoHTTPS && run == 2 && n == 0)
	}
	r := &Runner{Study: s, Store: st, Open: fakeOpener(log, 0, fail), Jobs: 1, WorkDir: filepath.Join(dir, "w")}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 24 probes; 4 always-failing keys take 2 attempts, 4 flaky keys 2 attempts.
	if sum.Attempts != 32 || sum.Failed != 12 {
		t.Errorf("summary %+v, want 32 stored of which 12 failed", sum)
	}
	states, _ := st.States()
	for k, s := range states {
		if s.Attempts > 2 {
			t.Errorf("%v attempted %d times", k, s.Attempts)
		}
	}
	probes, _ := st.Probes(false)
	for _, p := range probes {
		if p.Result.Failed && !strings.Contains(p.Result.Error, "/x timed out") {
			t.Errorf("failure reason lost: %q", p.Result.Error)
		}
	}
	// Resume does not retry a key that already failed twice.
	sum, _ = r.Run(context.Background())
	if sum.Planned != 0 {
		t.Errorf("resume planned %d, want 0", sum.Planned)
	}
}

func TestRunnerBenchThatCannotOpenStopsTheRun(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	var opens atomic.Int32
	r := &Runner{Study: s, Store: st, Jobs: 2, WorkDir: filepath.Join(dir, "w"),
		Open: func(context.Context, probe.Condition, *page.Manifest, int64, string) (Bench, error) {
			opens.Add(1)
			return nil, errors.New("netem: creating namespace: operation not permitted")
		}}
	_, err := r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "operation not permitted") || !strings.Contains(err.Error(), "page=") {
		t.Errorf("err = %v, want the bench error naming the condition", err)
	}
	if n, _ := st.Probes(false); len(n) != 0 {
		t.Errorf("%d probes stored for benches that never opened", len(n))
	}
}

func TestRunnerCancelKeepsStoredAndClosesBenches(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	open := fakeOpener(log, 5*time.Millisecond, nil)
	r := &Runner{Study: s, Store: st, Jobs: 2, WorkDir: filepath.Join(dir, "w"),
		Open: func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
			b, err := open(ctx, c, pg, seed, d)
			once.Do(func() { time.AfterFunc(20*time.Millisecond, cancel) })
			return b, err
		}}
	sum, err := r.Run(ctx)
	if !errors.Is(err, context.Canceled) || !sum.Canceled {
		t.Fatalf("err = %v, summary %+v; want canceled", err, sum)
	}
	if log.opens != log.closes {
		t.Errorf("%d benches opened, %d closed", log.opens, log.closes)
	}
	probes, _ := st.Probes(false)
	for _, p := range probes {
		if p.Result.Failed {
			t.Errorf("a load cut short by the interrupt was stored as a failure: %+v", p.Result)
		}
	}
	if len(probes) == 24 {
		t.Skip("the whole study finished before the interrupt; nothing to check")
	}
	sum2, err := r.Run(context.Background())
	if err != nil || sum2.Planned != 24-len(probes) {
		t.Errorf("resume planned %d (err %v), want %d", sum2.Planned, err, 24-len(probes))
	}
}

func TestShardsPartitionTheStudy(t *testing.T) {
	s, _ := studyfile.Builtin("study1-cablelabs")
	all := spec.Groups(s)
	if len(all) != 144 { // 432 conditions, 3 protocols per bench
		t.Fatalf("%d groups", len(all))
	}
	seen := map[string]int{}
	for i := 0; i < 5; i++ {
		for _, g := range spec.ShardGroups(s, spec.Shard{I: i, N: 5}) {
			seen[g.Key]++
		}
	}
	if len(seen) != len(all) {
		t.Errorf("shards cover %d of %d groups", len(seen), len(all))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("group %s in %d shards", k, n)
		}
	}
	for _, bad := range []string{"5/5", "-1/3", "1", "a/b", "0/0"} {
		if _, err := spec.ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestMergeShards(t *testing.T) {
	s := mustParse(t, tinyStudy)
	root := t.TempDir()
	var dirs []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(root, fmt.Sprintf("shard%d", i))
		st, err := store.CreateStore(d, s)
		if err != nil {
			t.Fatal(err)
		}
		r := &Runner{Study: s, Store: st, Open: fakeOpener(&loadLog{}, 0, nil), Shard: spec.Shard{I: i, N: 3}, WorkDir: filepath.Join(d, "w")}
		if _, err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		st.Close()
		dirs = append(dirs, d)
	}
	out := filepath.Join(root, "merged")
	n, err := store.Merge(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 24 {
		t.Errorf("merged %d probes, want 24", n)
	}
	st, _ := store.OpenStore(out)
	states, _ := st.States()
	sess, _ := st.Sessions()
	st.Close()
	if len(states) != 24 || len(sess) != 3 {
		t.Errorf("merged store has %d keys and %d sessions", len(states), len(sess))
	}
	// Merging into a directory that already holds results is refused.
	if _, err := store.Merge(out, dirs); err == nil || !strings.Contains(err.Error(), "new directory") {
		t.Errorf("merge into a full directory: err = %v", err)
	}
	// Merging a shard twice is a duplicate.
	if _, err := store.Merge(filepath.Join(root, "dup"), []string{dirs[0], dirs[0]}); err == nil || !strings.Contains(err.Error(), "in both") {
		t.Errorf("duplicate shard: err = %v", err)
	}
	// Merging another study's shard is refused.
	other := filepath.Join(root, "other")
	s2 := mustParse(t, strings.Replace(tinyStudy, "runs = 3", "runs = 2", 1))
	st2, _ := store.CreateStore(other, s2)
	st2.Close()
	if _, err := store.Merge(filepath.Join(root, "mixed"), []string{dirs[0], other}); !errors.Is(err, store.ErrOtherStudy) {
		t.Errorf("mixed studies: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "mixed")); !os.IsNotExist(err) {
		t.Errorf("refused merge created its output directory")
	}
}

func TestOtherStudyInOutIsRefusedAndUntouched(t *testing.T) {
	dir := t.TempDir()
	a := mustParse(t, tinyStudy)
	st, err := store.CreateStore(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Study: a, Store: st, Open: fakeOpener(&loadLog{}, 0, nil), WorkDir: filepath.Join(dir, "w")}
	r.Run(context.Background())
	st.Close()
	before := snapshot(t, dir)
	b := mustParse(t, strings.Replace(tinyStudy, `"tiny"`, `"other"`, 1))
	_, err = store.CreateStore(dir, b)
	if !errors.Is(err, store.ErrOtherStudy) || !strings.Contains(err.Error(), `study "tiny"`) {
		t.Errorf("err = %v, want it to name the study the directory holds", err)
	}
	c := mustParse(t, strings.Replace(tinyStudy, "runs = 3", "runs = 5", 1))
	if _, err := store.CreateStore(dir, c); err == nil || !strings.Contains(err.Error(), "3 runs") {
		t.Errorf("runs mismatch: err = %v", err)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshot lists the directory's files; the probes table is compared via
// the store (the SQLite file itself may be checkpointed on open).
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps, _ := st.Probes(true)
	var keys []string
	for _, p := range ps {
		keys = append(keys, fmt.Sprintf("%d:%s:%d:%v", p.ID, p.CondHash, p.Run, p.Result.PLTms))
	}
	return strings.Join(names, ",") + " | " + strings.Join(keys, ",")
}

// The kill -9 test runs the runner in a child process (this test binary
// re-executed), kills it after a few probes are stored, and resumes.
const childEnv = "SPDYLAB_STUDY_TEST_CHILD_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(childEnv); out != "" {
		os.Exit(runChild(out))
	}
	os.Exit(m.Run())
}

func runChild(out string) int {
	s, err := studyfile.Parse([]byte(tinyStudy), "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	st, err := store.CreateStore(out, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log := &loadLog{}
	open := fakeOpener(log, 30*time.Millisecond, nil)
	r := &Runner{Study: s, Store: st, Jobs: 2, WorkDir: filepath.Join(out, "w"),
		Open: func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
			b, err := open(ctx, c, pg, seed, d)
			if err != nil {
				return nil, err
			}
			return &announcingBench{b}, nil
		}}
	_, err = r.Run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// announcingBench prints a line after each load so the parent knows when
// to strike (a load is stored right after it returns).
type announcingBench struct{ Bench }

func (a *announcingBench) Load(ctx context.Context, proto string, run int) probe.Result {
	r := a.Bench.Load(ctx, proto, run)
	fmt.Println("loaded")
	return r
}

func TestResumeAfterKill9(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+out)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for n := 0; n < 7 && sc.Scan(); n++ {
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	s := mustParse(t, tinyStudy)
	st, err := store.CreateStore(out, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before, _ := st.States()
	if len(before) < 5 || len(before) >= 24 {
		t.Fatalf("%d probes survived the kill; want some but not all", len(before))
	}
	log := &loadLog{}
	r := &Runner{Study: s, Store: st, Open: fakeOpener(log, 0, nil), Jobs: 2, WorkDir: filepath.Join(out, "w")}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Planned != 24-len(before) || sum.Skipped != len(before) {
		t.Errorf("resume planned %d and skipped %d; %d were stored before", sum.Planned, sum.Skipped, len(before))
	}
	after, _ := st.States()
	if len(after) != 24 {
		t.Errorf("%d keys after resume, want 24", len(after))
	}
	for k, s := range after {
		if s.Attempts != 1 || !s.OK {
			t.Errorf("%v: %d attempts (ok %v), want exactly one successful", k, s.Attempts, s.OK)
		}
	}
}

func TestOverridesSurviveTheStore(t *testing.T) {
	s := mustParse(t, strings.Replace(tinyStudy, `rtt = ["20ms", "100ms"]`, `rtt = ["20ms", "100ms"]`+"\nrate = \"1mbit\"", 1))
	s.Override(2, true)
	if len(s.Conditions) != 4 { // the rtt values collapse on loopback
		t.Fatalf("%d conditions after --no-link, want 4", len(s.Conditions))
	}
	for _, c := range s.Conditions {
		if !c.NoLink || c.Link.DownBps != 0 {
			t.Errorf("condition still has a link: %+v", c.Condition)
		}
	}
	st, _ := newTestStore(t, s)
	back, err := st.Study()
	if err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint() != s.Fingerprint() || back.Runs != 2 || !back.NoLink {
		t.Errorf("stored study differs: runs %d nolink %v", back.Runs, back.NoLink)
	}
}

func TestProgressETAWeighsByModelledWork(t *testing.T) {
	var buf strings.Builder
	model := eta.New(pickBench)
	benches := []struct {
		key string
		ms  float64
	}{{"a", 5}, {"b", 10}, {"c", 10}, {"d", 40}, {"e", 35}}
	for _, b := range benches {
		model.PlanBench(b.key, false, 1, []eta.Load{{Proto: "https", Ms: b.ms}})
	}
	p := newProgress(&buf, false, len(benches), model, 2)
	feed := &progressFeed{p: p}
	if got := p.left(time.Now()); got != "?" {
		t.Errorf("ETA %s before any load, want ?", got)
	}
	// Three quick probes done in twice their modelled time; two benches
	// left, one on each testbed: the longer one's 40 units at 2 ms each.
	now := time.Now()
	for _, b := range benches[:3] {
		feed.load(event.Load{Bench: b.key, Proto: "https", ModelledMs: b.ms, Started: now}, time.Duration(2*b.ms)*time.Millisecond)
	}
	if got := p.left(now); got != "0s" {
		t.Errorf("ETA %s, want 0s", got)
	}
	if d, _ := p.eta.TimeLeft(now, 2); d != 80*time.Millisecond {
		t.Errorf("time left %s, want 80ms (the longer bench left, 40 units at 2 ms each)", d)
	}
	if d, _ := p.eta.TimeLeft(now, 1); d != 150*time.Millisecond {
		t.Errorf("time left on one testbed %s, want 150ms (75 units at 2 ms each)", d)
	}
	if !strings.Contains(buf.String(), "5 probes to run") {
		t.Errorf("plain progress header missing: %q", buf.String())
	}
}

// progressFeed publishes loads to a progress as the runner does, with
// the counts the runner keeps.
type progressFeed struct {
	p      *progress
	counts event.Counts
	id     int64
}

// load tells the progress that ev started and ended after took.
func (f *progressFeed) load(ev event.Load, took time.Duration) {
	f.id++
	ev.ID = f.id
	f.p.observe(ev, f.counts)
	ev.End, ev.Took = true, took
	f.counts.Add(ev)
	f.p.observe(ev, f.counts)
}

type panickyBench struct{ Bench }

func (panickyBench) Load(context.Context, string, int) probe.Result { panic("index out of range") }

func TestRunnerSurvivesAPanickingBench(t *testing.T) {
	s := mustParse(t, tinyStudy)
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	open := fakeOpener(log, 0, nil)
	r := &Runner{Study: s, Store: st, Jobs: 2, WorkDir: filepath.Join(dir, "w"),
		Open: func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, d string) (Bench, error) {
			b, err := open(ctx, c, pg, seed, d)
			return panickyBench{b}, err
		}}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 48 || log.closes != 4 {
		t.Errorf("summary %+v, %d benches closed", sum, log.closes)
	}
	probes, _ := st.Probes(false)
	if len(probes) == 0 || !strings.Contains(probes[0].Result.Error, "panic in the bench: index out of range") {
		t.Errorf("panic not recorded as the reason: %+v", probes)
	}
}

// Benches start longest modelled work first, so a run does not end with a
// long bench running alone. At 1 Mbit/s the bytes dominate the model: page
// B (1.4 MB) before page A, and within a page 100 ms before 20 ms.
func TestLongestBenchesStartFirst(t *testing.T) {
	s := mustParse(t, strings.Replace(tinyStudy, `rtt = ["20ms", "100ms"]`, `rtt = ["20ms", "100ms"]`+"\nrate = \"1mbit\"", 1))
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	r := &Runner{Study: s, Store: st, Open: fakeOpener(log, 0, nil), Jobs: 1, WorkDir: filepath.Join(dir, "w")}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var benches []string
	for _, l := range log.loads {
		f := strings.Fields(l)
		if b := f[0] + " " + f[1]; len(benches) == 0 || benches[len(benches)-1] != b {
			benches = append(benches, b)
		}
	}
	want := []string{"pageB 100", "pageB 20", "pageA 100", "pageA 20"}
	if strings.Join(benches, ",") != strings.Join(want, ",") {
		t.Errorf("bench order %q, want %q (longest modelled first)", benches, want)
	}
}

// Once every bench has started, idle workers open more testbeds for the
// bench with the most runs left and share its runs: each run is loaded
// once, by one testbed, with its protocols back to back, and a bench with
// fewer than MinRunsToShare runs left is not shared.
func TestIdleWorkersShareTheLongestBench(t *testing.T) {
	s := mustParse(t, strings.Replace(strings.Replace(tinyStudy, "runs = 3", "runs = 40", 1), `page = ["pageA", "pageB"]`, `page = "pageA"`, 1))
	s.Conditions = s.Conditions[:2] // one bench: pageA at 20 ms, https and spdy/3.1
	st, dir := newTestStore(t, s)
	log := &loadLog{}
	r := &Runner{Study: s, Store: st, Open: fakeOpener(log, 2*time.Millisecond, nil), Jobs: 3, WorkDir: filepath.Join(dir, "w")}
	sum, err := r.Run(context.Background())
	if err != nil || sum.Attempts != 80 {
		t.Fatalf("%+v, %v; want 80 loads done", sum, err)
	}
	if log.opens < 2 || log.opens > 3 {
		t.Errorf("%d testbeds opened for one bench and 3 workers, want 2 or 3", log.opens)
	}
	runsOf := map[int]string{}
	loaders := map[string]bool{}
	for i := 0; i < len(log.byTestbed); i++ {
		var id, run int
		var proto string
		fmt.Sscanf(log.byTestbed[i], "%d %s %d", &id, &proto, &run)
		if prev, ok := runsOf[run]; ok && !strings.HasPrefix(prev, fmt.Sprintf("%d ", id)) {
			t.Fatalf("run %d loaded by testbeds %s and %d", run, prev, id)
		}
		runsOf[run] = fmt.Sprintf("%d %s", id, proto)
		loaders[fmt.Sprint(id)] = true
	}
	if len(runsOf) != 40 || len(loaders) < 2 {
		t.Errorf("%d runs loaded by %d testbeds, want 40 by at least 2", len(runsOf), len(loaders))
	}
	// Each testbed loads a run's protocols back to back.
	last := map[int]string{}
	for _, l := range log.byTestbed {
		var id, run int
		var proto string
		fmt.Sscanf(l, "%d %s %d", &id, &proto, &run)
		if proto == probe.ProtoSPDY31 && last[id] != fmt.Sprintf("https %d", run) {
			t.Errorf("testbed %d loaded spdy/3.1 run %d after %q", id, run, last[id])
		}
		last[id] = fmt.Sprintf("%s %d", proto, run)
	}
	probes, _ := st.Probes(false)
	if len(probes) != 80 {
		t.Errorf("%d probes stored, want 80", len(probes))
	}
}
