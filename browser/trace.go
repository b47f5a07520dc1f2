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
// devtools.timeline category only (the events DevTools' Performance panel
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
}

func newTracer() *tracer {
	return &tracer{names: map[threadKey]string{}, tasks: map[threadKey][]task{},
		open: map[threadKey][]task{}, done: make(chan struct{})}
}

// start begins tracing the browser (every renderer) before navigation.
func (t *tracer) start(ctx context.Context, c *cdpConn) error {
	return c.call(ctx, "", "Tracing.start", map[string]any{
		"transferMode": "ReportEvents",
		"traceConfig":  map[string]any{"recordMode": "recordAsMuchAsPossible", "includedCategories": traceCategories},
	}, nil)
}

// end stops tracing and waits for its last batch.
func (t *tracer) end(ctx context.Context, c *cdpConn) error {
	if err := c.call(ctx, "", "Tracing.end", nil, nil); err != nil {
		return err
	}
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

// startTrace starts this view's trace unless the options say not to. A
// trace that does not start costs the load its intervals, not the load:
// the reason goes to the HAR's comment (mainThread).
func (s *session) startTrace(ctx context.Context) {
	if !s.o.TraceMainThread {
		return
	}
	t := newTracer()
	s.trace.Store(t) // before any of its events can arrive
	if err := t.start(ctx, s.conn); err != nil {
		t.mu.Lock()
		t.decoded = fmt.Errorf("starting the main thread's trace: %w", err)
		if !t.ended {
			t.ended = true
			close(t.done)
		}
		t.mu.Unlock()
	}
}

// endTrace ends this view's trace; a trace that fails to end leaves the
// load without intervals and says so in the HAR's comment.
func (s *session) endTrace(ctx context.Context) {
	t := s.trace.Load()
	if t == nil || t.isEnded() {
		return
	}
	if err := t.end(ctx, s.conn); err != nil {
		t.mu.Lock()
		if t.decoded == nil {
			t.decoded = err
		}
		t.mu.Unlock()
	}
}

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
	return t.busy(navStart), nil
}
