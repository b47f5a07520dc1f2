package study

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/spdylab/spdylab/report"
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

// schedule places the loads in time: the serial ones one after the other,
// then the parallel ones on testbeds that each take the next load in order
// (the runner's benches, longest first, shared once all have started).
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
	free := &timeHeap{}
	for i := 0; i < testbeds; i++ {
		heap.Push(free, t)
	}
	for _, b := range parallel {
		for i := range b {
			start := heap.Pop(free).(time.Duration)
			if b[i].firstOfSet {
				start += simBenchBuild
			}
			b[i].end = start + b[i].actual
			heap.Push(free, b[i].end)
			all = append(all, &b[i])
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].end < all[j].end })
	return all
}

type timeHeap []time.Duration

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// From the first tenth of the work on, the time left is within 20% of
// the simulated run's, where a rate over the work done so far (the
// estimate before) is far off: the serial browser benches and the longest
// loader benches come first.
func TestETAWithinAFifthFromTheFirstTenth(t *testing.T) {
	const testbeds = 8
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		serial, parallel := simRun(rng)
		loads := schedule(serial, parallel, testbeds)
		var eta etaModel
		eta.benchesLeft = len(serial) + len(parallel)
		var total float64
		for _, l := range loads {
			eta.plan(l.serial, l.modelled)
			total += l.modelled
		}
		end := loads[len(loads)-1].end
		var done float64
		var naiveOff bool
		worst, at := 0.0, ""
		for _, l := range loads {
			if l.firstOfSet {
				eta.benchOpened(true, simBenchBuild)
			}
			eta.loadDone(l.serial, l.modelled, l.actual)
			done += l.modelled
			if done < total/10 || done > 0.9*total {
				continue
			}
			truth := float64(end - l.end)
			got, ok := eta.timeLeft(testbeds)
			if !ok {
				t.Fatalf("seed %d: no estimate after %.0f%% of the work", seed, 100*done/total)
			}
			if e := math.Abs(float64(got)-truth) / truth; e > worst {
				worst = e
				at = fmt.Sprintf("at %.0f%% (serial %v): got %s, truth %s; k %.2f %.2f", 100*done/total, l.serial, got.Round(time.Second), time.Duration(truth).Round(time.Second), eta.actual[0]/eta.modelled[0], eta.actual[1]/eta.modelled[1])
			}
			naive := float64(l.end) * (total - done) / done
			naiveOff = naiveOff || math.Abs(naive-truth)/truth > 0.2
		}
		if worst > 0.2 {
			t.Errorf("seed %d: the time left was off by up to %.0f%% between 10%% and 90%% of the work, want at most 20%%", seed, 100*worst)
		}
		if !naiveOff {
			t.Errorf("seed %d: the simulated run does not reproduce the overestimate (the rate over the work done is within 20%%)", seed)
		}
		t.Logf("seed %d: run %s, worst error %.1f%% %s", seed, end.Round(time.Second), 100*worst, at)
	}
}

func TestLateLimitIsTheReports(t *testing.T) {
	if lateLimitMs != report.LateLimitMs {
		t.Errorf("the runner counts a load late above %v ms, the report above %v ms", lateLimitMs, report.LateLimitMs)
	}
}
