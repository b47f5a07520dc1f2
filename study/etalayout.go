package study

import (
	"container/heap"
	"time"
)

// layOut is the time (ms) until the last testbed ends when the work left
// is run as the runner runs it (scheduler.pick), run by run: benches
// that run alone one after the other first; then each started bench
// keeps its testbed, a testbed with nothing left takes the next bench
// not started in the runner's order, and once all have started, a run of
// the bench with the most runs left if it has at least MinRunsToShare.
// Each testbed built pays the mean time to build, check and close one.
// Simulating runs rather than dividing the work keeps the tail: the last
// benches' runs cannot spread over more testbeds than they have runs.
func (e *etaModel) layOut(now time.Time, sc *etaScales, testbeds int) float64 {
	build := e.testbedMs()
	work := e.workLeft(now, sc)
	var serial float64
	var queue, all []*simBench // not started; all (to share)
	lanes := &laneHeap{}
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
		sb := &simBench{runs: runs, run: w / float64(runs)}
		all = append(all, sb)
		if b.started && lanes.Len() < testbeds {
			heap.Push(lanes, lane{bench: sb})
		} else {
			queue = append(queue, sb)
		}
	}
	for lanes.Len() < testbeds {
		heap.Push(lanes, lane{})
	}
	end, next := 0.0, 0
	for lanes.Len() > 0 {
		l := heap.Pop(lanes).(lane)
		if l.bench == nil || l.bench.runs == 0 {
			l.bench = nil
			if next < len(queue) {
				l.bench, next = queue[next], next+1
			} else {
				l.bench = mostRunsToShare(all)
			}
			if l.bench == nil {
				end = max(end, l.at)
				continue // this testbed is done
			}
			l.at += build
		}
		l.bench.runs--
		l.at += l.bench.run
		heap.Push(lanes, l)
	}
	return serial + end
}

// simBench is a bench in layOut: its runs left and one run's time.
type simBench struct {
	runs int
	run  float64
}

func mostRunsToShare(benches []*simBench) *simBench {
	var best *simBench
	for _, b := range benches {
		if b.runs >= MinRunsToShare && (best == nil || b.runs > best.runs) {
			best = b
		}
	}
	return best
}

// workLeft is each bench's scaled time left: its loads not done, less
// what its running loads have already taken (at most their estimate).
func (e *etaModel) workLeft(now time.Time, sc *etaScales) map[*etaBench]float64 {
	work := map[*etaBench]float64{}
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

// lane is a testbed in layOut: busy until at (ms from now) with bench.
type lane struct {
	at    float64
	bench *simBench
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
