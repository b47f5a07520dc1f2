package eta

import (
	"math"
	"time"

	"github.com/spdylab/spdylab/study/event"
)

// Model estimates a run's time left from modelled work rather than
// counts: the runner starts the benches with the most modelled work first
// (and browser benches, which run alone, before all), so the first tenth
// of the loads holds far more than a tenth of the time and a count-based
// rate overestimates the rest (fidelity showed 2 h 35 min left of a run
// that took 1 h 32 min). Each load's modelled wall time
// (spec.ModelledWall) is scaled by how long comparable loads took against
// their model, and the runs left are laid on the testbeds as the runner
// lays them (layOut).
//
// Why each part (replayed on finished stores, replay_test.go, one scale
// for all loads divided over the testbeds missed the truth by 25-40% at a
// tenth of the loads; BENCHMARKS.md):
//
//   - The scale is measured per class of load: serial or not, protocol,
//     and size (a power of two of modelled seconds). The model's error
//     depends on both (study3-revisited: SCTP loads took 1.6-2x their
//     model where TCP's took 0.8-1.2x, and the SCTP benches ran last;
//     study6: a 30 s load 0.55x, a 2 s load of the same protocol 1.1x),
//     and longest-first order makes the loads done early no sample of the
//     loads left. A class with few loads leans on its protocol's nearest
//     measured size, then on its protocol, then on all loads, as if those
//     had prior more loads in it (prior: two loads per testbed).
//   - A load still running has taken at least its elapsed time: once that
//     passes its class's estimate, it counts as if done now (survivorship:
//     the first loads to finish are the quick ones).
//   - Retries are not in the plan but their time counts in their class's
//     actual time, so a run that times out loads expects more of them.
//   - The run's tail: when fewer benches than testbeds are left, the work
//     no longer divides over the testbeds; layOut follows the runner's
//     pick run by run instead, each testbed built paying the mean
//     measured build time.
//   - The pace (rate.go): the layout counts every testbed busy; when
//     the last two minutes kept fewer loading (-j auto's size above the
//     loads it lets run, a stalled machine), the work left at the pace
//     reached is the estimate if it is longer (in the -j auto runs
//     replayed, loads filled 30-80% of the testbeds' time).
type Model struct {
	pick    Pick
	benches []*bench
	byKey   map[string]*bench
	classes map[class]*sum
	running map[int64]runningLoad
	builds  int
	buildMs float64 // summed time to build and check the testbeds built
	closes  int
	closeMs float64 // summed time to close them (a testbed's cost too)
	busy    busyLog // side-by-side loads really running (rate.go)
}

// bench is one bench's planned loads still to finish.
type bench struct {
	serial  bool
	perRun  int               // loads in one run
	left    map[class]float64 // modelled ms not yet done, by class
	loads   int               // loads not yet done
	started bool              // a testbed has been built for it
}

// Load is one planned load: its protocol and modelled wall time (ms).
type Load struct {
	Proto string
	Ms    float64
}

// class groups loads whose model errs alike.
type class struct {
	serial bool
	proto  string
	size   int // floor(log2(modelled seconds)), from 1/4 s
}

func classOf(serial bool, l Load) class {
	return class{serial, l.Proto, int(math.Floor(math.Log2(math.Max(l.Ms, 250) / 1000)))}
}

// sum sums a class's finished loads.
type sum struct {
	actual, modelled float64 // ms
	loads            float64
}

type runningLoad struct {
	bench *bench
	class class
	ms    float64 // 0 for a retry
	start time.Time
}

// New is an ETA that lays the runs left out as pick hands them out: the
// runner's own choice of the bench a free testbed takes next.
func New(pick Pick) *Model {
	return &Model{pick: pick, byKey: map[string]*bench{}, classes: map[class]*sum{}, running: map[int64]runningLoad{}}
}

// Observe takes one of the runner's load events: a load started or
// ended.
func (e *Model) Observe(ev event.Load) {
	if !ev.End {
		e.loadStarted(ev.ID, ev.Bench, Load{ev.Proto, ev.ModelledMs}, ev.Retry, ev.Started)
		return
	}
	e.loadDone(ev.ID, ev.Took)
}

// planBench adds a bench in the runner's order with its pending loads.
func (e *Model) PlanBench(key string, serial bool, perRun int, loads []Load) {
	b := &bench{serial: serial, perRun: max(perRun, 1), left: map[class]float64{}}
	e.benches = append(e.benches, b)
	e.byKey[key] = b
	e.Grow(key, loads)
}

// grow adds loads to a planned bench (`--runs auto` added a run).
func (e *Model) Grow(key string, loads []Load) {
	b := e.byKey[key]
	if b == nil {
		return
	}
	for _, l := range loads {
		b.left[classOf(b.serial, l)] += l.Ms
		b.loads++
	}
}

// benchOpened counts a testbed built and checked in d; first is false for
// another testbed of a bench already built (sharing its runs).
func (e *Model) BenchOpened(key string, d time.Duration) {
	if b := e.byKey[key]; b != nil {
		b.started = true
	}
	e.builds++
	e.buildMs += float64(d) / float64(time.Millisecond)
}

// benchClosed counts a testbed closed in d: its namespaces and servers
// torn down, time its worker spends before it can build the next.
func (e *Model) BenchClosed(d time.Duration) {
	e.closes++
	e.closeMs += float64(d) / float64(time.Millisecond)
}

// testbedMs is what building, checking and closing one testbed costs, on
// the mean of those measured.
func (e *Model) testbedMs() float64 {
	var ms float64
	if e.builds > 0 {
		ms = e.buildMs / float64(e.builds)
	}
	if e.closes > 0 {
		ms += e.closeMs / float64(e.closes)
	}
	return ms
}

// loadStarted records a load of bench key starting at start; retry marks
// an attempt the plan did not count.
func (e *Model) loadStarted(id int64, key string, l Load, retry bool, start time.Time) {
	b := e.byKey[key]
	if b == nil {
		return
	}
	r := runningLoad{bench: b, class: classOf(b.serial, l), ms: l.Ms, start: start}
	if retry {
		r.ms = 0
	}
	e.running[id] = r
}

// loadDone records a load that took took.
func (e *Model) loadDone(id int64, took time.Duration) {
	r, ok := e.running[id]
	if !ok {
		return
	}
	delete(e.running, id)
	e.busy.add(r.start, r.start.Add(took), r.bench.serial)
	if r.ms > 0 {
		r.bench.left[r.class] = max(0, r.bench.left[r.class]-r.ms)
		r.bench.loads = max(0, r.bench.loads-1)
	}
	s := e.classes[r.class]
	if s == nil {
		s = &sum{}
		e.classes[r.class] = s
	}
	s.actual += float64(took) / float64(time.Millisecond)
	s.modelled += r.ms
	s.loads++
}

// timeLeft is the estimate at now with testbeds running side by side;
// false before any load has told how the model compares with this machine.
func (e *Model) TimeLeft(now time.Time, testbeds int) (time.Duration, bool) {
	sc, ok := e.scales(now, 2*float64(max(testbeds, 1)))
	if !ok {
		return 0, false
	}
	tb := max(testbeds, 1)
	ms := e.layOut(now, sc, tb)
	if u, ok := e.busy.share(now, e.runningSpans(), tb, 2*tb); ok && u > 0 {
		serial, parallel := e.workSplit(now, sc)
		ms = max(ms, (serial+parallel/float64(tb))/min(u, 1))
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// runningSpans are the loads running now, as spans from their start.
func (e *Model) runningSpans() []span {
	var out []span
	for _, r := range e.running {
		out = append(out, span{start: r.start, serial: r.bench.serial})
	}
	return out
}

// workSplit is the scaled work left of the benches that run alone and of
// those that run side by side.
func (e *Model) workSplit(now time.Time, sc *scaleSet) (serial, parallel float64) {
	for b, w := range e.workLeft(now, sc) {
		if b.serial {
			serial += max(w, 0)
		} else {
			parallel += max(w, 0)
		}
	}
	return serial, parallel
}

// Left is the time left to show at now with testbeds running side by
// side: TimeLeft once loads have measured the model; before that, the
// mean time per probe done since start over the probes of total not done
// (c: the runner's counts); false before any probe is done.
func (e *Model) Left(now time.Time, testbeds int, c event.Counts, total int, start time.Time) (time.Duration, bool) {
	if d, ok := e.TimeLeft(now, testbeds); ok {
		return d, true
	}
	if c.Probes == 0 {
		return 0, false
	}
	per := now.Sub(start) / time.Duration(c.Probes)
	return per * time.Duration(total-c.Probes), true
}
