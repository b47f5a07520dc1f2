package critpath

import (
	"math"
	"net"
	"sort"
	"strconv"

	"github.com/spdylab/spdylab/probe"
)

// evidence is what the condition and the load's counters tell about the
// path's network: the rates and round-trip time that split waits and
// receives, and whether the receives' rest is the window or loss.
type evidence struct {
	downBps, upBps float64 // 0: not known (no link, a trace, unlimited)
	rttMs          float64 // 0: not known
	shared         bool    // one bottleneck for every host
	iwSegs         float64 // the servers' initial window
	// handshakeInWait: the transport's handshake is not timed as a connect
	// but sits in each connection's first wait. SCTP with DATA bundled on
	// COOKIE-ECHO: the association is dialled at once and the first
	// request leaves with COOKIE-ECHO, one round trip (INIT, INIT-ACK)
	// after the dial.
	handshakeInWait bool

	// busy are the intervals (ms, in order, disjoint) the uplink's
	// bottleneck carried each connection's requests (departures).
	busy map[string][][2]float64

	// loss: what the rest of a receive is (lossNone, lossSome, lossUnknown),
	// from the whole load's counters.
	loss int
	// connRetrans are the servers' retransmissions on each of the load's
	// connections, keyed by the HAR's connection id: where a connection is
	// in it, its own counter decides instead of the load's. Nil when the
	// client's and the servers' records cannot be matched.
	connRetrans        map[string]uint64
	noRate, noRTT, why string // why a merged category is merged
}

const (
	lossNone    = iota // no retransmission anywhere: the rest is the window
	lossSome           // the servers retransmitted: loss beyond slow start
	lossUnknown        // no TCP_INFO and losses possible: merged
)

// mss is the segment size the slow-start model assumes (Ethernet MTU,
// TCP timestamps).
const mss = 1448

func newEvidence(r *probe.Result) evidence {
	c := r.Condition
	ev := evidence{shared: c.Link.Shared, iwSegs: 10}
	if p, ok := probe.LookupProtocol(c.Proto); ok && p.Transport == probe.TransportSCTP {
		ev.handshakeInWait = !c.SCTP.NoBundleCookie
	}
	if c.TCP.IW > 0 {
		ev.iwSegs = float64(c.TCP.IW)
	}
	emulated := !c.NoLink
	switch {
	case !emulated:
		ev.noRate = "no emulated link, so no link rate to split the receive by"
	case c.Link.TraceDown != "":
		ev.noRate = "the downlink follows a trace, so no one rate to split the receive by"
	case c.Link.DownBps > 0:
		ev.downBps = float64(c.Link.DownBps)
	default:
		ev.noRate = "the downlink has no rate limit"
	}
	if emulated && c.Link.TraceUp == "" && c.Link.UpBps > 0 {
		ev.upBps = float64(c.Link.UpBps)
	}
	ev.rttMs = ms(c.Link.RoundTrip().Seconds())
	if !emulated || ev.rttMs <= 0 {
		// Loopback or a remote server: the client's smoothed RTT.
		ev.rttMs = 0
		for _, t := range r.TCP {
			if t.RTTms > 0 && (ev.rttMs == 0 || t.RTTms < ev.rttMs) {
				ev.rttMs = t.RTTms
			}
		}
		ev.noRTT = "neither the condition nor the client's TCP_INFO gives a round-trip time"
	}
	ev.loss, ev.why = lossEvidence(r, emulated)
	ev.connRetrans = connRetransmits(r)
	return ev
}

// perLoadLoss says why a load's loss recovery was charged by the whole
// load's retransmissions rather than by its connections'.
const perLoadLoss = "charged by the load's retransmissions, not per connection (a load stored before connections were recorded with their ports, or Chromium's connections to a server with several, some of which retransmitted)"

// connRetransmits matches the client's connections to the servers' by
// address (the client's local address:port is the server's peer) and
// returns the servers' retransmissions per HAR connection id. Only the
// loader's records carry the ids its HAR uses (Chromium's HAR names
// DevTools' socket ids, which ss does not show), so other clients get nil
// here and go by server address (byServerAddress).
func connRetransmits(r *probe.Result) map[string]uint64 {
	if r.ServerTCP == nil || r.Condition.ClientName() != probe.ClientLoader {
		return nil
	}
	byPeer := map[string]uint64{}
	for _, s := range r.ServerTCP.Conns {
		if s.Peer != "" {
			byPeer[s.Peer] += uint64(s.Retransmits)
		}
	}
	var out map[string]uint64
	for _, c := range r.TCP {
		rt, ok := byPeer[c.Local]
		if c.Local == "" || !ok {
			continue
		}
		if out == nil {
			out = map[string]uint64{}
		}
		out[strconv.Itoa(c.ConnID)] = rt
	}
	return out
}

// byServerAddress gives the HAR connections that the client's records
// cannot name (Chromium's) the servers' evidence at the entry's server
// address. A server connection can have carried a HAR connection only if
// the client acknowledged at least its response bodies' bytes (which
// rules out the preconnects Chromium opens and never uses); the one such
// connection is the entry's, and several none of which retransmitted
// prove it clean. Several with retransmissions leave it to the load.
func (ev *evidence) byServerAddress(r *probe.Result, nodes []*node) {
	if ev.connRetrans != nil || r.ServerTCP == nil {
		return
	}
	at := map[string][]probe.TCPInfo{}
	for _, s := range r.ServerTCP.Conns {
		if ip, _, err := net.SplitHostPort(s.Local); err == nil { // else stored before servers recorded it
			at[ip] = append(at[ip], s)
		}
	}
	carried := map[string]float64{}
	for _, n := range nodes {
		carried[n.conn] += n.body
	}
	for _, n := range nodes {
		if n.conn == "" {
			continue
		}
		var rt uint64
		cands := 0
		for _, s := range at[n.ip] {
			if float64(s.BytesAcked) >= carried[n.conn] {
				cands++
				rt += uint64(s.Retransmits)
			}
		}
		if cands == 0 || (cands > 1 && rt > 0) {
			continue
		}
		if ev.connRetrans == nil {
			ev.connRetrans = map[string]uint64{}
		}
		ev.connRetrans[n.conn] = rt
	}
}

// lossOf is what the rest of n's receive can be: its connection's own
// evidence when the records matched, else the load's (and whether it is
// the load's).
func (ev *evidence) lossOf(n *node) (loss int, perLoad bool) {
	if rt, ok := ev.connRetrans[n.conn]; ok {
		if rt == 0 {
			return lossNone, false
		}
		return lossSome, false
	}
	return ev.loss, ev.loss == lossSome
}

// lossEvidence says what the rest of a receive can be called: the
// servers' TCP_INFO decides (no retransmission: the window); without it,
// a link that lost and dropped nothing also means the window; else the
// two are merged.
func lossEvidence(r *probe.Result, emulated bool) (int, string) {
	if s := r.ServerTCP; s != nil {
		if s.Sum.Retransmits == 0 {
			return lossNone, ""
		}
		return lossSome, ""
	}
	if emulated {
		d := r.Link.Down
		if d.PktsOffered > 0 && d.PktsLost+d.PktsQueueDrop == 0 {
			return lossNone, ""
		}
		if d.PktsOffered > 0 {
			return lossUnknown, "no server TCP_INFO (QUIC, SCTP or a remote server) and the link dropped packets"
		}
	}
	return lossUnknown, "neither server TCP_INFO nor link counters"
}

// rest splits what of a receive the link's rate does not explain.
// Without retransmissions (on n's connection when the records say which
// connection, else anywhere in the load) it is the sender's window. With them, loss
// recovery is what remains beyond slow start from the initial window to
// the response's size (an upper bound on the window's share, so the loss
// is never overstated); without the evidence the two are one category.
func (ev *evidence) rest(a *analysis, n *node, ms float64) map[string]float64 {
	if ms <= 0 {
		return nil
	}
	loss, perLoad := ev.lossOf(n)
	switch loss {
	case lossNone:
		return map[string]float64{probe.CatWindow: ms}
	case lossSome:
		if ev.rttMs > 0 {
			w := math.Min(ms, math.Max(ev.slowStartMs(n.bytes)-ev.linkMs(n.bytes), 0))
			if perLoad && ms > w {
				a.lossPerLoad = true
			}
			return map[string]float64{probe.CatWindow: w, probe.CatLoss: ms - w}
		}
		a.merged[probe.CatWindowOrLoss] = "the servers retransmitted but no round-trip time is known to model slow start"
	default:
		a.merged[probe.CatWindowOrLoss] = ev.why
	}
	return map[string]float64{probe.CatWindowOrLoss: ms}
}

// waitRest splits what of a wait for the first byte the upload, the
// round trip, the server's known think time and other bytes ahead of ours
// do not explain. TCP hands bytes over in order, so a segment lost ahead
// of the first byte on its connection (another stream's, or the response's
// own first one) holds that byte back until the retransmission arrives:
// on a connection that retransmitted, the rest is loss recovery; where the
// evidence cannot say (no TCP_INFO, losses on the link), the window or
// loss, merged as for receives; on a clean connection it stays the
// server's (processing beyond its think time, the machine's scheduling).
// The counters carry no time, so a connection that retransmitted only
// after this byte counts as lossy too.
func (ev *evidence) waitRest(a *analysis, n *node, ms float64) map[string]float64 {
	if ms <= 0 {
		return nil
	}
	loss, perLoad := ev.lossOf(n)
	switch loss {
	case lossNone:
		return map[string]float64{probe.CatServer: ms}
	case lossSome:
		a.lossPerLoad = a.lossPerLoad || perLoad
		return map[string]float64{probe.CatLoss: ms}
	}
	a.merged[probe.CatWindowOrLoss] = ev.why
	return map[string]float64{probe.CatWindowOrLoss: ms}
}

// slowStartMs is how long bytes take from the first byte with slow start
// from the initial window and no loss: a round trip per window until the
// window covers the path's bandwidth-delay product, then the link's rate.
func (ev *evidence) slowStartMs(bytes float64) float64 {
	cwnd := ev.iwSegs * mss
	bdp := ev.downBps / 8 * ev.rttMs / 1000
	t := 0.0
	for bytes > 0 {
		if cwnd >= bdp {
			return t + ev.linkMs(bytes)
		}
		sent := math.Min(cwnd, bytes)
		bytes -= sent
		if bytes <= 0 {
			return t + ev.linkMs(sent)
		}
		t += ev.rttMs
		cwnd *= 2
	}
	return t
}

// linkMs is how long bytes take at the downlink's rate, with TCP/IP
// headers (one 52-byte header per segment).
func (ev *evidence) linkMs(bytes float64) float64 {
	if ev.downBps <= 0 || bytes <= 0 {
		return 0
	}
	return ms(bytes * (mss + 52) / mss * 8 / ev.downBps)
}

// departures runs the uplink as one FIFO at its rate: each request's
// bytes join it when the request is sent, and n.departed is when its
// last byte left. The HAR's send phase ends when the client handed the
// request to its socket; the backlog after that is upload time too.
func (ev *evidence) departures(nodes []*node) {
	for _, n := range nodes {
		n.departed = math.NaN()
	}
	if ev.upBps <= 0 {
		return
	}
	order := make([]*node, 0, len(nodes))
	for _, n := range nodes {
		if !n.pushed && n.reqBytes > 0 {
			order = append(order, n)
		}
	}
	sendStart := func(n *node) float64 {
		return n.end - math.Max(n.t.Receive, 0) - math.Max(n.t.Wait, 0) - math.Max(n.t.Send, 0)
	}
	sort.SliceStable(order, func(i, j int) bool { return sendStart(order[i]) < sendStart(order[j]) })
	free := math.Inf(-1)
	ev.busy = map[string][][2]float64{}
	for _, n := range order {
		// 50 bytes of TLS record and framing per request, 52 of TCP/IP per segment.
		wire := (n.reqBytes + 50) * (mss + 52) / mss
		begin := math.Max(free, sendStart(n))
		free = begin + ms(wire*8/ev.upBps)
		n.departed = free
		ev.busy[n.conn] = append(ev.busy[n.conn], [2]float64{begin, free})
	}
}

// uplinkBusy is how much of [from, to] the uplink spent carrying the
// requests of connection conn: a request that waited in the client
// meanwhile waited for its connection's write path (a multiplexed
// session's other requests, a full socket buffer), so it waited for
// their upload. Another connection's upload does not hold it back: an
// HTTP/1.1 request waiting for a free connection waits for a response.
func (ev *evidence) uplinkBusy(conn string, from, to float64) float64 {
	t := 0.0
	for _, b := range ev.busy[conn] {
		if lo, hi := math.Max(b[0], from), math.Min(b[1], to); hi > lo {
			t += hi - lo
		}
	}
	return t
}

// ms converts seconds to milliseconds.
func ms(sec float64) float64 { return sec * 1000 }
