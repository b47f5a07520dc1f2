package loader

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/spdylab/spdylab/internal/ctxtime"
)

// RendererCosts are the time a browser's own processes spend between the
// network and the page, which a loader that reacts at once does not
// spend. They are CPU time, so their size depends on the machine and its
// load: calibrate them from Chromium's HARs on the machine that runs the
// study (the fidelity report prints what this run's Chromium loads show,
// measured on the fidelity study's calibration cells) and judge them on
// other cells (its validation set). The chromium-modern profile's were
// fitted on probe.ChromiumModernRendererFit.
// Zero values spend none (Chrome 16's profile, the seed studies').
type RendererCosts struct {
	// CommitDelay holds the root document's bytes this long after its
	// first byte before the scanner sees them: Chromium's browser process
	// receives the response and commits the navigation to a renderer, which
	// only then parses. Its first subresource request follows the
	// document's first byte by a median 18 ms on the 2-core lab machine
	// with Chromium alone (41 ms beside other testbeds); the loader's by
	// under 1 ms.
	CommitDelay time.Duration
	// DispatchCost is the time each request occupies the one thread that
	// hands requests to the network (the renderer and its IPC to the
	// network service), so requests found together leave one cost apart,
	// and an HTTP/1.1 connection that frees takes its next request at
	// least one cost later. Chromium's image requests of a one-host h2
	// page left 1.1 ms apart on average (2.3 ms beside other testbeds).
	DispatchCost time.Duration
	// BatchSends: a request that queued behind others on that thread
	// leaves only once the thread has handed over every request queued
	// before its own turn ended, so requests found together leave
	// together; the first of them, which found the thread idle, leaves
	// after its own cost. Chromium's network service creates each request
	// (about 1 ms here) before any queued behind it is bound to a stream:
	// on a one-host h2 page (pageA, 20 ms) its NetLog shows the three
	// requests found first sent about 20 ms after the document, and the
	// other 97 sent in one burst about 110 ms after it, where the loader
	// sent them 1.1 ms apart from the start. Off in both profiles: on the
	// fidelity grid it brings that cell to Chromium but moves others away
	// from it (BENCHMARKS).
	BatchSends bool
	// PaintCost is the time from the first text ready to paint to the
	// first contentful paint (style, layout, paint, the frame): added to
	// the loader's FCP and LCP estimates (paint.go), never to a request
	// or to PLT. probe.ChromiumModernPaintCost says what it was fitted on.
	PaintCost time.Duration
}

// dispatcher serialises requests through a per-load thread that costs
// RendererCosts.DispatchCost per request.
type dispatcher struct {
	cost  time.Duration
	batch bool // RendererCosts.BatchSends

	mu   sync.Mutex
	free time.Time // when the thread is next idle
	last time.Time // the last handover (stamped as its request's send)
}

// dispatch waits for the request's turn on the thread and its cost, and
// returns the moment the thread handed the request over: the caller
// stamps it as the request's send (HAR), so the costs and the HAR's times
// come from one clock reading. Zero (no cost): the caller stamps its
// write. An error is ctx's.
func (d *dispatcher) dispatch(ctx context.Context) (time.Time, error) {
	if d == nil || d.cost <= 0 {
		return time.Time{}, nil
	}
	d.mu.Lock()
	now := time.Now()
	queued := d.free.After(now) // the thread is busy with earlier requests
	d.free = maxTime(now, d.free).Add(d.cost)
	wait := d.free.Sub(now)
	d.mu.Unlock()
	if err := ctxtime.Sleep(ctx, wait); err != nil {
		return time.Time{}, err
	}
	if d.batch && queued {
		// This request's turn has ended; it leaves behind every request
		// that queued before now (those after it queue behind its send).
		d.mu.Lock()
		drained := d.free
		d.mu.Unlock()
		if err := ctxtime.Sleep(ctx, time.Until(drained)); err != nil {
			return time.Time{}, err
		}
	}
	return d.handover(ctx)
}

// handover stamps the request handed over now, but never less than one
// cost after the previous handover (unless sends are batched, which leave
// together). A sleeping goroutine wakes late by whatever the scheduler
// adds, so two requests whose turns ended a cost apart could otherwise be
// stamped closer: the spacing the model promises holds between the times
// the HAR shows, whatever the machine's load.
func (d *dispatcher) handover(ctx context.Context) (time.Time, error) {
	for {
		d.mu.Lock()
		now := time.Now()
		next := d.last.Add(d.cost)
		if d.batch || d.last.IsZero() || !now.Before(next) {
			d.last = now
			d.mu.Unlock()
			return now, nil
		}
		d.mu.Unlock()
		if err := ctxtime.Sleep(ctx, next.Sub(now)); err != nil {
			return time.Time{}, err
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// commitReader passes a document on to its scanner, holding its first
// bytes for the commit delay.
type commitReader struct {
	ctx     context.Context
	r       io.Reader
	delay   time.Duration
	started bool
}

func (c *commitReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && !c.started {
		c.started = true
		if serr := ctxtime.Sleep(c.ctx, c.delay); serr != nil {
			return 0, serr
		}
	}
	return n, err
}
