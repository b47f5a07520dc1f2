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
	mu     sync.Mutex
	w      io.Writer
	tty    bool
	total  int
	done   int
	failed int
	// work is the modelled duration of every planned probe and workDone
	// that of the finished ones: conditions differ by orders of magnitude
	// (a 64 kbit/s load vs a 20 Mbit/s one), so the ETA scales elapsed
	// time by modelled work, not by probe count.
	work, workDone float64
	start          time.Time
	lastLine       time.Time
}

func newProgress(w io.Writer, tty bool, total int, work float64) *progress {
	p := &progress{w: w, tty: tty, total: total, work: work, start: time.Now()}
	p.lastLine = p.start
	if w != nil && !tty {
		fmt.Fprintf(w, "spdylab: %d probes to run\n", total)
	}
	return p
}

func (p *progress) add(failed bool, work float64) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.workDone += work
	if failed {
		p.failed++
	}
	now := time.Now()
	switch {
	case p.tty:
		p.draw(now)
	case now.Sub(p.lastLine) >= 30*time.Second || p.done == p.total:
		p.lastLine = now
		fmt.Fprintf(p.w, "spdylab: %d/%d probes (%d failed), %s elapsed, %s left\n", p.done, p.total, p.failed, round(now.Sub(p.start)), p.eta(now))
	}
}

func (p *progress) eta(now time.Time) string {
	if p.done == 0 {
		return "?"
	}
	elapsed := now.Sub(p.start)
	if p.work > 0 && p.workDone > 0 {
		left := time.Duration(float64(elapsed) * (p.work - p.workDone) / p.workDone)
		return round(max(left, 0)).String()
	}
	per := elapsed / time.Duration(p.done)
	return round(per * time.Duration(p.total-p.done)).String()
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

func (p *progress) draw(now time.Time) {
	const width = 30
	fill := width * p.done / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d  %d failed  %s elapsed  ETA %s\033[K",
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.done, p.total, p.failed, round(now.Sub(p.start)), p.eta(now))
}

func (p *progress) finish() {
	if p == nil || p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}
