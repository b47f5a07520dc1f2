package server

import (
	"time"

	"github.com/spdylab/spdylab/internal/tcpopt"
)

// Adaptive pacing (Config.AdaptivePacing): a rate cap from the
// connection's own queueing delay and delivery rate.
//
// Why: a loss-based cc in slow start doubles its window each round trip
// until the path drops packets, and cubic's HyStart did not end it early
// here. When the bottleneck's queue is shallower than the path's BDP
// (study 1's 50 packets at 10 Mbit/s and 100 ms, an 83-packet BDP), a
// page on two SPDY connections loses dozens of packets in one window;
// the connection that was still small then leaves slow start with a
// ssthresh of a dozen segments and cubic regrows it by about one segment
// a round trip, for seconds (server TCP_INFO traces, BENCHMARKS.md).
// HTTPS spreads the same losses over a dozen connections. Pacing each
// connection at its share of the link removes the losses; pacing each at
// the whole link does not, so the cap has to be the share, which only the
// connection itself can measure.
//
// Signal: the smoothed RTT against the minimum (queueing delay), the
// largest delivery rate sample that was not application-limited (what
// the path gave this connection while it had data to send), the window.
// Decision: during the initial slow start, the first sample whose RTT
// shows a queue (above the minimum by an eighth of it, HyStart's delay
// threshold, and by more than rttSlackMs) sets the cap at once to the
// larger of the best rate seen and the window's rate over the minimum
// RTT (the first queue is often a burst's while the rate samples still
// lag the window). Up to paceDrainRounds later round trips of slow start
// that still show one, each where the connection sent at the cap
// (paceBinding), lower it to paceDrain x the round's rate: the share,
// less a margin so the queue drains. After those rounds, and once slow
// start is over (a loss set ssthresh), the cap is never lowered again:
// later inflation is another connection's queue, cubic's own probing or a
// paced flow's delayed ACKs, and lowering on it starved connections to a
// few hundred kbit/s when tried. A round trip with the RTT near its
// minimum raises a set cap by paceProbe, so a share that frees up is
// taken back within a few round trips; in slow start by
// paceSlowStartProbe, slow start's own growth: a cap set early, on
// another connection's burst while this one's rate was still small, held
// a connection that never lost a segment (so never left slow start) at
// 0.4-0.7 Mbit/s, and at 15 % a round trip it took seconds to grow back
// (h2 on page B over 2 servers, 10/1 Mbit/s, 80 ms: 2.14 -> 2.77 s,
// bench/studies/pacing-bbr-offgrid.toml); past slow start a cap above twice
// the best rate no longer binds and is lifted (in slow start it stops
// there: raise). A connection whose RTT never shows a queue in slow start
// is never paced. The cap is SO_MAX_PACING_RATE, which also turns on
// TCP's internal pacing.
//
// On a connection adaptive cc moved to bbr the cap made under cubic is
// lifted, and bbr's start-up gets the same guard (observeBBR): start-up
// paces at 2.89 x its bandwidth estimate and keeps doubling, so after a
// regrowth it overflows a queue shallower than the BDP as slow start does
// (measured, study1's page C on 2 servers at 10/1 Mbit/s, 100 ms: the
// regrown connection's window 16 -> 252 segments in 5 round trips, then
// 118 segments lost at once).
const (
	paceDrain          = 0.85
	paceProbe          = 1.15
	paceSlowStartProbe = 2
	paceLiftAt         = 2
	// paceDrainRounds bounds the round trips of slow start that lower the
	// cap: the overshoot it guards against is over by then, and a queue
	// that stays is another connection's (measured: a connection lowered
	// round after round from 1.1 MB/s to 136 kB/s while its neighbour, on
	// a 20 Mbit/s link, kept the queue full).
	paceDrainRounds = 3
	// paceBinding: a round lowers the cap only if the connection sent at
	// this fraction of it or more. Early in slow start the window, not the
	// cap, limits it, and its rate says nothing of its share (measured: a
	// cap of 1.2 MB/s cut to 0.28 MB/s after a round at 0.32 MB/s with a
	// 17-segment window, which then grew no faster).
	paceBinding = 0.8
	slowStartBy = 1.0 / 8 // HyStart's delay threshold, a fraction of the minimum RTT
)

// paceAdapter is one connection's pacing decision.
type paceAdapter struct {
	cap      uint64        // the cap set, bytes/s; 0 = none yet
	lowest   uint64        // the lowest cap set (for the record)
	best     uint64        // the largest rate sample seen
	roundMax uint64        // the largest rate sample of this round
	roundAt  time.Duration // when this round began
	started  bool          // a sample with an RTT was seen (roundAt is set)
	stood    bool          // stood down for good: bbr's start-up is over, or a cap could not be set
	drains   int           // rounds of slow start that lowered the cap
	onBBR    bool          // the connection moved to bbr: observeBBR decides
}

// observe takes one TCP_INFO sample at time at (since the connection's
// first) and returns the cap to set now, 0 for no change.
func (p *paceAdapter) observe(ti tcpopt.TCPInfo, at time.Duration) uint64 {
	if p.stood || ti.MinRTTms <= 0 || ti.RTTms <= 0 {
		return 0
	}
	if !p.started {
		p.started, p.roundAt = true, at
	}
	if !ti.DeliveryRateAppLimited && ti.DeliveryRate > p.roundMax {
		p.roundMax = ti.DeliveryRate
	}
	p.best = max(p.best, p.roundMax)
	inSlowStart := ti.SndSsthresh == 0
	if inSlowStart && p.cap == 0 && p.queued(ti, ti.MinRTTms*slowStartBy) {
		if first := max(p.best, windowRate(ti)); first > 0 {
			// At once: in slow start a round trip's wait doubles the
			// overshoot. The next round measures the capped sending.
			p.roundAt, p.roundMax = at, 0
			return p.set(first)
		}
	}
	if at-p.roundAt < time.Duration(ti.MinRTTms*float64(time.Millisecond)) {
		return 0
	}
	rate := p.roundMax
	p.roundAt, p.roundMax = at, 0
	switch {
	case p.cap == 0:
		return 0
	case inSlowStart && p.queued(ti, ti.MinRTTms*slowStartBy):
		drain := uint64(float64(rate) * paceDrain)
		binding := float64(rate) >= paceBinding*float64(p.cap)
		if binding && drain < p.cap && p.drains < paceDrainRounds {
			p.drains++
			return p.set(drain)
		}
	case !p.queued(ti, ti.MinRTTms*(rttInflatedBy-1)):
		return p.raise(inSlowStart)
	}
	return 0
}

// raise lifts the cap by paceProbe after a round near the minimum RTT,
// by paceSlowStartProbe in slow start. Above twice the best rate a cap no
// longer binds and is lifted, but not in slow start: the window has grown
// behind the cap, and uncapped it would go out at twice its rate at once
// (measured: lifted at 150 ms, the connection lost a window and leaves
// slow start, its neighbour starved). There the cap stops at twice the
// best rate instead.
func (p *paceAdapter) raise(inSlowStart bool) uint64 {
	probe := paceProbe
	if inSlowStart {
		probe = paceSlowStartProbe
	}
	next := uint64(float64(p.cap) * probe)
	ceiling := uint64(paceLiftAt * float64(p.best))
	switch {
	case next <= ceiling:
		return p.set(next)
	case !inSlowStart:
		p.cap = 0
		return tcpopt.PacingUncapped
	case ceiling > p.cap:
		return p.set(ceiling)
	}
	return 0
}

// set records a new cap and returns it.
func (p *paceAdapter) set(c uint64) uint64 {
	p.cap = c
	if p.lowest == 0 || c < p.lowest {
		p.lowest = c
	}
	return c
}

// windowRate is the rate at which the congestion window would be
// delivered in one minimum RTT (bytes/s): what the connection sends with
// the queue empty. In slow start the first queue is often a burst's while
// the rate samples still lag the window, so the first cap is the larger
// of the two; later rounds bring it down to the share.
func windowRate(ti tcpopt.TCPInfo) uint64 {
	if ti.MinRTTms <= 0 {
		return 0
	}
	return uint64(float64(ti.SndCwnd) * float64(ti.SndMSS) / (ti.MinRTTms / 1000))
}

// queued tells whether a sample's RTT exceeds the minimum by more than
// overMs (and rttSlackMs) once the cap's own delay is taken out: a paced
// connection's segments arrive a gap apart and the receiver's delayed ACK
// waits for the second, so its RTT samples carry up to two gaps (2 x MSS /
// cap) with no queue at all. Counted as a queue, that delay lowered the
// cap further, which widened the gap: caps of 1 Mbit/s on a 10 Mbit/s link.
func (p *paceAdapter) queued(ti tcpopt.TCPInfo, overMs float64) bool {
	gapMs := 0.0
	if p.cap > 0 && ti.SndMSS > 0 {
		gapMs = 2 * float64(ti.SndMSS) / float64(p.cap) * 1000
	}
	return queuedBeyond(ti, gapMs, overMs)
}

// bbrStartUpQueueSegs is the queue, in segments ((RTT - minimum) x
// delivery rate), at which a bbr start-up is capped: adaptive cc's way
// back asks the same of a queue (backQueueSegs). An RTT an eighth over
// the minimum alone is no evidence early in start-up, when the rate is
// small and one flight's own burst inflates the RTT by a few ms.
const bbrStartUpQueueSegs = backQueueSegs

// observeBBR takes one sample of a connection adaptive cc has moved to
// bbr and returns the cap to set now, 0 for no change. The first call
// lifts a cap made under cubic (its estimate must not hold bbr). Then,
// while bbr is in its start-up (its pacing gain, from TCP_CC_INFO, above
// bandwidth probing's 0.75-1.25), the first sample whose RTT shows a
// queue of bbrStartUpQueueSegs caps the rate at the best delivery rate
// the connection has reached under bbr: the path already delivers that
// much, the queue stops growing, bbr's estimate stops growing, and bbr
// ends its start-up by its own rule (no 25 % growth in three round
// trips). When start-up is over (drain's gain, or probing's) the cap is
// lifted for good: bbr's probing adds a few segments of queue, not a
// doubling. A kernel that does not report bbr's gain gives no start-up to
// tell apart: the connection is left unpaced, as before.
func (p *paceAdapter) observeBBR(ti tcpopt.TCPInfo) uint64 {
	if !p.onBBR {
		lift := p.cap > 0
		*p = paceAdapter{onBBR: true, lowest: p.lowest, stood: p.stood}
		if lift {
			return tcpopt.PacingUncapped
		}
		return 0
	}
	if p.stood || ti.MinRTTms <= 0 || ti.RTTms <= 0 {
		return 0
	}
	if ti.BBRPacingGain <= 1+bbrProbeGain {
		return p.standDown()
	}
	if !ti.DeliveryRateAppLimited && ti.DeliveryRate > p.best {
		p.best = ti.DeliveryRate
	}
	if p.cap == 0 && p.best > 0 && p.queued(ti, ti.MinRTTms*slowStartBy) && queuedSegs(ti) >= bbrStartUpQueueSegs {
		return p.set(p.best)
	}
	return 0
}

// standDown lifts the cap for good (bbr's start-up is over, or a cap
// could not be set): the cap to set, 0 when none was set.
func (p *paceAdapter) standDown() uint64 {
	if p.stood {
		return 0
	}
	p.stood = true
	if p.cap == 0 {
		return 0
	}
	p.cap = 0
	return tcpopt.PacingUncapped
}
