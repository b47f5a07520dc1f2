package study

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/study/eta"
	"github.com/spdylab/spdylab/study/event"
)

// progress shows how far a run is: a redrawn bar with ETA on a terminal,
// a plain line every 30 seconds otherwise (logs, CI).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	counts   event.Counts // the runner's, as of the last load that ended
	eta      *eta.Model
	start    time.Time
	lastLine time.Time
	// testbeds is the number of testbeds now and, when sized
	// automatically, how it was chosen ("auto: link-bound, 0.2% late").
	testbeds int
	jobsNote string
	auto     bool // `--runs auto`: total is what is planned so far (progress_auto.go)
}

func newProgress(w io.Writer, tty bool, total int, model *eta.Model, testbeds int) *progress {
	p := &progress{w: w, tty: tty, total: total, eta: model, start: time.Now(), testbeds: testbeds}
	p.lastLine = p.start
	if w != nil && !tty {
		fmt.Fprintf(w, "spdylab: %d probes to run\n", total)
	}
	return p
}

// observe takes one of the runner's load events with the runner's counts
// after it: the ETA learns from every one, and a load that ended moves the
// display (its probes are counts.Probes; a probe loaded again is not done
// yet, while the failures count attempts).
func (p *progress) observe(ev event.Load, counts event.Counts) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.Observe(ev)
	if !ev.End {
		return
	}
	p.counts = counts
	if p.w == nil {
		return
	}
	now := time.Now()
	switch {
	case p.tty:
		p.draw(now)
	case now.Sub(p.lastLine) >= 30*time.Second || p.counts.Probes == p.total && !p.auto:
		p.lastLine = now
		fmt.Fprintf(p.w, "spdylab: %d/%s probes (%d failed), %s elapsed, %s left%s\n", p.counts.Probes, p.totalText(), p.counts.Failed, round(now.Sub(p.start)), p.leftText(now), p.testbedsNote())
	}
}

// benchOpened counts a testbed of bench key built and checked in d.
func (p *progress) benchOpened(key string, d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.BenchOpened(key, d)
}

// benchClosed counts a testbed closed in d.
func (p *progress) benchClosed(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.BenchClosed(d)
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
	if d, ok := p.eta.Left(now, p.testbeds, p.counts, p.total, p.start); ok {
		return round(d).String()
	}
	return "?"
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

func (p *progress) draw(now time.Time) {
	const width = 30
	fill := width * p.counts.Probes / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%s  %d failed  %s elapsed  ETA %s%s\033[K",
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.counts.Probes, p.totalText(), p.counts.Failed, round(now.Sub(p.start)), p.leftText(now), p.testbedsNote())
}

func (p *progress) finish() {
	if p == nil || p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}
