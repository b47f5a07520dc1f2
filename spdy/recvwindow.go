package spdy

// An adaptive session receive window (Config.AdaptiveSessionWindow): the
// receiver bounds what the sender may have in flight by the rate the
// path delivers, so one session's slow start cannot overfill a shallow
// queue that it shares with the page's other connections. TCP's own
// window is the sender's; this one is the receiver's, the same lever
// a receive buffer gives, moved by measurement instead of fixed.
//
// Signal: the round trips of the session's own PINGs (the echo waits
// behind everything queued for this receiver: the sender's socket buffer
// and the path's queue), the smallest of them as the base, and the bytes
// that arrived while each PING was out. Decision: the session window's
// target. It grows by every byte received (doubling a round trip, as a
// slow start does) while no queue shows or the delivery rate still rises
// by a quarter a sample, holds while a small queue stands, and falls to
// the best delivery rate times the base round trip plus a quarter once
// the rate stops rising and the queue passes that. A PING out longer than the hold stops growth before its echo comes
// back. The queue that counts is the smaller of two samples in a row,
// not the burst one echo waited behind. After the first fall the target
// probes up half as fast, so a session takes the link back when the
// page's other connections end.
//
// What it cannot do (BENCHMARKS.md, "A receiver-side window"): stop the
// first overshoot of two slow starts into a shallow queue. Its signal
// comes a round trip after the sender's window has doubled, and what it
// granted before cannot be taken back.

import "time"

const (
	// recvWindowStart is the target before any sample: SPDY/3.1's
	// default session window, which the peer may fill before our first
	// WINDOW_UPDATE arrives anyway.
	recvWindowStart = DefaultInitialWindowSize
	// RecvWindowFloor is the least the target falls to: two full DATA
	// frames, so a session never stalls on its own window.
	RecvWindowFloor = 2 * DefaultMaxFrameSize
	// recvWindowHold and recvWindowCut are the round trip, as a multiple
	// of the base, at which the target stops growing and at which it
	// falls; recvWindowProbe the one under which it grows again.
	recvWindowHold  = 1.125
	recvWindowCut   = 1.25
	recvWindowProbe = 1.0625
	// recvWindowGrowing is the rate rise from the best earlier sample
	// that shows the sender still in its slow start.
	recvWindowGrowing = 1.25
	// recvWindowQueueFloor is the least queue delay that counts as one,
	// so that a base round trip of a few milliseconds (loopback, a LAN)
	// does not read scheduling jitter as a queue.
	recvWindowQueueFloor = 4 * time.Millisecond
)

// recvWindow is the controller: pure bookkeeping, no I/O. The session
// feeds it received bytes and PING samples and reads target.
type recvWindow struct {
	ceiling int64 // the configured session window: the target's top
	target  int64
	base    time.Duration // the smallest PING round trip
	// best is the highest delivery rate a sample showed, bytes/s: a round
	// trip inflated while the rate still grows by a quarter or more is the
	// sender's own slow start queueing in its socket, not a full path.
	best float64
	// last is the previous sample's round trip: the queue that counts is
	// the one two samples in a row show (the smaller), not the burst one
	// echo happened to wait behind.
	last time.Duration
	// growth is the target's growth per received byte, in quarters:
	// 4 until the first fall (a slow start), then 2 while probing, 0 while
	// a queue stands.
	growth int64
	// report
	samples int
	cuts    int
	lowest  int64
}

func newRecvWindow(ceiling int64) *recvWindow {
	start := min(int64(recvWindowStart), ceiling)
	return &recvWindow{ceiling: ceiling, target: start, growth: 4}
}

// received grows the target by n received bytes at the current pace,
// unless the PING out has waited past the hold already (out: its age; 0
// = none out): an echo that late can only show a queue, so growth waits
// for it.
func (w *recvWindow) received(n int64, out time.Duration) {
	if n <= 0 || w.growth == 0 || (w.base > 0 && w.over(out, recvWindowHold)) {
		return
	}
	w.target = min(w.ceiling, w.target+n*w.growth/4)
}

// sample takes one PING round trip rtt, during which delivered bytes
// arrived, and moves the target.
func (w *recvWindow) sample(rtt time.Duration, delivered int64) {
	if rtt <= 0 {
		return
	}
	w.samples++
	if w.base == 0 || rtt < w.base {
		w.base = rtt
	}
	rate := float64(delivered) / rtt.Seconds()
	growing := rate > recvWindowGrowing*w.best
	w.best = max(w.best, rate)
	standing := rtt
	if w.last > 0 {
		standing = min(rtt, w.last)
	}
	w.last = rtt
	switch {
	case growing:
		// The sender is still opening its window: whatever queue shows
		// is its own, and the pipe's rate is not known yet.
	case w.over(standing, recvWindowCut):
		// The best rate the session was delivered at, as a window at the
		// base round trip plus a quarter: the queue drains to that.
		fit := int64(w.best * recvWindowCut * w.base.Seconds())
		w.target = max(int64(RecvWindowFloor), min(w.target, fit))
		w.growth = 0
		w.cuts++
		if w.lowest == 0 || w.target < w.lowest {
			w.lowest = w.target
		}
	case w.over(standing, recvWindowHold):
		w.growth = 0
	case !w.over(standing, recvWindowProbe) && w.growth == 0:
		w.growth = 2 // half a slow start's pace once it fell
		if w.cuts == 0 {
			w.growth = 4 // a queue that passed without a fall: still starting
		}
	}
}

// over tells whether rtt exceeds the base by more than factor (and by at
// least recvWindowQueueFloor).
func (w *recvWindow) over(rtt time.Duration, factor float64) bool {
	queue := rtt - w.base
	return queue >= recvWindowQueueFloor && float64(rtt) > factor*float64(w.base)
}

// RecvWindowReport says what a session's adaptive receive window did.
type RecvWindowReport struct {
	On      bool  // Config.AdaptiveSessionWindow applied (SPDY/3.1)
	Samples int   // PING round trips taken
	Cuts    int   // times the target fell on a queue
	Lowest  int64 // the smallest target a fall set, bytes; 0 = never fell
	Target  int64 // the target at the end, bytes
}

// recvWindowPing is the adaptive window's PING in flight.
type recvWindowPing struct {
	out  bool
	id   uint32
	sent time.Time
	at   int64 // session.rwReceived when it was sent
}

// recvWindowPingLocked sends the adaptive window's next PING (ids of our
// parity, from the counter Ping uses).
func (s *session) recvWindowPingLocked() {
	if s.dead || s.rwPing.out {
		return
	}
	id := s.takePingIDLocked()
	s.rwPing = recvWindowPing{out: true, id: id, sent: time.Now(), at: s.rwReceived}
	s.sched.pushUrgent(&PingFrame{ID: id})
	s.wake.Signal()
}

// recvWindowDataLocked counts n DATA bytes received against the session
// window: the target grows, and while data flows a PING is always out.
func (s *session) recvWindowDataLocked(n int64) {
	if s.rw == nil || n <= 0 {
		return
	}
	s.rwReceived += n
	var out time.Duration
	if s.rwPing.out {
		out = time.Since(s.rwPing.sent)
	}
	s.rw.received(n, out)
	s.recvWindowPingLocked()
}

// recvWindowEchoLocked takes the echo of the adaptive window's PING.
func (s *session) recvWindowEchoLocked(id uint32) {
	if s.rw == nil || !s.rwPing.out || id != s.rwPing.id {
		return // an id of our parity we did not send is ignored (2.6.5)
	}
	s.rwPing.out = false
	s.rw.sample(time.Since(s.rwPing.sent), s.rwReceived-s.rwPing.at)
}

// recvWindowReport is what the adaptive window did so far.
func (s *session) recvWindowReport() RecvWindowReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rw == nil {
		return RecvWindowReport{}
	}
	return RecvWindowReport{On: true, Samples: s.rw.samples, Cuts: s.rw.cuts, Lowest: s.rw.lowest, Target: s.rw.target}
}
