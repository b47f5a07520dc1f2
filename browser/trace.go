package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// Chromium's renderer main thread during a load. A DevTools trace of the
// page's tab (Tracing.start on the tab's session, not the browser's: see
// start), of the devtools.timeline category only (the events DevTools' Performance panel
// draws: ParseHTML, EvaluateScript, FunctionCall, TimerFire, style and
// layout; not the disabled-by-default per-task events, which would
// multiply the trace) is streamed over the pipe as Tracing.dataCollected
// while the page loads. Each batch is reduced as it arrives: only complete
// tasks on threads named CrRendererMain are kept, and when the trace ends
// they are merged into the busy intervals the result stores
// (probe.Result.MainThread). The raw trace is never kept.

// traceCategories are the trace's categories, and nothing else.
var traceCategories = []string{"devtools.timeline"}

// traceEndTimeout bounds the wait for the trace's last batch after
// Tracing.end; a trace that does not finish leaves the load without
// main-thread intervals, not failed.
const traceEndTimeout = 10 * time.Second

// traceEvent is one trace event as Chromium writes it (ts and dur in µs of
// the same monotonic clock as the Network domain's timestamps).
type traceEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Args json.RawMessage `json:"args"`
}

// traceArgs are the arguments that name a task's script or document, and
// a thread_name metadata event's name.
type traceArgs struct {
	Name      string               `json:"name"`
	Data      struct{ URL string } `json:"data"`
	BeginData struct{ URL string } `json:"beginData"`
}

// task is one complete task on a thread (µs).
type task struct {
	start, end float64
	what, url  string
}

type threadKey struct{ pid, tid int }

// tracer collects one load's main-thread tasks from the trace's batches.
type tracer struct {
	mu      sync.Mutex
	names   map[threadKey]string
	tasks   map[threadKey][]task
	open    map[threadKey][]task // begun ("B"), not yet ended
	decoded error                // the first batch that did not decode
	done    chan struct{}        // closed by Tracing.tracingComplete
	ended   bool
	session string // the DevTools session traced: the page's tab
	// stopping: Tracing.end was sent, the last batches are on their way.
	stopping bool
	// startWait is how long navigation waited for Tracing.start.
	startWait time.Duration
}

func newTracer() *tracer {
	return &tracer{names: map[threadKey]string{}, tasks: map[threadKey][]task{},
		open: map[threadKey][]task{}, done: make(chan struct{})}
}

// start begins tracing the page's tab (session sid) before navigation.
//
// On the tab's session Chromium traces only the browser, the GPU process
// and the renderers of the tab's frames (it adds each new one as the page
// commits to it), and Tracing.start returns once those have started
// tracing. On the browser's session ("") it traces every process and
// waits for every one: the other renderers a fresh headless Chromium
// starts and retires in its first seconds (the new-tab page it preloads,
// spare renderers) then hold about every other Tracing.start for 10 s,
// and their main threads' tasks land among the page's (BENCHMARKS.md,
// "Chromium's main-thread trace").
func (t *tracer) start(ctx context.Context, c *cdpConn, sid string) error {
	t.session = sid
	return c.call(ctx, sid, "Tracing.start", map[string]any{
		"transferMode": "ReportEvents",
		"traceConfig":  map[string]any{"recordMode": "recordAsMuchAsPossible", "includedCategories": traceCategories},
	}, nil)
}

// stop asks Chromium to end the trace; its last batches follow (wait).
func (t *tracer) stop(ctx context.Context, c *cdpConn) error {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	return c.call(ctx, t.session, "Tracing.end", nil, nil)
}

// wait waits for the trace's last batch after stop.
func (t *tracer) wait(ctx context.Context) error {
	select {
	case <-t.done:
		return nil
	case <-time.After(traceEndTimeout):
		return fmt.Errorf("the trace did not complete within %v", traceEndTimeout)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// isEnded reports whether the trace is over (completed, or never started).
func (t *tracer) isEnded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// handle takes a Tracing event (the reader goroutine).
func (t *tracer) handle(ev cdpEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Method {
	case "Tracing.dataCollected":
		var batch struct {
			Value []traceEvent `json:"value"`
		}
		if err := json.Unmarshal(ev.Params, &batch); err != nil {
			if t.decoded == nil {
				t.decoded = fmt.Errorf("a trace batch does not decode: %v", err)
			}
			return
		}
		for i := range batch.Value {
			t.add(&batch.Value[i])
		}
	case "Tracing.tracingComplete":
		if !t.ended {
			t.ended = true
			close(t.done)
		}
	}
}

// add keeps what of one event the reduction needs.
func (t *tracer) add(e *traceEvent) {
	k := threadKey{e.Pid, e.Tid}
	var a traceArgs
	if len(e.Args) > 0 {
		json.Unmarshal(e.Args, &a) // a task without readable arguments still ran
	}
	url := a.Data.URL
	if url == "" {
		url = a.BeginData.URL
	}
	switch e.Ph {
	case "M":
		if e.Name == "thread_name" {
			t.names[k] = a.Name
		}
	case "X":
		if e.Dur > 0 {
			t.tasks[k] = append(t.tasks[k], task{e.Ts, e.Ts + e.Dur, e.Name, url})
		}
	case "B":
		t.open[k] = append(t.open[k], task{start: e.Ts, what: e.Name, url: url})
	case "E":
		st := t.open[k]
		if len(st) == 0 {
			return
		}
		b := st[len(st)-1]
		t.open[k] = st[:len(st)-1]
		if b.end = e.Ts; b.end > b.start {
			t.tasks[k] = append(t.tasks[k], b)
		}
	}
}

// tracedHook, when set (by tests), learns how many renderer processes
// each trace's main-thread tasks came from.
var tracedHook func(renderers int)

// renderers counts the processes whose main thread (CrRendererMain) ran
// a task in the trace.
func (t *tracer) renderers() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	pids := map[int]bool{}
	for k, ts := range t.tasks {
		if t.names[k] == "CrRendererMain" && len(ts) > 0 {
			pids[k.pid] = true
		}
	}
	return len(pids)
}

// busy is the renderer main threads' tasks merged into disjoint intervals,
// in ms since navStart (seconds on the trace's clock); nil without any.
func (t *tracer) busy(navStart float64) []probe.BusyInterval {
	t.mu.Lock()
	defer t.mu.Unlock()
	var all []task
	for k, ts := range t.tasks {
		if t.names[k] == "CrRendererMain" {
			all = append(all, ts...)
		}
	}
	return mergeTasks(all, navStart*1e6)
}

// mergeTasks merges overlapping tasks (a nested one inside its parent)
// into disjoint intervals, in ms since origin (µs). An interval is named
// by its first task, and by the first URL any of its tasks names.
func mergeTasks(all []task, origin float64) []probe.BusyInterval {
	sort.Slice(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].end > all[j].end
	})
	var out []probe.BusyInterval
	var cur task
	flush := func() {
		if cur.end > cur.start && cur.end > origin { // not the blank tab's before navigation
			out = append(out, probe.BusyInterval{StartMs: usToMs(cur.start - origin), EndMs: usToMs(cur.end - origin), What: cur.what, URL: cur.url})
		}
	}
	for i, x := range all {
		if i > 0 && x.start <= cur.end {
			cur.end = math.Max(cur.end, x.end)
			if cur.url == "" {
				cur.url = x.url
			}
			continue
		}
		if i > 0 {
			flush()
		}
		cur = x
	}
	if len(all) > 0 {
		flush()
	}
	return out
}

func usToMs(us float64) float64 { return math.Round(us) / 1000 }

// startTrace starts this view's trace of its tab (session sid) unless the
// options say not to or the view is not measured. Chromium starts it while
// the caller enables the tab's domains; started waits for it, and the
// caller navigates only then, so the trace sees the page from its start. A
// trace that does not start costs the load its intervals, not the load:
// the reason goes to the HAR's comment (mainThread).
func (s *session) startTrace(ctx context.Context, sid string) (started func()) {
	if !s.o.TraceMainThread || s.unmeasured {
		return func() {}
	}
	t := newTracer()
	s.trace.Store(t) // before any of its events can arrive
	errc := make(chan error, 1)
	go func() { errc <- t.start(ctx, s.conn, sid) }()
	return func() {
		begin := time.Now()
		if err := <-errc; err != nil {
			t.fail(fmt.Errorf("starting the main thread's trace: %w", err))
		}
		t.startWait = time.Since(begin)
	}
}

// fail ends the trace with err, the reason its load has no intervals.
func (t *tracer) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.decoded == nil {
		t.decoded = err
	}
	if !t.ended {
		t.ended = true
		close(t.done)
	}
}

// endTrace asks Chromium to end this view's trace once the page is done;
// awaitTrace then waits for its last batches, so that Chromium flushes
// them while the load's other counters are read.
func (s *session) endTrace(ctx context.Context) {
	t := s.trace.Load()
	if t == nil || t.isEnded() {
		return
	}
	if err := t.stop(ctx, s.conn); err != nil {
		t.fail(err)
	}
}

// awaitTrace waits for the trace endTrace ended; a trace that does not
// complete leaves the load without intervals and says so in the HAR's
// comment. A trace never ended (the load failed first) is left alone.
func (s *session) awaitTrace(ctx context.Context) {
	t := s.trace.Load()
	if t == nil || t.isEnded() {
		return
	}
	t.mu.Lock()
	stopping := t.stopping
	t.mu.Unlock()
	if !stopping {
		return
	}
	begin := time.Now()
	if err := t.wait(ctx); err != nil {
		t.fail(err)
	}
	if traceWaitHook != nil {
		traceWaitHook(t.startWait, time.Since(begin))
	}
}

// traceWaitHook, when set (by benchmarks), learns how long each traced
// load waited for its trace: for Tracing.start after the tab's domains
// were enabled, and for the last batches after TCP_INFO was read.
var traceWaitHook func(start, flush time.Duration)

// mainThread is the view's busy intervals on the HAR's clock (navStart:
// the navigation's CDP timestamp, seconds), and why there are none when
// the trace failed.
func (s *session) mainThread(navStart float64) ([]probe.BusyInterval, error) {
	t := s.trace.Load()
	if t == nil {
		return nil, nil
	}
	select {
	case <-t.done:
	default:
		return nil, fmt.Errorf("the main thread's trace did not complete")
	}
	t.mu.Lock()
	err := t.decoded
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if tracedHook != nil {
		tracedHook(t.renderers())
	}
	return t.busy(navStart), nil
}
