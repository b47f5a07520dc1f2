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
	nextLoad int64 // the ETA's id of the next load started
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

// loadStarted tells the ETA a load of bench key began at start (retry:
// an attempt the plan did not count) and returns the load's id for add.
func (p *progress) loadStarted(key string, l etaLoad, retry bool, start time.Time) int64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextLoad++
	p.eta.loadStarted(p.nextLoad, key, l, retry, start)
	return p.nextLoad
}

// add counts a finished load: its id from loadStarted, whether it failed,
// whether the probe is loaded again (then it is not done yet: the count
// is of probes, the failures of attempts) and how long it took.
func (p *progress) add(id int64, failed, again bool, took time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.loadDone(id, took)
	if p.w == nil {
		return
	}
	if !again {
		p.done++
	}
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

// benchOpened counts a testbed of bench key built and checked in d.
func (p *progress) benchOpened(key string, d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.benchOpened(key, d)
}

// benchClosed counts a testbed closed in d.
func (p *progress) benchClosed(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.benchClosed(d)
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
	if d, ok := p.eta.timeLeft(now, p.testbeds); ok {
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
