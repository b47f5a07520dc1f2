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
//     keep the queue fuller, so it stays. A connection moved to bbr that
//     then loses with the RTT inflated and at more than twice the loss
//     rate it had before (retransmitted / sent segments: bbr overfilling
//     a shallow queue shared with the page's other connections; random
//     loss keeps its rate whatever the queue) goes back, once.
//   - Adaptive TCP_NOTSENT_LOWAT (Config.AdaptiveLowat). Signal: the
//     delivery rate sample and the minimum RTT. Decision: the low-water
//     mark is their product (one round trip of data at the rate the path
//     delivers; 16 KiB..4 MiB), reset when it moves by a quarter, so the
//     socket holds what keeps the path busy for a round trip and the SPDY
//     scheduler, not the socket buffer, orders the rest: a high-priority
//     stream waits behind at most that much.
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
	rttInflated = 1.25
	rttSlackMs  = 5
	adaptCC     = probe.AdaptiveCCTarget
	// The loss rate under bbr that sends a connection back is backRate
	// times the rate before the switch, over at least backSegs segments
	// sent under bbr. RTT inflation alone is no evidence: bbr's start-up
	// fills a deep queue for a few round trips while random losses go on
	// (measured: 2% loss, a 100-packet queue at 10 Mbit/s, the RTT 60 ->
	// 150 ms under bbr at an unchanged loss rate).
	backRate = 2
	backSegs = 100
)

// Bounds of the adaptive low-water mark: 16 KiB (a common static value;
// below it the writer wakes per segment), 4 MiB (above any lab BDP).
const (
	minAdaptLowat = 16 << 10
	maxAdaptLowat = 4 << 20
)

// ccAdapter is one connection's congestion-control decision.
type ccAdapter struct {
	retrans uint32 // retransmissions seen so far
	outcome string // probe.AdaptCC*: "" while no loss was seen
	// at the switch to bbr: retransmitted and sent segments
	switchRetrans, switchSegs uint32
}

// observe takes one TCP_INFO sample and returns the algorithm to switch
// to now, "" for none.
func (a *ccAdapter) observe(ti tcpopt.TCPInfo, first string) string {
	if ti.Retransmits <= a.retrans || ti.MinRTTms <= 0 || ti.RTTms <= 0 {
		return ""
	}
	a.retrans = ti.Retransmits
	inflated := ti.RTTms > ti.MinRTTms*rttInflated && ti.RTTms-ti.MinRTTms > rttSlackMs
	switch a.outcome {
	case "", probe.AdaptCCQueue:
		if inflated {
			a.outcome = probe.AdaptCCQueue
			return ""
		}
		a.outcome = probe.AdaptCCSwitched
		a.switchRetrans, a.switchSegs = ti.Retransmits, ti.SegsOut
		return adaptCC
	case probe.AdaptCCSwitched:
		sent := ti.SegsOut - a.switchSegs
		if !inflated || sent < backSegs || a.switchSegs == 0 {
			return ""
		}
		before := float64(a.switchRetrans) / float64(a.switchSegs)
		after := float64(ti.Retransmits-a.switchRetrans) / float64(sent)
		if after > backRate*before {
			a.outcome = probe.AdaptCCBack
			return first
		}
	}
	return ""
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
func (s *Server) adapting() bool { return s.cfg.AdaptiveCC || s.cfg.AdaptiveLowat }

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
		sc.setAdapt(probe.AdaptCCNoSignal, 0)
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
	var cc ccAdapter
	lowat := 0
	record := func(outcome string) {
		if !s.cfg.AdaptiveCC {
			outcome = ""
		}
		sc.setAdapt(outcome, lowat)
	}
	defer func() { record(cc.result()) }()
	tick := time.NewTicker(adaptInterval)
	defer tick.Stop()
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
		if s.cfg.AdaptiveCC {
			if to := cc.observe(ti, first); to != "" {
				if err := tcpopt.SetCongestion(sc.TCPConn, to); err != nil {
					s.logf("%s: adaptive cc to %s: %v", sc.peer, to, err)
					cc.outcome = probe.AdaptCCNoSignal
				}
			}
		}
		if s.cfg.AdaptiveLowat {
			if next := lowatFor(ti); lowatMoved(lowat, next) {
				if err := tcpopt.SetNotSentLowat(sc.TCPConn, next); err == nil {
					lowat = next
				}
			}
		}
		record(cc.outcome)
	}
}
