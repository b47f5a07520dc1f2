package critpath

import (
	"math"
	"net/url"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// piece is one phase of an exchange, split into categories (ms).
type piece struct {
	ms    float64
	split map[string]float64 // adds up to ms
}

// exchange attributes the part [from, to] of n's exchange. Its phases lie
// end to end from n.start in HAR order (blocked, dns, connect, tls, send,
// wait, receive); what of [from, to] they do not cover is other client
// time, and a phase cut by the window counts in proportion.
func (a *analysis) exchange(n *node, from, to float64) {
	if to <= from {
		return
	}
	if n.pushed {
		a.add(probe.CatPush, to-from) // no request: the client waited for the server's push
		return
	}
	t := n.start
	covered := 0.0
	for _, p := range a.pieces(n) {
		lo, hi := math.Max(t, from), math.Min(t+p.ms, to)
		if hi > lo && p.ms > 0 {
			f := (hi - lo) / p.ms
			for c, v := range p.split {
				a.add(c, v*f)
			}
			covered += hi - lo
		}
		t += p.ms
	}
	a.add(probe.CatOther, to-from-covered)
}

// pieces are n's phases, each split by the evidence. Blocked is the
// loader's dispatch cost (compute), then the time the uplink carried the
// connection's other requests meanwhile (upload), then the connection's
// own set-up where the request waited through it (setupWait), and the
// rest client queueing; dns, connect and tls are themselves; send is
// upload.
func (a *analysis) pieces(n *node) []piece {
	tm := n.t
	one := func(cat string, ms float64) piece { return piece{ms, map[string]float64{cat: ms}} }
	blocked := pos(tm.Blocked)
	compute := math.Min(blocked, float64(a.rend.DispatchCost)/float64(time.Millisecond))
	upload := math.Min(blocked-compute, a.ev.uplinkBusy(n.conn, n.start, n.start+blocked))
	connect, tls := a.setupWait(n, blocked-compute-upload)
	ssl := math.Min(pos(tm.SSL), pos(tm.Connect))
	return []piece{
		{blocked, map[string]float64{probe.CatCompute: compute, probe.CatSend: upload, probe.CatConnect: connect, probe.CatTLS: tls,
			probe.CatQueued: blocked - compute - upload - connect - tls}},
		one(probe.CatDNS, pos(tm.DNS)),
		one(probe.CatConnect, pos(tm.Connect)-ssl),
		one(probe.CatTLS, ssl),
		one(probe.CatSend, pos(tm.Send)),
		a.waitPiece(n, pos(tm.Wait)),
		a.receivePiece(n, pos(tm.Receive)),
	}
}

// pos is v, or 0 when v is negative (a HAR's -1: not applicable).
func pos(v float64) float64 { return math.Max(v, 0) }

// setupWait is the part of n's blocked time, up to most ms, that its
// connection spent in TCP connect and in the TLS handshake, set up for
// the connection's first request. A multiplexed protocol's later
// requests to a host wait through the one session's set-up that
// HTTPS's requests spend on connections of their own, timed there as
// their connect and tls: counted as queueing, SPDY's breakdown would
// show a client cost of about the handshake (+0.3 s at 100 ms) against
// a saving in set-up by as much. The set-up is timed on the entry that
// opened the connection (a.opener), which need not be the first to
// start: requests made in the same instant are queued in any order.
func (a *analysis) setupWait(n *node, most float64) (connect, tls float64) {
	f := a.opener[n.conn]
	if f == nil || f == n || most <= 0 {
		return 0, 0
	}
	from, to := n.start, n.start+pos(n.t.Blocked)
	at := f.start + pos(f.t.Blocked) + pos(f.t.DNS)
	total := pos(f.t.Connect)
	ssl := math.Min(pos(f.t.SSL), total)
	overlap := func(lo, hi float64) float64 { return math.Max(math.Min(hi, to)-math.Max(lo, from), 0) }
	connect = math.Min(overlap(at, at+total-ssl), most)
	tls = math.Min(overlap(at+total-ssl, at+total), most-connect)
	return connect, tls
}

// waitPiece splits the wait for the first byte: first what the request's
// bytes still needed to leave the uplink's bottleneck (upload), then the
// connection's handshake where it is not timed as a connect
// (evidence.handshakeInWait: one round trip of the connection's first
// wait), then one round trip, then the server's think time where the manifest gives it
// (thinkMs; other bytes the link carried meanwhile did not hold ours
// back), then other bytes the downlink carried before ours (head-of-line
// on the connection, sharing on the link), then the connection's slow
// start where the evidence tells window from loss (rampMs), and the rest
// is the server's or loss recovery, as the connection's evidence says
// (evidence.waitRest).
func (a *analysis) waitPiece(n *node, w float64) piece {
	p := piece{w, map[string]float64{}}
	left := w
	take := func(cat string, ms float64) {
		ms = math.Max(math.Min(ms, left), 0)
		p.split[cat] += ms
		left -= ms
	}
	sendEnd := n.end - math.Max(n.t.Receive, 0) - w
	if !math.IsNaN(n.departed) {
		take(probe.CatSend, n.departed-sendEnd)
	}
	if a.ev.rttMs <= 0 {
		a.merged[probe.CatWait] = a.ev.noRTT
		take(probe.CatWait, left)
		return p
	}
	if a.ev.handshakeInWait && a.firstOnConn[n.conn] == n {
		take(probe.CatConnect, a.ev.rttMs) // the association's INIT round trip
	}
	take(probe.CatRTT, a.ev.rttMs)
	take(probe.CatServer, a.thinkMs(n))
	if a.ev.downBps > 0 {
		ready := sendEnd + (w - left)
		hol, share := a.otherBytes(n, ready, ready+left)
		take(probe.CatHOL, a.ev.linkMs(hol))
		take(probe.CatShare, a.ev.linkMs(share))
		if loss, _ := a.ev.lossOf(n); loss != lossUnknown {
			take(probe.CatWindow, a.rampMs(n, ready))
		}
	}
	for c, v := range a.ev.waitRest(a, n, left) {
		p.split[c] += v
	}
	return p
}

// rampMs is how long n's first byte waited, after ready (the request at
// the server, a round trip and the server's think time), for its
// connection's slow start: the connection's bytes that arrived between its
// first response byte and n's could not have come sooner than slow start
// from the initial window lets them (evidence.slowStartMs), so n's first
// byte could not either. Those are round trips the server spent waiting
// for acknowledgements with our bytes queued behind the others', not
// thinking. On a connection's first response, or one already past its
// ramp (a keep-alive connection's later request), it is 0. The ramp is
// counted from the first byte as if the connection never ran out of data,
// so it is never overstated.
func (a *analysis) rampMs(n *node, ready float64) float64 {
	first, ok := a.firstByte[n.conn]
	at := n.end - pos(n.t.Receive)
	if !ok || n.conn == "" || at <= first {
		return 0
	}
	ahead, _ := a.otherBytes(n, first, at)
	seg := ahead + mss // the segment carrying n's first byte
	idle := a.ev.slowStartMs(seg) - a.ev.linkMs(seg)
	return math.Max(first+idle-ready, 0)
}

// thinkMs is how long the lab's server thought before answering n: the
// manifest's server delay (page.ServerDelay), 0 for a fetch the manifest
// does not list (no server delays one) or without a manifest.
func (a *analysis) thinkMs(n *node) float64 {
	if a.m == nil || n.res < 0 || n.res >= len(a.m.Resources) {
		return 0
	}
	return float64(page.ServerDelay(a.m.Resources[n.res].Headers)) / float64(time.Millisecond)
}

// receivePiece splits the receive: the response's bytes at the link's
// rate, other streams' bytes on the same connection (head-of-line) and
// other connections' bytes on the same bottleneck (sharing) at that rate,
// and the rest is the sender's window or loss recovery, as the evidence
// allows (evidence.rest).
func (a *analysis) receivePiece(n *node, r float64) piece {
	p := piece{r, map[string]float64{}}
	if a.ev.downBps <= 0 {
		a.merged[probe.CatReceive] = a.ev.noRate
		p.split[probe.CatReceive] = r
		return p
	}
	left := r
	take := func(cat string, ms float64) {
		ms = math.Max(math.Min(ms, left), 0)
		p.split[cat] += ms
		left -= ms
	}
	take(probe.CatTransfer, a.ev.linkMs(n.bytes))
	hol, share := a.otherBytes(n, n.end-r, n.end)
	take(probe.CatHOL, a.ev.linkMs(hol))
	take(probe.CatShare, a.ev.linkMs(share))
	for c, v := range a.ev.rest(a, n, left) {
		p.split[c] += v
	}
	return p
}

// otherBytes are the response bytes of other entries that arrived during
// [from, to], assuming each arrived evenly over its receive: those on n's
// connection (head-of-line) and those on other connections through the
// same bottleneck (every connection on a shared link, else n's host's).
func (a *analysis) otherBytes(n *node, from, to float64) (hol, share float64) {
	if to <= from {
		return 0, 0
	}
	for _, o := range a.nodes {
		if o == n {
			continue
		}
		sameConn := o.conn != "" && o.conn == n.conn && o.host == n.host
		if !sameConn && !a.ev.shared && o.host != n.host {
			continue
		}
		rs := o.end - math.Max(o.t.Receive, 0)
		var b float64
		switch {
		case o.end <= from || rs >= to:
			continue
		case o.end-rs <= 0:
			b = o.bytes
		default:
			b = o.bytes * (math.Min(o.end, to) - math.Max(rs, from)) / (o.end - rs)
		}
		if sameConn {
			hol += b
		} else {
			share += b
		}
	}
	return hol, share
}

// responseBytes are an entry's response bytes on the wire: headers and
// body as transferred (the decoded size when the transfer size is not
// known).
func responseBytes(e *har.Entry) float64 {
	body := e.Response.BodySize
	if body < 0 {
		body = e.Response.Content.Size
	}
	return float64(max(body, 0) + max(e.Response.HeadersSize, 0))
}

// requestBytes are an entry's request bytes before header compression:
// its recorded header size, or its headers and request line counted.
func requestBytes(e *har.Entry) float64 {
	if e.Pushed {
		return 0
	}
	if e.Request.HeadersSize > 0 {
		return float64(e.Request.HeadersSize + max(e.Request.BodySize, 0))
	}
	n := len(e.Request.URL) + 16 // method, version, line ends
	for _, h := range e.Request.Headers {
		n += len(h.Name) + len(h.Value) + 4
	}
	return float64(n)
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
