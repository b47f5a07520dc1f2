package eta

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A timeline with a known answer: two testbeds, four one-load benches
// whose loads take twice their model, back to back. When the first two
// are done (at 2 s), the other two run side by side: 2 s left.
func TestETAReplayKnownTimeline(t *testing.T) {
	begin := time.Unix(1000, 0)
	s := replaySession{name: "known", begin: begin, testbeds: 2}
	for i := 0; i < 4; i++ {
		start := begin.Add(time.Duration(i/2) * 2 * time.Second)
		g := fmt.Sprintf("bench%d", i)
		s.loads = append(s.loads, replayLoad{start: start, end: start.Add(2 * time.Second), group: g, cond: g, proto: "https", modelledMs: 1000})
	}
	points, _ := replayETA(s, planReplay(s))
	// 50% is the second load done: the estimate there must be exact.
	var half *replayPoint
	for i := range points {
		if points[i].share == 0.50 {
			half = &points[i]
		}
	}
	if half == nil || !half.ok {
		t.Fatalf("no estimate at half the loads: %+v", points)
	}
	if half.truth != 2*time.Second || half.got != 2*time.Second {
		t.Errorf("at half the loads: estimate %s, truth %s; want both 2s", half.got, half.truth)
	}
}

func etaDone(e *Model, id int64, key string, l Load, start time.Time, took time.Duration) {
	e.loadStarted(id, key, l, false, start)
	e.loadDone(id, took)
}

// Each protocol's loads are scaled by their own measured ratio: the SPDY
// loads left take 3x their model because the SPDY load done did, however
// fast the HTTPS loads were (one ratio for all gave 2x).
func TestETAScalesEachProtocolByItsOwnLoads(t *testing.T) {
	e := newETA()
	now := time.Now()
	e.PlanBench("a", false, 2, []Load{{"https", 1000}, {"spdy/3.1", 1000}, {"https", 1000}, {"spdy/3.1", 1000}})
	etaDone(&e, 1, "a", Load{"https", 1000}, now, time.Second)
	etaDone(&e, 2, "a", Load{"spdy/3.1", 1000}, now, 3*time.Second)
	got, ok := e.TimeLeft(now, 1)
	if !ok {
		t.Fatal("no estimate after two loads")
	}
	// https 1 s (its own 1x, leaning on all loads' 2x: prior 2 loads
	// against its 1 load) and spdy 3 s (likewise toward 2x).
	wantHTTPS := (1*1.0 + 2*2.0) / 3
	wantSPDY := (1*3.0 + 2*2.0) / 3
	want := time.Duration((wantHTTPS + wantSPDY) * float64(time.Second))
	if d := got - want; d > time.Millisecond || d < -time.Millisecond {
		t.Errorf("time left %s, want %s (each protocol's own ratio, leaning on all loads')", got, want)
	}
}

// A load running longer than its class's estimate counts as if it ended
// now: the loads left are scaled by at least what it has taken so far.
func TestETACountsALongRunningLoad(t *testing.T) {
	e := newETA()
	start := time.Now()
	loads := slices.Repeat([]Load{{"https", 1000}}, 6)
	e.PlanBench("a", false, 1, loads[:3])
	e.PlanBench("b", false, 1, loads[3:])
	etaDone(&e, 1, "a", loads[0], start, time.Second)
	before, _ := e.TimeLeft(start.Add(time.Second), 2)
	e.loadStarted(2, "b", loads[3], false, start.Add(time.Second))
	after, _ := e.TimeLeft(start.Add(11*time.Second), 2)
	if after <= before {
		t.Errorf("time left %s with a load running for 10 s of its 1 s model, want more than %s before it started", after, before)
	}
}

// The tail: one bench left with three runs cannot spread over four
// testbeds (it is shared only with minRunsToShare runs left), so the time
// left is its three runs one after the other, not a quarter of them.
func TestETATailDoesNotDivide(t *testing.T) {
	e := newETA()
	now := time.Now()
	e.PlanBench("done", false, 1, []Load{{"https", 1000}})
	e.PlanBench("last", false, 1, []Load{{"https", 1000}, {"https", 1000}, {"https", 1000}})
	e.BenchOpened("done", 0)
	etaDone(&e, 1, "done", Load{"https", 1000}, now, time.Second)
	got, _ := e.TimeLeft(now, 4)
	if got != 3*time.Second {
		t.Errorf("time left %s, want 3s (three 1 s runs of one bench)", got)
	}
	// With runs enough to share, the same work spreads: 8 runs over 4
	// testbeds (workers join while 4 runs are left to start).
	e = newETA()
	e.PlanBench("done", false, 1, []Load{{"https", 1000}})
	loads := slices.Repeat([]Load{{"https", 1000}}, 8)
	e.PlanBench("big", false, 1, loads)
	e.BenchOpened("done", 0)
	etaDone(&e, 1, "done", Load{"https", 1000}, now, time.Second)
	if got, _ := e.TimeLeft(now, 4); got != 2*time.Second {
		t.Errorf("time left %s, want 2s (8 runs of 1 s over 4 testbeds)", got)
	}
}

// A testbed costs its build and check and its closing: a bench not yet
// started pays the means of both before its loads (the closing is
// measured by the runner; before, the time left left it out).
func TestETAChargesATestbedsBuildAndClose(t *testing.T) {
	e := newETA()
	now := time.Unix(1000, 0)
	e.PlanBench("done", false, 1, []Load{{"https", 1000}})
	e.PlanBench("next", false, 1, []Load{{"https", 1000}})
	e.BenchOpened("done", time.Second)
	etaDone(&e, 1, "done", Load{"https", 1000}, now, time.Second)
	if got, _ := e.TimeLeft(now.Add(time.Second), 1); got != 2*time.Second {
		t.Errorf("time left %s before a close was measured, want 2s (a 1 s build, a 1 s load)", got)
	}
	e.BenchClosed(500 * time.Millisecond)
	if got, _ := e.TimeLeft(now.Add(time.Second), 1); got != 2500*time.Millisecond {
		t.Errorf("time left %s, want 2.5s (a 1 s build, a 0.5 s close, a 1 s load)", got)
	}
}

// The layout is the pick the ETA is given, not a copy of it: the same
// eight runs over four testbeds take 2 s when the pick shares a bench's
// runs and 8 s when it never does.
func TestETALaysOutByTheGivenPick(t *testing.T) {
	noShare := func(benches []Slot) (int, bool) {
		for i, b := range benches {
			if !b.Started || b.Workers == 0 && b.RunsLeft > 0 {
				return i, true
			}
		}
		return 0, false
	}
	now := time.Now()
	for _, tc := range []struct {
		name string
		pick Pick
		want time.Duration
	}{{"sharing", testPick, 2 * time.Second}, {"never sharing", noShare, 8 * time.Second}} {
		e := New(tc.pick)
		e.PlanBench("done", false, 1, []Load{{"https", 1000}})
		loads := slices.Repeat([]Load{{"https", 1000}}, 8)
		e.PlanBench("big", false, 1, loads)
		e.BenchOpened("done", 0)
		etaDone(e, 1, "done", Load{"https", 1000}, now, time.Second)
		if got, _ := e.TimeLeft(now, 4); got != tc.want {
			t.Errorf("%s: time left %s, want %s", tc.name, got, tc.want)
		}
	}
}
