package eta

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // read-only access to finished stores

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/event"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// The offline replay: a finished store's loads, each with its start,
// duration, bench and modelled wall time, become the events the runner
// gave its progress (benches built, loads started and done) in time order,
// and the ETA is asked at each load's end what it would have printed. The
// truth is the session's real end.

// replayLoad is one stored attempt of a session.
type replayLoad struct {
	start, end time.Time
	group      string // the bench (spec.Groups' key)
	cond       string
	proto      string
	serial     bool // a browser bench, which runs alone
	modelledMs float64
	retry      bool // a second attempt: not in the runner's plan
	failed     bool
}

// replaySession is one runner invocation: its loads and its testbeds.
type replaySession struct {
	name     string
	begin    time.Time    // the runner's start
	testbeds int          // -j, or the largest automatic size
	sizes    []sizeChange // an automatic session's sizes with their times (sizeChanges)
	auto     bool
	loads    []replayLoad
}

// eachReplayedSession calls fn with every session of the finished stores
// in dirs and the store's directory; a store that cannot be read fails the
// test, and the others are still read.
func eachReplayedSession(t *testing.T, dirs []string, fn func(dir string, s replaySession)) {
	t.Helper()
	for _, dir := range dirs {
		sessions, err := readReplay(dir)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for _, s := range sessions {
			fn(dir, s)
		}
	}
}

// readReplay reads every session of the finished store in dir, read-only
// (the file is opened immutable: no lock, no journal, nothing written).
func readReplay(dir string) ([]replaySession, error) {
	path := filepath.Join(dir, store.DBName)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	conds, err := replayConditions(db)
	if err != nil {
		return nil, err
	}
	sessions, err := replaySessions(db, filepath.Base(dir))
	if err != nil {
		return nil, err
	}
	rows, err := db.Query(`SELECT cond_hash, attempt, COALESCE(session_id, 0), started, duration_ms, failed FROM probes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("%s: reading probes: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var hash, started string
		var attempt int
		var sid int64
		var durMs float64
		var failed bool
		if err := rows.Scan(&hash, &attempt, &sid, &started, &durMs, &failed); err != nil {
			return nil, err
		}
		c, ok := conds[hash]
		s, okS := sessions[sid]
		if !ok || !okS {
			return nil, fmt.Errorf("%s: probe of condition %s in session %d: no such condition or session", path, hash, sid)
		}
		t0, err := time.Parse(time.RFC3339Nano, started)
		if err != nil {
			return nil, fmt.Errorf("%s: probe started %q: %w", path, started, err)
		}
		c.cond, c.start, c.end, c.retry, c.failed = hash, t0, t0.Add(time.Duration(durMs*float64(time.Millisecond))), attempt > 0, failed
		s.loads = append(s.loads, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []replaySession
	for _, s := range sessions {
		if len(s.loads) > 0 {
			sort.SliceStable(s.loads, func(i, j int) bool { return s.loads[i].start.Before(s.loads[j].start) })
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// replayConditions is each stored condition as a load template: its
// bench, whether it runs alone, and its modelled wall time from the page
// the bench served (the store keeps it).
func replayConditions(db *sql.DB) (map[string]replayLoad, error) {
	manifests := map[string]*page.Manifest{}
	rows, err := db.Query(`SELECT key, json FROM manifests`)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	for rows.Next() {
		var k, j string
		var m page.Manifest
		if err := rows.Scan(&k, &j); err != nil {
			rows.Close()
			return nil, err
		}
		if json.Unmarshal([]byte(j), &m) == nil {
			manifests[k] = &m
		}
	}
	rows.Close()
	rows, err = db.Query(`SELECT hash, condition_json FROM conditions`)
	if err != nil {
		return nil, fmt.Errorf("reading conditions: %w", err)
	}
	defer rows.Close()
	out := map[string]replayLoad{}
	for rows.Next() {
		var hash, cj string
		var c probe.Condition
		if err := rows.Scan(&hash, &cj); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(cj), &c); err != nil {
			return nil, fmt.Errorf("condition %s: %w", hash, err)
		}
		l := replayLoad{proto: c.Proto, serial: isBrowser(c.Client)}
		if m := manifests[spec.ManifestKey(c)]; m != nil {
			l.modelledMs = float64(spec.ModelledWall(m, c)) / float64(time.Millisecond)
		}
		bc := c
		bc.Proto = ""
		l.group = spec.HashCondition(bc)
		out[hash] = l
	}
	return out, rows.Err()
}

func replaySessions(db *sql.DB, name string) (map[int64]*replaySession, error) {
	rows, err := db.Query(`SELECT id, started, COALESCE(jobs, 0), COALESCE(jobs_auto, '') FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("reading sessions: %w", err)
	}
	defer rows.Close()
	out := map[int64]*replaySession{}
	for rows.Next() {
		var id int64
		var jobs int
		var started, auto string
		if err := rows.Scan(&id, &started, &jobs, &auto); err != nil {
			return nil, err
		}
		begin, err := time.Parse(time.RFC3339Nano, started)
		if err != nil {
			return nil, fmt.Errorf("session %d started %q: %w", id, started, err)
		}
		out[id] = &replaySession{name: fmt.Sprintf("%s#%d", name, id), begin: begin, testbeds: max(jobs, 1), auto: auto != "", sizes: sizeChanges(auto)}
	}
	return out, rows.Err()
}

// isBrowser tells a bench whose client is a real browser (it runs alone).
func isBrowser(client string) bool {
	cl, _ := probe.LookupClient(client)
	return cl.Browser
}

// replayEvent is one thing the runner told its progress.
type replayEvent struct {
	at    time.Time
	kind  int // evBench, evStart, evDone (the order at one instant)
	load  int // index in the session's loads
	build time.Duration
}

const (
	evDone = iota
	evBench
	evStart
)

// replayEvents rebuilds the session's timeline: loads start and end, and
// each testbed's bench is built before its first load. Which testbed ran
// a load is not stored, so the loads are laid on lanes: a load follows a
// load of its own bench that ended just before it (the runner loads a
// bench's probes back to back), else it opens a testbed on the lane freed
// last (or a new lane), and the gap is the bench's build time.
func replayEvents(s replaySession) []replayEvent {
	// A load's stored start is the loader's own, up to a second after the
	// runner's clock started (its duration's); and a store write and the
	// next run's start come between two loads of a bench.
	const backToBack = 1500 * time.Millisecond
	type lane struct {
		end   time.Time
		group string
	}
	var lanes []lane
	var ends []time.Time // every load's end so far, in order
	var evs []replayEvent
	for i, l := range s.loads {
		same, free := -1, -1
		for k, ln := range lanes {
			if ln.group == l.group && ln.end.Sub(l.start).Abs() < backToBack {
				same = k
			}
			if ln.end.After(l.start) {
				continue
			}
			if free < 0 || ln.end.After(lanes[free].end) {
				free = k
			}
		}
		if same < 0 {
			// A new worker started with the run or, if it waited (beside
			// a bench that runs alone), when the last load before it ended.
			from := s.begin
			if k := sort.Search(len(ends), func(k int) bool { return ends[k].After(l.start) }); k > 0 {
				from = ends[k-1]
			}
			if free >= 0 {
				from = lanes[free].end
			} else {
				lanes = append(lanes, lane{})
				free = len(lanes) - 1
			}
			same = free
			evs = append(evs, replayEvent{at: l.start, kind: evBench, load: i, build: l.start.Sub(from)})
		}
		lanes[same] = lane{end: l.end, group: l.group}
		k := sort.Search(len(ends), func(k int) bool { return ends[k].After(l.end) })
		ends = append(ends[:k], append([]time.Time{l.end}, ends[k:]...)...)
		evs = append(evs, replayEvent{at: l.start, kind: evStart, load: i}, replayEvent{at: l.end, kind: evDone, load: i})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if !evs[i].at.Equal(evs[j].at) {
			return evs[i].at.Before(evs[j].at)
		}
		return evs[i].kind < evs[j].kind
	})
	return evs
}

// replayPoint is the ETA's signed error (estimate/truth - 1) when a given
// share of the session's loads was done.
type replayPoint struct {
	share      float64
	err        float64
	got, truth time.Duration
	elapsed    time.Duration
	ok         bool
}

// replayShares are where the replay reports the error.
var replayShares = []float64{0.05, 0.10, 0.25, 0.50, 0.75}

// replayETA feeds the session's events to a fresh ETA planned as the
// runner plans it and returns its error at replayShares, plus the worst
// absolute error from 10% of the loads on until 90% of the session's
// wall time (in its last tenth a few seconds are a large share of what
// is left).
func replayETA(s replaySession, eta replayEstimator) (points []replayPoint, worst float64) {
	evs := replayEvents(s)
	begin, end := s.begin, s.loads[0].end
	for _, l := range s.loads {
		if l.end.After(end) {
			end = l.end
		}
	}
	total, done, next := len(s.loads), 0, 0
	step := max(total/500, 1)
	testbeds := replayTestbeds{fixed: s.testbeds, auto: s.auto, begin: s.begin, sizes: s.sizes}
	for _, ev := range evs {
		l := s.loads[ev.load]
		switch ev.kind {
		case evBench:
			eta.BenchOpened(l.group, ev.build)
			continue
		case evStart:
			eta.Observe(event.Load{ID: int64(ev.load), Bench: l.group, Cond: l.cond, Proto: l.proto, ModelledMs: l.modelledMs, Serial: l.serial, Retry: l.retry, Started: ev.at})
			testbeds.add(ev.at, 1)
			continue
		}
		testbeds.add(ev.at, -1)
		eta.Observe(event.Load{ID: int64(ev.load), Bench: l.group, Cond: l.cond, Proto: l.proto, Retry: l.retry, Started: l.start, End: true, Took: l.end.Sub(l.start), Failed: l.failed})
		done++
		share := float64(done) / float64(total)
		if ev.at.Sub(begin) > (end.Sub(begin))*9/10 && next >= len(replayShares) {
			break
		}
		atShare := next < len(replayShares) && share >= replayShares[next]
		if done%step != 0 && !atShare {
			continue // every load would be slow and say no more
		}
		truth := end.Sub(ev.at)
		got, ok := eta.TimeLeft(ev.at, testbeds.at(ev.at))
		e := math.Inf(1)
		if ok && truth > 0 {
			e = float64(got)/float64(truth) - 1
		}
		if share >= 0.10 && ev.at.Sub(begin) <= end.Sub(begin)*9/10 {
			worst = math.Max(worst, math.Abs(e))
		}
		for next < len(replayShares) && share >= replayShares[next] {
			points = append(points, replayPoint{share: replayShares[next], err: e, got: got, truth: truth, elapsed: ev.at.Sub(begin), ok: ok})
			next++
		}
	}
	return points, worst
}

// sizeChanges reads the sizes an automatic session went through, with
// when, from its stored trace ("auto 9 -> 7 (at 31s: ...) -> 6 (at
// 2m5s: ...)"); nil for a trace stored without times (before they were).
func sizeChanges(trace string) []sizeChange {
	first := regexp.MustCompile(`^auto (\d+)`).FindStringSubmatch(trace)
	if first == nil {
		return nil
	}
	n, _ := strconv.Atoi(first[1])
	out := []sizeChange{{0, n}}
	for _, m := range regexp.MustCompile(`-> (\d+) \(at ([0-9hms.]+): `).FindAllStringSubmatch(trace, -1) {
		n, _ := strconv.Atoi(m[1])
		d, err := time.ParseDuration(m[2])
		if err != nil {
			return nil
		}
		out = append(out, sizeChange{d, n})
	}
	if len(out) == 1 && strings.Contains(trace, "->") {
		return nil // changes without times
	}
	return out
}

type sizeChange struct {
	after time.Duration // from the session's start
	size  int
}

// replayTestbeds is the testbeds' size the runner would have told the
// ETA: -j; for a session sized automatically, the size its stored trace
// says it had then, or, for a trace stored without times, the most loads
// running at once in the last minute.
type replayTestbeds struct {
	fixed   int
	auto    bool
	begin   time.Time
	sizes   []sizeChange
	running int
	peaks   []replayPeak
}

type replayPeak struct {
	at time.Time
	n  int
}

func (r *replayTestbeds) add(at time.Time, d int) {
	r.running += d
	r.peaks = append(r.peaks, replayPeak{at, r.running})
}

func (r *replayTestbeds) at(now time.Time) int {
	if !r.auto {
		return r.fixed
	}
	if len(r.sizes) > 0 {
		n := r.sizes[0].size
		for _, c := range r.sizes {
			if now.Sub(r.begin) >= c.after {
				n = c.size
			}
		}
		return n
	}
	n := 1
	for i := len(r.peaks) - 1; i >= 0 && now.Sub(r.peaks[i].at) < time.Minute; i-- {
		n = max(n, r.peaks[i].n)
	}
	return n
}

// replayEstimator is what the replay asks of an ETA (Model; the
// estimator before it, for the comparison in BENCHMARKS.md).
type replayEstimator interface {
	BenchOpened(key string, d time.Duration)
	Observe(ev event.Load)
	TimeLeft(now time.Time, testbeds int) (time.Duration, bool)
}

// planReplay plans a session's loads as the runner plans them: the
// benches in the order they started, each with its first attempts.
func planReplay(s replaySession) *Model {
	type bench struct {
		serial bool
		conds  map[string]bool
		loads  []Load
	}
	var order []string
	benches := map[string]*bench{}
	for _, l := range s.loads {
		b := benches[l.group]
		if b == nil {
			b = &bench{serial: l.serial, conds: map[string]bool{}}
			benches[l.group] = b
			order = append(order, l.group)
		}
		b.conds[l.cond] = true
		if !l.retry {
			b.loads = append(b.loads, Load{l.proto, l.modelledMs})
		}
	}
	eta := newETA()
	for _, k := range order {
		b := benches[k]
		eta.PlanBench(k, b.serial, len(b.conds), b.loads)
	}
	return &eta
}

// TestSizeChangesReadTheStoredTrace: the replay follows an automatic
// session's size by the times its trace stores; a trace without times
// (stored before they were) gives none, and the replay falls back.
func TestSizeChangesReadTheStoredTrace(t *testing.T) {
	got := sizeChanges("auto 9 -> 7 (at 31s: 2 of 29 loads late) -> 6 (at 2m5s: 18 of 27 loads late, PLT shift +4.1%)")
	want := []sizeChange{{0, 9}, {31 * time.Second, 7}, {125 * time.Second, 6}}
	if !slices.Equal(got, want) {
		t.Fatalf("sizeChanges = %v, want %v", got, want)
	}
	r := replayTestbeds{auto: true, begin: time.Unix(0, 0), sizes: got}
	for at, n := range map[time.Duration]int{0: 9, 30 * time.Second: 9, 31 * time.Second: 7, time.Hour: 6} {
		if size := r.at(time.Unix(0, 0).Add(at)); size != n {
			t.Errorf("size at %s = %d, want %d", at, size, n)
		}
	}
	if old := sizeChanges("auto 9 -> 7 (2 of 29 loads late)"); old != nil {
		t.Errorf("a trace without times gave %v", old)
	}
}
