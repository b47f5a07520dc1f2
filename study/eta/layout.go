package eta

import (
	"container/heap"
	"time"
)

// layOut is the time (ms) until the last testbed ends when the work left
// is run as the runner runs it, run by run: benches that run alone one
// after the other first; the others laid on the testbeds by the runner's
// own pick (e.pick), each started bench keeping its testbed. Each testbed
// built pays the mean time to build, check and close one. Simulating runs
// rather than dividing the work keeps the tail: the last benches' runs
// cannot spread over more testbeds than they have runs.
func (e *Model) layOut(now time.Time, sc *scaleSet, testbeds int) float64 {
	build := e.testbedMs()
	work := e.workLeft(now, sc)
	var serial float64
	var runMs []float64 // one run's time, per slot
	var slots []Slot
	for _, b := range e.benches {
		w := work[b]
		if w <= 0 {
			continue
		}
		if b.serial {
			serial += w
			if !b.started {
				serial += build
			}
			continue
		}
		runs := max((b.loads+b.perRun-1)/b.perRun, 1)
		runMs = append(runMs, w/float64(runs))
		slots = append(slots, Slot{Started: b.started, RunsLeft: runs})
	}
	lanes := &laneHeap{}
	for i := range slots {
		if slots[i].Started && lanes.Len() < testbeds {
			slots[i].Workers++
			heap.Push(lanes, lane{bench: i})
		}
	}
	for lanes.Len() < testbeds {
		heap.Push(lanes, lane{bench: -1})
	}
	end := 0.0
	for lanes.Len() > 0 {
		l := heap.Pop(lanes).(lane)
		if l.bench < 0 || slots[l.bench].RunsLeft == 0 {
			if l.bench >= 0 {
				slots[l.bench].Workers--
			}
			i, ok := e.pick(slots)
			if !ok || slots[i].RunsLeft == 0 {
				end = max(end, l.at)
				continue // this testbed is done
			}
			slots[i].Started = true
			slots[i].Workers++
			l.bench = i
			l.at += build
		}
		slots[l.bench].RunsLeft--
		l.at += runMs[l.bench]
		heap.Push(lanes, l)
	}
	return serial + end
}

// workLeft is each bench's scaled time left: its loads not done, less
// what its running loads have already taken (at most their estimate).
func (e *Model) workLeft(now time.Time, sc *scaleSet) map[*bench]float64 {
	work := map[*bench]float64{}
	for _, b := range e.benches {
		for c, ms := range b.left {
			work[b] += sc.of(c) * ms
		}
	}
	for _, r := range e.running {
		if r.ms <= 0 {
			continue
		}
		el := float64(now.Sub(r.start)) / float64(time.Millisecond)
		work[r.bench] -= min(el, sc.of(r.class)*r.ms)
	}
	return work
}

// lane is a testbed in layOut: busy until at (ms from now) with the
// bench at index bench (-1: none yet).
type lane struct {
	at    float64
	bench int
}

// laneHeap is the testbeds, the one free first on top.
type laneHeap []lane

func (h laneHeap) Len() int           { return len(h) }
func (h laneHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h laneHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *laneHeap) Push(x any)        { *h = append(*h, x.(lane)) }
func (h *laneHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
