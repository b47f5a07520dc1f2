package eta

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"
)

// simLoad is one load of a simulated run: its modelled wall time (ms), how
// long it really takes, and its place in time once scheduled.
type simLoad struct {
	modelled   float64
	actual     time.Duration
	serial     bool
	firstOfSet bool // the first load of its bench: the bench is built before it
	end        time.Duration
}

// simRun builds a run like fidelity's: browser benches that run alone
// first, then loader benches longest first, whose modelled load times span
// two orders of magnitude. Real times are the model's times a factor
// common to the run (the machine: 1.5), one per bench (the model's error
// on its condition: ±15%) and one per load (±20%).
func simRun(rng *rand.Rand) (serial, parallel [][]simLoad) {
	bench := func(modelled float64, isSerial bool) []simLoad {
		factor := 1.5 * (0.85 + 0.3*rng.Float64())
		loads := make([]simLoad, 40)
		for i := range loads {
			noise := 0.8 + 0.4*rng.Float64()
			loads[i] = simLoad{modelled: modelled, actual: time.Duration(modelled * factor * noise * float64(time.Millisecond)), serial: isSerial, firstOfSet: i == 0}
		}
		return loads
	}
	for i := 0; i < 12; i++ {
		serial = append(serial, bench(3000, true))
	}
	for i := 0; i < 40; i++ {
		parallel = append(parallel, bench(300*math.Pow(200, rng.Float64()), false)) // 0.3 to 60 s
	}
	sort.Slice(parallel, func(i, j int) bool { return parallel[i][0].modelled > parallel[j][0].modelled })
	return serial, parallel
}

const simBenchBuild = 3 * time.Second

// minRunsToShare and testPick are the pick the runner gives its ETA
// (study.MinRunsToShare, the runner's scheduler): a started bench left
// without a testbed first, then the next bench not started, then, once
// all have started, the bench with the most runs left if it has at least
// minRunsToShare. The simulated runs below are scheduled by that rule.
const minRunsToShare = 4

func testPick(benches []Slot) (int, bool) {
	for i, b := range benches {
		if b.Started && b.Workers == 0 && b.RunsLeft > 0 {
			return i, true
		}
	}
	for i, b := range benches {
		if !b.Started {
			return i, true
		}
	}
	best, most := -1, minRunsToShare-1
	for i, b := range benches {
		if b.RunsLeft > most {
			best, most = i, b.RunsLeft
		}
	}
	return best, best >= 0
}

// newETA is an ETA laying runs out by testPick.
func newETA() Model { return *New(testPick) }

// schedule places the loads in time as the runner does: the serial
// benches one after the other, then the parallel ones in order on the
// testbed free first, each bench's loads back to back on its testbed, and
// once all have started, a free testbed builds a share of the bench with
// the most loads still to start (at least minRunsToShare; one load per
// run here) and takes its loads one at a time.
func schedule(serial, parallel [][]simLoad, testbeds int) []*simLoad {
	var all []*simLoad
	var t time.Duration
	for _, b := range serial {
		t += simBenchBuild
		for i := range b {
			t += b[i].actual
			b[i].end = t
			all = append(all, &b[i])
		}
	}
	next := make([]int, len(parallel)) // each bench's next load to start
	free := &laneTimes{}
	for i := 0; i < testbeds; i++ {
		heap.Push(free, simLane{at: t, bench: -1})
	}
	started := 0
	for free.Len() > 0 {
		lane := heap.Pop(free).(simLane)
		b := lane.bench
		if b < 0 || next[b] == len(parallel[b]) {
			b = -1
			if started < len(parallel) {
				b, started = started, started+1
			} else if k := mostLoadsLeft(parallel, next); k >= 0 {
				b = k
			}
			if b < 0 {
				continue // nothing left for this testbed
			}
			lane.at += simBenchBuild
		}
		l := &parallel[b][next[b]]
		next[b]++
		l.end = lane.at + l.actual
		all = append(all, l)
		heap.Push(free, simLane{at: l.end, bench: b})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].end < all[j].end })
	return all
}

// mostLoadsLeft is the bench with the most loads still to start, if it
// has at least minRunsToShare; -1 otherwise.
func mostLoadsLeft(benches [][]simLoad, next []int) int {
	best, most := -1, minRunsToShare-1
	for i, b := range benches {
		if n := len(b) - next[i]; n > most {
			best, most = i, n
		}
	}
	return best
}

// simLane is a testbed: when it is free and the bench it holds.
type simLane struct {
	at    time.Duration
	bench int
}

type laneTimes []simLane

func (h laneTimes) Len() int           { return len(h) }
func (h laneTimes) Less(i, j int) bool { return h[i].at < h[j].at }
func (h laneTimes) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *laneTimes) Push(x any)        { *h = append(*h, x.(simLane)) }
func (h *laneTimes) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// simSession is a simulated run as the replay reads a store: each load's
// start and end from the schedule, one condition per bench.
func simSession(loads []*simLoad, serial, parallel [][]simLoad, testbeds int) replaySession {
	bench := map[*simLoad]string{}
	for i, b := range serial {
		for k := range b {
			bench[&b[k]] = fmt.Sprintf("serial%d", i)
		}
	}
	for i, b := range parallel {
		for k := range b {
			bench[&b[k]] = fmt.Sprintf("parallel%d", i)
		}
	}
	begin := time.Unix(0, 0)
	s := replaySession{name: "sim", begin: begin, testbeds: testbeds}
	for _, l := range loads {
		g := bench[l]
		s.loads = append(s.loads, replayLoad{start: begin.Add(l.end - l.actual), end: begin.Add(l.end), group: g, cond: g, proto: "https", serial: l.serial, modelledMs: l.modelled})
	}
	sort.SliceStable(s.loads, func(i, j int) bool { return s.loads[i].start.Before(s.loads[j].start) })
	return s
}

// From the first tenth of the loads on (until the run's last tenth of
// time), the time left is within 20% of the simulated run's, where a rate
// over the work done so far (the estimate before the modelled work) is
// far off: the serial browser benches and the longest loader benches come
// first.
func TestETAWithinAFifthFromTheFirstTenth(t *testing.T) {
	const testbeds = 8
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		serial, parallel := simRun(rng)
		loads := schedule(serial, parallel, testbeds)
		s := simSession(loads, serial, parallel, testbeds)
		points, worst := replayETA(s, planReplay(s))
		if worst > 0.2 {
			t.Errorf("seed %d: the time left was off by up to %.0f%% from 10%% of the loads to 90%% of the run's time, want at most 20%%", seed, 100*worst)
		}
		if naive := naiveWorst(loads); naive <= 0.2 {
			t.Errorf("seed %d: the simulated run does not reproduce the overestimate (the rate over the work done is within 20%%)", seed)
		}
		t.Logf("seed %d: run %s, worst error %.1f%%, at 10%% %+.1f%%", seed, loads[len(loads)-1].end.Round(time.Second), 100*worst, 100*points[1].err)
	}
}

// naiveWorst is the worst error between 10% and 90% of the work of a
// rate over the modelled work done so far.
func naiveWorst(loads []*simLoad) float64 {
	var total, done, worst float64
	for _, l := range loads {
		total += l.modelled
	}
	end := float64(loads[len(loads)-1].end)
	for _, l := range loads {
		done += l.modelled
		if done < total/10 || done > 0.9*total {
			continue
		}
		truth := end - float64(l.end)
		naive := float64(l.end) * (total - done) / done
		worst = math.Max(worst, math.Abs(naive-truth)/truth)
	}
	return worst
}
