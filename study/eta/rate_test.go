package eta

import (
	"slices"
	"testing"
	"time"
)

// Four testbeds of which only two load (the others wait): the pace says
// half the testbeds' time is spent loading, and the time left doubles
// over the layout's, which counts all four busy.
func TestETAPaceOfHalfTheTestbeds(t *testing.T) {
	e := newETA()
	begin := time.Unix(1000, 0)
	var left []Load
	for i := 0; i < 40; i++ {
		left = append(left, Load{"https", 1000})
	}
	e.PlanBench("a", false, 1, left[:20])
	e.PlanBench("b", false, 1, left[20:])
	e.BenchOpened("a", 0)
	e.BenchOpened("b", 0)
	// 2 loads at a time, 1 s each, for 10 s: 20 loads done, 20 left.
	id := int64(0)
	for s := 0; s < 10; s++ {
		for _, key := range []string{"a", "b"} {
			id++
			etaDone(&e, id, key, Load{"https", 1000}, begin.Add(time.Duration(s)*time.Second), time.Second)
		}
	}
	now := begin.Add(10 * time.Second)
	got, ok := e.TimeLeft(now, 4)
	if !ok {
		t.Fatal("no estimate")
	}
	// 20 s of work at the pace of 2 loads at a time: 10 s (the layout
	// alone: 20 s over 4 testbeds, 5 s).
	if got != 10*time.Second {
		t.Errorf("time left %s, want 10s (20 s of loads at the pace of 2 testbeds)", got)
	}
}

// All testbeds busy: the pace says nothing the layout does not, and the
// layout's tail stays (TestETATailDoesNotDivide).
func TestETAPaceOfBusyTestbedsKeepsTheLayout(t *testing.T) {
	e := newETA()
	begin := time.Unix(1000, 0)
	loads := slices.Repeat([]Load{{"https", 1000}}, 16)
	e.PlanBench("a", false, 1, loads[:8])
	e.PlanBench("b", false, 1, loads[8:])
	e.BenchOpened("a", 0)
	e.BenchOpened("b", 0)
	for s := 0; s < 4; s++ {
		etaDone(&e, int64(2*s+1), "a", loads[0], begin.Add(time.Duration(s)*time.Second), time.Second)
		etaDone(&e, int64(2*s+2), "b", loads[0], begin.Add(time.Duration(s)*time.Second), time.Second)
	}
	if got, _ := e.TimeLeft(begin.Add(4*time.Second), 2); got != 4*time.Second {
		t.Errorf("time left %s, want 4s (4 runs left on each of 2 busy testbeds)", got)
	}
}

// A load of a bench that runs alone occupies every testbed: a run of
// browser benches one after the other is not a run of idle testbeds.
func TestETAPaceCountsALoadAloneAsEveryTestbed(t *testing.T) {
	var b busyLog
	begin := time.Unix(1000, 0)
	for s := 0; s < 10; s++ {
		b.add(begin.Add(time.Duration(s)*time.Second), begin.Add(time.Duration(s+1)*time.Second), true)
	}
	u, ok := b.share(begin.Add(10*time.Second), nil, 8, 4)
	if !ok || u != 1 {
		t.Errorf("share %.2f (%v), want 1: every second held a load that runs alone", u, ok)
	}
	if _, ok := b.share(begin.Add(10*time.Second), nil, 8, 11); ok {
		t.Error("a share from 10 loads where 11 were asked for")
	}
}

// The window forgets: loads before it do not count, running loads do.
func TestETAPaceWindow(t *testing.T) {
	var b busyLog
	begin := time.Unix(1000, 0)
	b.add(begin, begin.Add(time.Second), false) // long before the window
	at := begin.Add(time.Hour)
	for s := 0; s < 4; s++ {
		st := at.Add(-busyWindow + time.Duration(s)*busyWindow/4)
		b.add(st, st.Add(busyWindow/4), false)
	}
	running := []span{{start: at.Add(-busyWindow / 2)}}
	u, ok := b.share(at, running, 2, 4)
	// One testbed busy all the window, the other half of it: 0.75.
	if !ok || u < 0.749 || u > 0.751 {
		t.Errorf("share %.3f (%v), want 0.75", u, ok)
	}
}
