package loader

import (
	"context"
	"sort"
	"sync"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// This file is the loader's model of Chromium's ResourceScheduler: which
// requests a browser holds back before they reach the network. Chrome 16
// (the seed studies' browser) sent everything it discovered at once; a
// modern Chromium does not, and a loader that bursts every request is too
// fast by 17-31% with four hosts and overflows small uplink queues with
// its simultaneous connection setups.

// RequestThrottle limits delayable requests in flight: requests of low
// priority (images), which a browser may hold back while more important
// ones load. Zero values mean no limit (Chrome 16).
type RequestThrottle struct {
	// MaxDelayable caps delayable requests in flight per page (Chromium's
	// kMaxNumDelayableRequestsPerClient, 10).
	MaxDelayable int
	// MaxDelayablePerHost caps delayable requests in flight per host while
	// the host is not known to multiplex: HTTP/1.1 hosts always, h2/SPDY/h3
	// hosts until a connection to them negotiated the protocol (Chromium's
	// kMaxNumDelayableRequestsPerHostPerClient, 6).
	MaxDelayablePerHost int
	// UntilParsed holds delayable requests on multiplexed protocols while
	// the root document is still being parsed, but for
	// DelayableWhileParsing of them: instead of every image request going
	// out in one burst as the scanner finds it (which on a 1 Mbit/s uplink
	// delays the ACKs and stalls the server's slow start), they follow the
	// document as Chromium's layout-blocking phase lets them.
	UntilParsed bool
	// MultiplexedUncapped lets delayable requests to a host known to
	// multiplex past MaxDelayable and leaves them out of its count:
	// Chromium's ResourceScheduler does not class a request to a host that
	// SupportsRequestPriority (h2, QUIC) as delayable, so on h2 it has up
	// to a page's every image in flight (the fidelity study's HARs:
	// 46-100), not ten, and they do not hold back the requests to other
	// hosts (pageA on four hosts at 100 ms: Chromium opened s2 and s3 while
	// s1's 25 images were in flight; counting them held s3 and s4 for a
	// round trip or more, 30-41% slow). A request admitted while its host
	// was not yet known still counts until it ends, as Chromium counts it
	// from its start. One queued behind a request the page cap holds waits
	// with it (Chromium's pass over its pending requests stops there), and
	// UntilParsed still holds them while the document is parsed.
	MultiplexedUncapped bool
}

// DelayableWhileParsing is how many delayable requests UntilParsed lets
// through while the document is parsed (Chromium's
// kMaxNumDelayableWhileLayoutBlockingPerClient).
const DelayableWhileParsing = 1

// Enabled tells whether t holds back anything.
func (t RequestThrottle) Enabled() bool {
	return t.MaxDelayable > 0 || t.MaxDelayablePerHost > 0 || t.UntilParsed
}

// delayable: the priority Chromium's scheduler may delay (below Medium):
// images in the loader's model. It is the resource type's Chromium
// priority whatever the load's priority policy, which changes what the
// requests carry, not which ones the browser holds back.
func delayable(e *entry) bool { return priorityOf(e.typ) >= priorityOf(page.TypeImage) }

// throttle is one load's scheduler state.
type throttle struct {
	cfg         RequestThrottle
	multiplexed bool // the load's protocol multiplexes (h2, SPDY, h3)

	mu       sync.Mutex
	parsed   bool            // the root document has been parsed
	known    map[string]bool // hosts known to multiplex
	inFlight int             // delayable requests in flight (UntilParsed counts them)
	capped   int             // those of them MaxDelayable counts
	perHost  map[string]int
	waiting  []*throttleWait
}

type throttleWait struct {
	e       *entry
	ready   chan struct{}
	counted bool // started while its host was not known to multiplex: MaxDelayable counts it
}

func newThrottle(cfg RequestThrottle, proto string) *throttle {
	p, _ := probe.LookupProtocol(proto)
	return &throttle{cfg: cfg, multiplexed: p.Multiplexed, known: map[string]bool{}, perHost: map[string]int{}}
}

// admit blocks until e may go to the network, and returns the function
// that ends its time in flight: enqueue and wait in one.
func (t *throttle) admit(ctx context.Context, e *entry) (release func(), err error) {
	return t.wait(ctx, t.enqueue(e))
}

// enqueue registers e with the scheduler and starts it if the limits
// allow; nil means e is not held back at all. The load calls it as it
// discovers e, so requests found together reach the scheduler in the
// order the page names them, as Chromium's do (its ResourceScheduler sees
// each request as it is created). Had each request's own goroutine
// registered it, the first ten goroutines to run would have taken the
// page's ten slots: youtube on four hosts opened s4 and s3 before s2.
// Waiting ones are let through in priority order, then discovery order,
// as slots free up.
func (t *throttle) enqueue(e *entry) *throttleWait {
	if !t.cfg.Enabled() || !delayable(e) {
		return nil
	}
	w := &throttleWait{e: e, ready: make(chan struct{})}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.uncappedLocked(e.url.Hostname()) && t.parseSlotLocked() {
		// Chromium asks whether a new request may start as it is
		// created; one to a host known to multiplex may.
		t.startLocked(w)
	} else {
		t.waiting = append(t.waiting, w)
	}
	sort.SliceStable(t.waiting, func(i, j int) bool {
		a, b := t.waiting[i].e, t.waiting[j].e
		if a.priority != b.priority {
			return a.priority < b.priority
		}
		return a.seq < b.seq
	})
	t.pumpLocked()
	return w
}

// wait blocks until w's request may go (at once for nil) and returns the
// function that ends its time in flight.
func (t *throttle) wait(ctx context.Context, w *throttleWait) (release func(), err error) {
	if w == nil {
		return func() {}, nil
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		t.mu.Lock()
		select {
		case <-w.ready: // admitted meanwhile: give the slot back
			t.doneLocked(w)
		default:
			t.removeLocked(w)
		}
		t.pumpLocked()
		t.mu.Unlock()
		return nil, context.Cause(ctx)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.doneLocked(w)
			t.pumpLocked()
			t.mu.Unlock()
		})
	}, nil
}

// documentParsed: the root document's bytes have all been scanned.
func (t *throttle) documentParsed() {
	t.mu.Lock()
	t.parsed = true
	t.pumpLocked()
	t.mu.Unlock()
}

// hostMultiplexes: a connection to host negotiated a multiplexed protocol.
func (t *throttle) hostMultiplexes(host string) {
	t.mu.Lock()
	t.known[host] = true
	t.pumpLocked()
	t.mu.Unlock()
}

// startLocked lets w's request go, counting it towards the limits that
// apply to it as it starts.
func (t *throttle) startLocked(w *throttleWait) {
	w.counted = !t.uncappedLocked(w.e.url.Hostname())
	t.inFlight++
	if w.counted {
		t.capped++
		t.perHost[w.e.url.Hostname()]++
	}
	close(w.ready)
}

func (t *throttle) doneLocked(w *throttleWait) {
	t.inFlight--
	if w.counted {
		t.capped--
		t.perHost[w.e.url.Hostname()]--
	}
}

func (t *throttle) removeLocked(w *throttleWait) {
	for i, x := range t.waiting {
		if x == w {
			t.waiting = append(t.waiting[:i], t.waiting[i+1:]...)
			return
		}
	}
}

// pumpLocked starts every waiting request the limits allow, in order. A
// full page stops the search (as Chromium's pass over its pending
// requests stops at the first one the page cap holds, whatever follows,
// requests to hosts known to multiplex too); a full host only skips that
// host's requests.
func (t *throttle) pumpLocked() {
	kept := t.waiting[:0]
	stop := false
	for _, w := range t.waiting {
		host := w.e.url.Hostname()
		uncapped := t.uncappedLocked(host)
		if stop || (!uncapped && !t.pageSlotLocked()) {
			stop = true
			kept = append(kept, w)
			continue
		}
		if !t.parseSlotLocked() || !t.hostSlotLocked(host) {
			kept = append(kept, w)
			continue
		}
		t.startLocked(w)
	}
	for i := len(kept); i < len(t.waiting); i++ {
		t.waiting[i] = nil
	}
	t.waiting = kept
}

// parseSlotLocked: UntilParsed lets another delayable request go.
func (t *throttle) parseSlotLocked() bool {
	return !t.cfg.UntilParsed || !t.multiplexed || t.parsed || t.inFlight < DelayableWhileParsing
}

func (t *throttle) pageSlotLocked() bool {
	if !t.parseSlotLocked() {
		return false
	}
	return t.cfg.MaxDelayable <= 0 || t.capped < t.cfg.MaxDelayable
}

// uncappedLocked: MultiplexedUncapped exempts host's requests from
// MaxDelayable.
func (t *throttle) uncappedLocked(host string) bool {
	return t.cfg.MultiplexedUncapped && t.multiplexed && t.known[host]
}

func (t *throttle) hostSlotLocked(host string) bool {
	if t.cfg.MaxDelayablePerHost <= 0 || (t.multiplexed && t.known[host]) {
		return true
	}
	return t.perHost[host] < t.cfg.MaxDelayablePerHost
}
