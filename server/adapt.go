package server

import (
	"net"
	"time"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
)

// Adaptive mechanisms: what a server can decide per connection from its
// own socket's TCP_INFO alone (never the emulator's configuration), as a
// deployed SPDY server could.
//
//   - Adaptive congestion control (Config.AdaptiveCC). Signal: a new
//     retransmission (loss) and the smoothed RTT against the connection's
//     minimum RTT at that moment. Decision: a loss while the RTT sits near
//     its minimum is not a full queue's (random loss on the path), and a
//     loss-based cc (cubic, reno) halves its window for nothing there, so
//     the connection switches to bbr (TCP_CONGESTION mid-connection); a
//     loss with the RTT inflated is a queue overflowing, where bbr would
//     keep the queue fuller, so it stays. A connection moved to bbr that,
//     once bbr's start-up is over (bbrSettle round trips after the
//     switch), loses with the RTT inflated and at more than twice the
//     loss rate it had before and over 5% (retransmitted / sent segments: bbr
//     overfilling a shallow queue shared with the page's other
//     connections; random loss keeps its rate whatever the queue) goes
//     back, once. "Once start-up is over" is bbr's own word when the
//     kernel gives it (TCP_CC_INFO: the pacing gain back to bandwidth
//     probing's 0.75-1.25 and no recovery left to finish), and the
//     inflated RTT must hold backQueueSegs segments of queue.
//   - Adaptive regrowth (Config.AdaptiveRegrow). Signal: the smoothed RTT
//     against the minimum, the congestion state, ssthresh and whether the
//     delivery rate sample was app-limited. Decision: a connection in
//     congestion avoidance (ssthresh set, cwnd at or above it, no
//     recovery) that sends a full window (not app-limited) while its RTT
//     stays within an eighth of the minimum (roomFor) for regrowRounds
//     round trips builds no queue beyond its own burst: the path has room
//     its window does not use. That is a window an overflow cut far down
//     (one of two connections that started together loses most of the
//     overshoot) growing back at cubic's pace after the other has
//     finished; it moves to bbr, whose
//     start-up takes the room in a few round trips, and back once under
//     the same rule as adaptive cc. A connection still above the path's
//     BDP after its cut keeps a queue, and so keeps its cc.
//   - Adaptive TCP_NOTSENT_LOWAT (Config.AdaptiveLowat). Signal: the
//     delivery rate sample and the minimum RTT. Decision: the low-water
//     mark is their product (one round trip of data at the rate the path
//     delivers; 16 KiB..4 MiB), reset when it moves by a quarter, so the
//     socket holds what keeps the path busy for a round trip and the SPDY
//     scheduler, not the socket buffer, orders the rest: a high-priority
//     stream waits behind at most that much.
//   - Adaptive pacing (Config.AdaptivePacing; adapt_pace.go). Signal: the
//     RTT's inflation and the delivery rate, once per round trip.
//     Decision: a pacing cap just below the connection's measured share
//     while a queue builds in slow start, raised while it does not; on
//     bbr, a cap at the rate reached while its start-up builds a queue.
//
// A connection without TCP_INFO keeps the static settings and says so
// (probe.AdaptCCNoSignal, no lowat).

// adaptInterval is how often a connection's TCP_INFO is read: a few
// times per round trip at the lab's RTTs (20-100 ms), so a decision lags
// a loss by a fraction of a round trip.
const adaptInterval = 10 * time.Millisecond

// Thresholds of the cc decision: the RTT counts as inflated when the
// smoothed RTT exceeds the minimum by a quarter and by more than
// rttSlackMs (delayed ACKs and the RTT's own variance at small RTTs).
const (
	rttInflatedBy = 1.25
	rttSlackMs    = 5
	adaptCC       = probe.AdaptiveCCTarget
	// The loss rate under bbr that sends a connection back is backRate
	// times the rate before the switch, over at least backSegs segments
	// sent under bbr after its start-up (bbrSettle minimum RTTs after the
	// switch). Neither RTT inflation nor losses during start-up are
	// evidence: start-up sends up to 2.89 times the path's BDP for a few
	// round trips, filling a deep queue (measured: 2% loss, a 100-packet
	// queue at 10 Mbit/s, the RTT 60 -> 150 ms at an unchanged loss rate)
	// and overflowing one shallower than the BDP (study 1's 50 packets at
	// 100 ms: counted from the switch, 5 of 10 single-connection loads of
	// page C went back to cubic and took 10-29 s against 6-8 s on bbr).
	// The rate must also exceed backMinRate: the rate before the switch
	// comes from the few segments up to the first losses and is often
	// under the path's random loss rate, so twice it is no evidence by
	// itself (measured: 2% random loss sent a connection back); bbr
	// overfilling a shallow queue loses far more than 5%.
	backRate    = 2
	backMinRate = 0.05
	backSegs    = 100
	// bbrSettle is the start-up allowance in minimum RTTs when the
	// kernel does not report bbr's pacing gain. A fixed allowance
	// counted start-up's repair: at 20 ms it ended 160 ms after the
	// switch, while the segments lost to start-up's overshoot (2.89 x
	// the BDP) were still being retransmitted, so the rule read 7-21 %
	// on a 1 % link and sent 6 of 10 loads of page C back to cubic
	// (2.4-4.3 s against 1.45-1.48 s on bbr; BENCHMARKS). With the gain,
	// the rate counts from the first sample with bbr probing bandwidth
	// (gain within bbrProbeGain of 1) and no recovery under way.
	bbrSettle    = 8
	bbrProbeGain = 0.25
	// backQueueSegs is the queue, in segments, the way back asks of the
	// inflated RTT ((RTT - minimum) x delivery rate): an RTT 5-6 ms over
	// a 20 ms minimum, which passes rttInflated, is about 10 segments at
	// 20 Mbit/s, what bbr's own probing adds, where a full 50-packet
	// queue shows 30 ms (about 50 segments).
	backQueueSegs = 16
	// regrowRounds is how many minimum RTTs the room must last: more than
	// one, so that a window's own gap between flights (an RTT sample at
	// the start of a round) is no evidence.
	regrowRounds = 2
)

// rttInflated tells whether a sample's smoothed RTT shows a queue: above
// the minimum by a quarter and by more than rttSlackMs.
func rttInflated(ti tcpopt.TCPInfo) bool {
	return queuedBeyond(ti, 0, ti.MinRTTms*(rttInflatedBy-1))
}

// queuedBeyond tells whether a sample's RTT, less gapMs the sender itself
// adds (adapt_pace.go), exceeds the minimum by more than overMs and by
// more than rttSlackMs: the one queue test of the adaptive mechanisms.
func queuedBeyond(ti tcpopt.TCPInfo, gapMs, overMs float64) bool {
	return ti.RTTms-ti.MinRTTms-gapMs > max(overMs, rttSlackMs)
}

// Bounds of the adaptive low-water mark: 16 KiB (a common static value;
// below it the writer wakes per segment), 4 MiB (above any lab BDP).
const (
	minAdaptLowat = 16 << 10
	maxAdaptLowat = 4 << 20
)

// ccAdapter is one connection's congestion-control decision: onLoss
// (adaptive cc) switches at a loss without a queue, regrow (adaptive
// regrowth) when the path shows room; both share the way back.
type ccAdapter struct {
	onLoss, regrow bool
	// roomSince: the path has shown room (roomFor) since then, valid
	// while inRoom.
	inRoom    bool
	roomSince time.Duration
	retrans   uint32 // retransmissions seen so far
	outcome   string // probe.AdaptCC*: "" while no loss was seen
	// before is the loss rate (retransmitted / sent segments) at the
	// switch to bbr; switchAt when it switched (time since the
	// connection's first sample).
	before   float64
	switchAt time.Duration
	// settled: bbr's start-up is over; its loss rate counts from
	// settledRetrans, settledSegs.
	settled                     bool
	settledRetrans, settledSegs uint32
}

// observe takes one TCP_INFO sample, read at time at (since the
// connection's first), and returns the algorithm to switch to now, ""
// for none.
func (a *ccAdapter) observe(ti tcpopt.TCPInfo, first string, at time.Duration) string {
	if a.onBBR() && !a.settled && a.bbrSettled(ti, at) {
		a.settled, a.settledRetrans, a.settledSegs = true, ti.Retransmits, ti.SegsOut
	}
	if a.regrow && !a.onBBR() && a.outcome != probe.AdaptCCBack && a.roomFor(ti, at) {
		return a.switchToBBR(probe.AdaptCCRoom, ti, at)
	}
	if ti.Retransmits <= a.retrans || ti.MinRTTms <= 0 || ti.RTTms <= 0 {
		return ""
	}
	a.retrans = ti.Retransmits
	inflated := rttInflated(ti)
	switch a.outcome {
	case "", probe.AdaptCCQueue:
		if inflated {
			a.outcome = probe.AdaptCCQueue
			return ""
		}
		if !a.onLoss {
			return ""
		}
		return a.switchToBBR(probe.AdaptCCSwitched, ti, at)
	case probe.AdaptCCSwitched, probe.AdaptCCRoom:
		sent := ti.SegsOut - a.settledSegs
		if !a.settled || !inflated || queuedSegs(ti) < backQueueSegs || sent < backSegs || a.before == 0 {
			return ""
		}
		after := float64(ti.Retransmits-a.settledRetrans) / float64(sent)
		if after > max(backRate*a.before, backMinRate) {
			a.outcome = probe.AdaptCCBack
			return first
		}
	}
	return ""
}

// bbrSettled tells whether bbr's start-up, and the repair of what its
// overshoot lost, is over at this sample: from bbr's pacing gain when the
// kernel reports it, else bbrSettle minimum RTTs after the switch.
func (a *ccAdapter) bbrSettled(ti tcpopt.TCPInfo, at time.Duration) bool {
	if ti.BBRPacingGain > 0 {
		return ti.BBRPacingGain >= 1-bbrProbeGain && ti.BBRPacingGain <= 1+bbrProbeGain && ti.CAState == tcpopt.CAOpen
	}
	return ti.MinRTTms > 0 && at-a.switchAt >= time.Duration(bbrSettle*ti.MinRTTms*float64(time.Millisecond))
}

// queuedSegs estimates the segments queued on the path from a sample: the
// RTT above its minimum times the delivery rate, in segments; 0 when the
// sample lacks any of them.
func queuedSegs(ti tcpopt.TCPInfo) float64 {
	if ti.SndMSS == 0 || ti.DeliveryRate == 0 || ti.RTTms <= ti.MinRTTms {
		return 0
	}
	return (ti.RTTms - ti.MinRTTms) / 1000 * float64(ti.DeliveryRate) / float64(ti.SndMSS)
}

// onBBR tells whether a decision has moved the connection to bbr.
func (a *ccAdapter) onBBR() bool {
	return a.outcome == probe.AdaptCCSwitched || a.outcome == probe.AdaptCCRoom
}

// switchToBBR records a move to bbr for the reason outcome, with the
// loss rate so far as the way back's reference.
func (a *ccAdapter) switchToBBR(outcome string, ti tcpopt.TCPInfo, at time.Duration) string {
	a.outcome, a.switchAt = outcome, at
	if ti.SegsOut > 0 {
		a.before = float64(ti.Retransmits) / float64(ti.SegsOut)
	}
	return adaptCC
}

// roomFor tells whether the path has shown room for regrowRounds round
// trips up to this sample: in congestion avoidance after a slow start
// ended (ssthresh set, cwnd at or above it, no recovery), sending a full
// window (the delivery rate sample not app-limited), the RTT above its
// minimum by no more than an eighth (HyStart's delay threshold) or
// rttSlackMs. Not "at the minimum": a window sent as one burst queues
// behind itself at the bottleneck by up to its own serialization time
// (measured: a lone 19-segment window at 10 Mbit/s and 100 ms showed
// 5-9 ms), where a queue shared with another connection's full window
// adds tens of milliseconds.
func (a *ccAdapter) roomFor(ti tcpopt.TCPInfo, at time.Duration) bool {
	room := ti.CAState == tcpopt.CAOpen && ti.SndSsthresh > 0 && ti.SndCwnd >= ti.SndSsthresh &&
		!ti.DeliveryRateAppLimited && ti.MinRTTms > 0 && ti.RTTms > 0 && !queuedBeyond(ti, 0, ti.MinRTTms*slowStartBy)
	if !room {
		a.inRoom = false
		return false
	}
	if !a.inRoom {
		a.inRoom, a.roomSince = true, at
	}
	return at-a.roomSince >= time.Duration(regrowRounds*ti.MinRTTms*float64(time.Millisecond))
}

// result is the outcome to record when the connection ends.
func (a *ccAdapter) result() string {
	if a.outcome == "" {
		return probe.AdaptCCQuiet
	}
	return a.outcome
}

// lowatFor is the low-water mark for a sample: delivery rate x minimum
// RTT within the bounds; 0 when the sample has neither.
func lowatFor(ti tcpopt.TCPInfo) int {
	if ti.DeliveryRate == 0 || ti.MinRTTms <= 0 {
		return 0
	}
	bdp := float64(ti.DeliveryRate) * ti.MinRTTms / 1000
	return int(min(max(bdp, minAdaptLowat), maxAdaptLowat))
}

// lowatMoved tells whether a new mark differs enough from the one set to
// reset it (a quarter either way), so noise in the rate sample does not
// cost a system call every interval.
func lowatMoved(set, next int) bool {
	if next == 0 {
		return false
	}
	if set == 0 {
		return true
	}
	d := next - set
	return d*4 > set || -d*4 > set
}

// adapting tells whether the server runs any adaptive mechanism.
func (s *Server) adapting() bool {
	return s.cfg.AdaptiveCC || s.cfg.AdaptiveRegrow || s.cfg.AdaptiveLowat || s.cfg.AdaptivePacing
}

// startAdapting runs the adaptive mechanisms on an accepted connection
// until it closes or the server shuts down. A connection that is not a
// watched TCP socket records nothing (the harness then says no signal).
func (s *Server) startAdapting(c net.Conn) {
	sc, ok := c.(*sampledConn)
	if !ok || !s.adapting() {
		return
	}
	first, err := tcpopt.Congestion(sc.TCPConn)
	if err != nil {
		sc.setAdapt(adaptRecord{cc: probe.AdaptCCNoSignal})
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.adaptLoop(sc, first)
	}()
}

// adaptLoop reads the connection's TCP_INFO every adaptInterval and acts
// on it; the outcome is recorded with the connection's TCP_INFO.
func (s *Server) adaptLoop(sc *sampledConn, first string) {
	cc := ccAdapter{onLoss: s.cfg.AdaptiveCC, regrow: s.cfg.AdaptiveRegrow}
	var pace paceAdapter
	lowat := 0
	record := func() {
		r := adaptRecord{lowat: lowat, paceLowest: pace.lowest}
		if cc.onLoss || cc.regrow {
			r.cc = cc.result()
		}
		sc.setAdapt(r)
	}
	record()
	defer record()
	tick := time.NewTicker(adaptInterval)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-sc.done:
			return
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		ti, err := tcpopt.Info(sc.TCPConn)
		if err != nil {
			return // closed under us
		}
		at := time.Since(start)
		if cc.onLoss || cc.regrow {
			s.adaptCC(sc, &cc, ti, first, at)
		}
		if s.cfg.AdaptivePacing {
			s.adaptPacing(sc, &pace, cc.onBBR(), ti, at)
		}
		if s.cfg.AdaptiveLowat {
			if next := lowatFor(ti); lowatMoved(lowat, next) {
				if err := tcpopt.SetNotSentLowat(sc.TCPConn, next); err == nil {
					lowat = next
				}
			}
		}
		record() // as it stands: the load may end before the connection does
	}
}

// adaptCC applies the congestion-control decision of one sample.
func (s *Server) adaptCC(sc *sampledConn, cc *ccAdapter, ti tcpopt.TCPInfo, first string, at time.Duration) {
	to := cc.observe(ti, first, at)
	if to == "" {
		return
	}
	if err := tcpopt.SetCongestion(sc.TCPConn, to); err != nil {
		s.logf("%s: adaptive cc to %s: %v", sc.peer, to, err)
		cc.outcome = probe.AdaptCCNoSignal
		return
	}
	// Every move goes to the server log with the sample behind it, as the
	// pacing caps do, so a way back can be read against its evidence.
	s.logf("%s: adaptive cc: %s (%s) at %d ms (rtt %.1f ms, min %.1f ms, cwnd %d, ssthresh %d, retransmitted %d of %d segments; before the switch %.3f; bbr settled %v, since then %d of %d)",
		sc.peer, to, cc.outcome, at.Milliseconds(), ti.RTTms, ti.MinRTTms, ti.SndCwnd, ti.SndSsthresh, ti.Retransmits, ti.SegsOut,
		cc.before, cc.settled, ti.Retransmits-cc.settledRetrans, ti.SegsOut-cc.settledSegs)
}

// adaptPacing applies the pacing decision of one sample; onBBR: adaptive
// cc moved the connection to bbr, whose start-up has a guard of its own.
func (s *Server) adaptPacing(sc *sampledConn, pace *paceAdapter, onBBR bool, ti tcpopt.TCPInfo, at time.Duration) {
	next := uint64(0)
	if onBBR {
		next = pace.observeBBR(ti)
	} else {
		next = pace.observe(ti, at)
	}
	if next == 0 {
		return
	}
	if err := tcpopt.SetMaxPacingRate(sc.TCPConn, next); err != nil {
		s.logf("%s: adaptive pacing cap %d B/s: %v", sc.peer, next, err)
		pace.standDown()
		return
	}
	s.logf("%s: adaptive pacing: cap %d B/s at %d ms (rtt %.1f ms, min %.1f ms, delivery rate %d B/s, cwnd %d, ssthresh %d)",
		sc.peer, next, at.Milliseconds(), ti.RTTms, ti.MinRTTms, ti.DeliveryRate, ti.SndCwnd, ti.SndSsthresh)
}
