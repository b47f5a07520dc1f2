package eta

import "time"

// busyLog measures how much of the testbeds' time the recent past really
// spent loading: the loads' time within the window (a bench that runs
// alone occupies every testbed while it loads) over the window times the
// testbeds. The layout (layOut) assumes every testbed loads all the time
// but for its builds; a run whose testbeds also wait (a sizer that shrank
// below the testbeds it counts, stalls of a loaded machine, builds longer
// than the mean) does not, and the work left at the pace truly reached is
// then the longer, truer estimate.
type busyLog struct {
	spans []span    // finished loads, in the order they ended
	first time.Time // the first load's start
}

type span struct {
	start, end time.Time
	serial     bool
}

// busyWindow is how far back the pace is measured: long enough to hold
// many loads of every size, short enough to follow -j auto's changes.
const busyWindow = 2 * time.Minute

// add records a finished load.
func (b *busyLog) add(start, end time.Time, serial bool) {
	if b.first.IsZero() || start.Before(b.first) {
		b.first = start
	}
	b.spans = append(b.spans, span{start, end, serial})
	cut := 0 // drop what a window ending at the latest end cannot reach
	for cut < len(b.spans) && end.Sub(b.spans[cut].end) > busyWindow {
		cut++
	}
	b.spans = b.spans[cut:]
}

// share is the share of the testbeds' time spent loading over the window
// ending at now, running loads included; false while the window holds
// fewer than minLoads finished loads.
func (b *busyLog) share(now time.Time, running []span, testbeds, minLoads int) (float64, bool) {
	from := later(now.Add(-busyWindow), b.first)
	if b.first.IsZero() || !now.After(from) {
		return 0, false
	}
	var ms float64
	n := 0
	add := func(s span) {
		w := 1.0
		if s.serial {
			w = float64(testbeds)
		}
		ms += w * spanMs(later(s.start, from), s.end)
	}
	for _, s := range b.spans {
		if s.end.After(from) {
			add(s)
			n++
		}
	}
	if n < minLoads {
		return 0, false
	}
	for _, s := range running {
		s.end = now
		add(s)
	}
	return ms / (spanMs(from, now) * float64(testbeds)), true
}

func spanMs(a, b time.Time) float64 { return float64(b.Sub(a)) / float64(time.Millisecond) }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
