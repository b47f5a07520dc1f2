package study

import (
	"fmt"
	"time"

	"github.com/spdylab/spdylab/study/eta"
)

// setAuto marks a run with `--runs auto`: its total grows as benches add
// runs, so the display says it is a floor.
func (p *progress) setAuto() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.auto = true
}

// grew counts a run `--runs auto` added to bench key: its loads, for the
// total and the ETA (which stays an estimate of what is planned so far:
// how many more runs a bench will need is not known until its loads say
// so).
func (p *progress) grew(key string, loads []eta.Load) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += len(loads)
	p.eta.Grow(key, loads)
}

// totalText is the total of probes, "160", or "≥160 (runs auto)" while
// benches may still add runs.
func (p *progress) totalText() string {
	if p.auto {
		return fmt.Sprintf("≥%d (runs auto)", p.total)
	}
	return fmt.Sprint(p.total)
}

// leftText is the time left; with `--runs auto` a floor, as the total is.
func (p *progress) leftText(now time.Time) string {
	if p.auto {
		return "≥" + p.left(now)
	}
	return p.left(now)
}
