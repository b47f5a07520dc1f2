package study

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress shows how far a run is: a redrawn bar with ETA on a terminal,
// a plain line every 30 seconds otherwise (logs, CI).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	done     int
	failed   int
	eta      etaModel
	start    time.Time
	lastLine time.Time
	// testbeds is the number of testbeds now and, when sized
	// automatically, how it was chosen ("auto: link-bound, 0.2% late").
	testbeds int
	jobsNote string
	auto     bool // `--runs auto`: total is what is planned so far (progress_auto.go)
}

func newProgress(w io.Writer, tty bool, total int, eta etaModel, testbeds int) *progress {
	p := &progress{w: w, tty: tty, total: total, eta: eta, start: time.Now(), testbeds: testbeds}
	p.lastLine = p.start
	if w != nil && !tty {
		fmt.Fprintf(w, "spdylab: %d probes to run\n", total)
	}
	return p
}

// add counts a finished load: whether it failed, its modelled wall time
// (0 for a retry, which the plan did not count) and how long it took;
// serial tells a load that ran with no other testbed beside it.
func (p *progress) add(failed, serial bool, modelledMs float64, took time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.loadDone(serial, modelledMs, took)
	if p.w == nil {
		return
	}
	p.done++
	if failed {
		p.failed++
	}
	now := time.Now()
	switch {
	case p.tty:
		p.draw(now)
	case now.Sub(p.lastLine) >= 30*time.Second || p.done == p.total && !p.auto:
		p.lastLine = now
		fmt.Fprintf(p.w, "spdylab: %d/%s probes (%d failed), %s elapsed, %s left%s\n", p.done, p.totalText(), p.failed, round(now.Sub(p.start)), p.leftText(now), p.testbedsNote())
	}
}

// benchOpened counts a bench built and checked in d.
func (p *progress) benchOpened(first bool, d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.benchOpened(first, d)
}

// resized shows a change of the testbeds (and, on a plain output, says
// why at once: the periodic line only tells the state).
func (p *progress) resized(n int, note, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.testbeds
	p.testbeds, p.jobsNote = n, note
	if p.w != nil && !p.tty && why != "" && n != old {
		fmt.Fprintf(p.w, "spdylab: testbeds %d -> %d (%s)\n", old, n, why)
	}
}

func (p *progress) testbedsNote() string {
	if p.jobsNote == "" {
		return ""
	}
	return fmt.Sprintf(", testbeds %d (%s)", p.testbeds, p.jobsNote)
}

func (p *progress) left(now time.Time) string {
	if d, ok := p.eta.timeLeft(p.testbeds); ok {
		return round(d).String()
	}
	if p.done == 0 {
		return "?"
	}
	per := now.Sub(p.start) / time.Duration(p.done)
	return round(per * time.Duration(p.total-p.done)).String()
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

func (p *progress) draw(now time.Time) {
	const width = 30
	fill := width * p.done / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%s  %d failed  %s elapsed  ETA %s%s\033[K",
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.done, p.totalText(), p.failed, round(now.Sub(p.start)), p.leftText(now), p.testbedsNote())
}

func (p *progress) finish() {
	if p == nil || p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}

// etaModel estimates a run's time left from modelled work rather than
// counts: the runner starts the benches with the most modelled work first
// (and browser benches, which run alone, before all), so the first tenth
// of the loads holds far more than a tenth of the time and a count-based
// rate overestimates the rest (fidelity showed 2 h 35 min left of a run
// that took 1 h 32 min). Each load's modelled wall time (spec.ModelledWall)
// is scaled by how long the loads done so far took against their model,
// separately for loads that run alone (serially) and side by side (divided
// over the testbeds), plus the measured cost of building the benches still
// to build.
type etaModel struct {
	// left is the modelled ms still to load; actual and modelled sum the
	// loads done and loads counts them: index 0 for serial loads, 1 for
	// parallel ones.
	left, actual, modelled [2]float64
	loads                  [2]int
	benchesLeft            int // benches not yet built
	benchesBuilt           int
	benchTime              time.Duration // to build and check them
}

func kind(serial bool) int {
	if serial {
		return 0
	}
	return 1
}

func (e *etaModel) plan(serial bool, modelledMs float64) { e.left[kind(serial)] += modelledMs }

func (e *etaModel) loadDone(serial bool, modelledMs float64, took time.Duration) {
	k := kind(serial)
	e.left[k] = max(0, e.left[k]-modelledMs)
	e.actual[k] += float64(took) / float64(time.Millisecond)
	e.modelled[k] += modelledMs
	e.loads[k]++
}

// benchOpened counts a bench built in d; first is false for another
// testbed of a bench already built (sharing its runs: not in the plan).
func (e *etaModel) benchOpened(first bool, d time.Duration) {
	if first {
		e.benchesLeft = max(0, e.benchesLeft-1)
	}
	e.benchesBuilt++
	e.benchTime += d
}

// timeLeft is the estimate with testbeds running side by side; false
// before any load has told how the model compares with this machine.
func (e *etaModel) timeLeft(testbeds int) (time.Duration, bool) {
	n := float64(max(testbeds, 1))
	scale, ok := e.scales(2 * n)
	if !ok {
		return 0, false
	}
	ms := scale[0]*e.left[0] + scale[1]*e.left[1]/n
	if e.benchesBuilt > 0 {
		perBench := float64(e.benchTime) / float64(time.Millisecond) / float64(e.benchesBuilt)
		ms += perBench * float64(e.benchesLeft) / n
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// scales are the measured ratios of actual to modelled time, serial and
// parallel. A kind with few loads leans on the other kind's ratio, as if
// it had prior more loads with it: its first loads to finish are the
// quickest of those running (the slow ones are still running), and a
// handful of conditions say little about the rest (fidelity's first
// loader loads came after 640 browser loads). prior = two loads per
// testbed.
func (e *etaModel) scales(prior float64) (scale [2]float64, ok bool) {
	var own [2]float64
	for k := range own {
		if e.modelled[k] > 0 {
			own[k] = e.actual[k] / e.modelled[k]
		}
	}
	for k := range scale {
		o := 1 - k
		switch {
		case own[k] == 0 && own[o] == 0:
			return scale, false
		case own[o] == 0:
			scale[k] = own[k]
		case own[k] == 0:
			scale[k] = own[o]
		default:
			nk := float64(e.loads[k])
			scale[k] = (nk*own[k] + prior*own[o]) / (nk + prior)
		}
	}
	return scale, true
}
