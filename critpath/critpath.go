// Package critpath explains a page load: it finds the load's critical
// path (the chain of exchanges, triggers and client gaps that ends with
// the page's last byte) and splits the PLT along it into categories
// (probe.Categories): connection set-up, client queueing, upload, round
// trips, server wait, transfer at the link's rate, head-of-line blocking,
// the sender's window, loss recovery, client compute and other client
// time. Every millisecond of PLT lands in exactly one category.
//
// Client compute in a gap between a parent's bytes and its child's
// request is the manifest's delay and the loader's modelled renderer
// costs, and for Chromium every stretch of the gap its renderer main
// thread was busy (probe.Result.MainThread, from a DevTools trace).
// Loss recovery is charged by the retransmissions of the connection that
// carried the resource: in its receive, what slow start does not explain;
// in its wait for the first byte, what the round trip, the server's think
// time (the manifest's page.ServerDelay, all the lab's servers wait) and
// other bytes ahead of it do not (TCP holds that byte back behind a lost
// segment until the retransmission arrives). The client's and the
// servers' TCP_INFO records match by address and port
// (probe.TCPInfo.Local, Peer), and the loader's connection ids are its
// HAR's. Chromium's HAR names DevTools' socket ids,
// so its entries go by their server address: the servers' one connection
// there (an h2 session per host), or several none of which retransmitted.
// Loads without that evidence (stores that kept no per-connection
// records, several HTTPS connections to a server some of which
// retransmitted) are charged by the whole
// load's retransmissions, which Breakdown.Merged says.
//
// It is pure logic over what a load records: its HAR (har.Document, whose
// entries carry the manifest's resource IDs for both clients), the page
// manifest (each resource's parent and how it is discovered), the
// condition (RTT, link rates) and the load's counters (the servers'
// TCP_INFO, the emulator's link counters). Where that evidence cannot
// tell two categories apart they are merged and named as such
// (Breakdown.Merged).
package critpath

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Renderer are the loader's renderer costs (loader.RendererCosts): the
// client compute that explains a gap or part of a request's queueing.
// Zero for Chromium, whose compute evidence is its traced main thread
// (probe.Result.MainThread) instead.
type Renderer struct {
	CommitDelay  time.Duration // the root's bytes reach the scanner this late
	DispatchCost time.Duration // each request's turn on the renderer's thread
}

// Input is one load and what is known about it.
type Input struct {
	Result   *probe.Result // PLT, condition, counters; HAR unless Doc is set
	Doc      *har.Document // nil: decoded from Result.HAR
	Manifest *page.Manifest
	Renderer Renderer
	// Metric is the probe.Metric whose chain is wanted: "" (or plt, tow)
	// ends at the last byte; fcp and lcp at that paint's resource
	// (paintend.go); si has none.
	Metric string
}

// Analyze is the load's breakdown. A failed load, or one without a HAR,
// gets a breakdown that says why it has none.
func Analyze(in Input) *probe.Breakdown {
	r := in.Result
	if r == nil {
		return &probe.Breakdown{None: "no result"}
	}
	if r.Failed {
		return &probe.Breakdown{None: "the load failed, so it has no critical path"}
	}
	doc := in.Doc
	if doc == nil {
		if len(r.HAR) == 0 {
			return &probe.Breakdown{None: "the load has no HAR"}
		}
		var err error
		if doc, err = decodeHAR(r.HAR); err != nil {
			return &probe.Breakdown{None: "the HAR does not decode: " + err.Error()}
		}
	}
	a, err := newAnalysis(doc, in.Manifest, r, in.Renderer)
	if err != nil {
		return &probe.Breakdown{None: err.Error()}
	}
	switch in.Metric {
	case "", probe.MetricPLT, probe.MetricToW:
		return a.walk(a.plt, a.last())
	}
	n, at, why := a.paintEnd(in.Metric, r.Paint)
	if n == nil {
		return &probe.Breakdown{None: why}
	}
	return a.walk(at, n)
}

// analysis is one load's entries on a common clock (ms since navigation
// start) and the evidence that splits their phases.
type analysis struct {
	nodes []*node
	byRes map[int]*node // resource ID -> its (first successful) entry
	m     *page.Manifest
	ev    evidence
	rend  Renderer
	busy  []probe.BusyInterval // Chromium's main thread (Result.MainThread)
	plt   float64
	// firstOnConn is each connection's first entry (by start); opener,
	// the first whose timings carry the connection's connect; firstByte,
	// when the connection's first response byte arrived (ms).
	firstOnConn, opener map[string]*node
	firstByte           map[string]float64

	ms     map[string]float64
	path   []probe.PathStep
	merged map[string]string // merged category -> why
	// lossPerLoad: some loss recovery was charged by the load's
	// retransmissions, not its connection's (evidence.lossOf).
	lossPerLoad bool
}

// node is one HAR entry on the load's clock.
type node struct {
	res        int // resource ID, -1 when not in the manifest
	url, conn  string
	host, ip   string // ip: the server's address as the HAR names it
	start, end float64
	t          har.Timings
	bytes      float64 // response bytes on the wire (headers and body)
	body       float64 // of which the body
	reqBytes   float64 // request bytes on the wire (estimated)
	pushed     bool
	// derived by the upload model: when the request's last byte left the
	// uplink's bottleneck (ms); NaN without an uplink rate.
	departed float64
}

func newAnalysis(doc *har.Document, m *page.Manifest, r *probe.Result, rend Renderer) (*analysis, error) {
	if len(doc.Log.Pages) == 0 {
		return nil, fmt.Errorf("the HAR has no page")
	}
	t0, err := time.Parse(time.RFC3339Nano, doc.Log.Pages[0].StartedDateTime)
	if err != nil {
		return nil, fmt.Errorf("the HAR's page start: %w", err)
	}
	a := &analysis{byRes: map[int]*node{}, m: m, rend: rend, busy: r.MainThread, plt: r.PLTms,
		ms: map[string]float64{}, merged: map[string]string{}}
	a.ev = newEvidence(r)
	headerRatio := 1.0
	if r.HeaderBytesRaw > 0 && r.HeaderBytesCompressed > 0 {
		headerRatio = float64(r.HeaderBytesCompressed) / float64(r.HeaderBytesRaw)
	}
	for i := range doc.Log.Entries {
		e := &doc.Log.Entries[i]
		if e.Error != "" {
			continue
		}
		st, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			continue
		}
		n := &node{res: -1, url: e.Request.URL, conn: e.Connection, host: hostOf(e.Request.URL), ip: e.ServerIPAddress, t: e.Timings, pushed: e.Pushed}
		n.start = float64(st.Sub(t0)) / float64(time.Millisecond)
		n.end = n.start + e.Time
		n.bytes = responseBytes(e)
		n.body = float64(max(e.Response.BodySize, 0))
		n.reqBytes = requestBytes(e) * headerRatio
		if e.ResourceID != nil {
			n.res = *e.ResourceID
			if _, dup := a.byRes[n.res]; !dup {
				a.byRes[n.res] = n
			}
		}
		a.nodes = append(a.nodes, n)
	}
	if len(a.nodes) == 0 {
		return nil, fmt.Errorf("the HAR has no completed entry")
	}
	if !(a.plt > 0) {
		return nil, fmt.Errorf("the load has no PLT")
	}
	a.firstOnConn, a.opener, a.firstByte = map[string]*node{}, map[string]*node{}, map[string]float64{}
	for _, n := range a.nodes {
		if f := a.firstOnConn[n.conn]; f == nil || n.start < f.start {
			a.firstOnConn[n.conn] = n
		}
		if f := a.opener[n.conn]; pos(n.t.Connect) > 0 && (f == nil || n.start < f.start) {
			a.opener[n.conn] = n
		}
		if n.pushed {
			continue // no request: its wait is not the server's answer
		}
		if fb, ok := a.firstByte[n.conn]; !ok || n.end-pos(n.t.Receive) < fb {
			a.firstByte[n.conn] = n.end - pos(n.t.Receive)
		}
	}
	a.ev.departures(a.nodes)
	a.ev.byServerAddress(r, a.nodes)
	return a, nil
}

// last is the entry whose end is the PLT: the one ending closest to it
// (Chromium's PLT leaves the favicon out, the loader's counts every
// fetch), a page resource rather than an unlisted fetch ending within a
// millisecond of it.
func (a *analysis) last() *node {
	var best *node
	score := func(n *node) float64 {
		s := math.Abs(n.end - a.plt)
		if n.res < 0 {
			s++
		}
		return s
	}
	for _, n := range a.nodes {
		if best == nil || score(n) < score(best) {
			best = n
		}
	}
	return best
}

// walk follows the critical path back from n, the exchange that ends it,
// and cut, the time it ends (PLT's last byte, or a paint), to navigation
// start. Each step covers [trigger, cut] of the clock exactly: the part
// of an exchange that lies before cut, then the gap back to what
// triggered it, so the categories add up to the metric by construction.
func (a *analysis) walk(cut float64, n *node) *probe.Breakdown {
	seen := map[*node]bool{}
	var steps []probe.PathStep
	for n != nil && !seen[n] && cut > 0 {
		seen[n] = true
		end := math.Min(n.end, cut)
		if cut > end {
			a.add(probe.CatOther, cut-end) // after the last byte: the client's own bookkeeping
		}
		start := math.Max(math.Min(n.start, end), 0)
		a.exchange(n, start, end)
		parent, trigger, kind, explained := a.triggerOf(n)
		trigger = math.Max(math.Min(trigger, start), 0)
		gap := start - trigger
		compute := a.computeIn(trigger, start, explained)
		a.add(probe.CatCompute, compute)
		a.add(probe.CatOther, gap-compute)
		steps = append(steps, probe.PathStep{ResourceID: n.res, URL: n.url, StartMs: round3(start), EndMs: round3(end), Trigger: kind})
		cut, n = trigger, parent
	}
	a.add(probe.CatOther, cut) // navigation start to the first step
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	b := &probe.Breakdown{Ms: map[string]float64{}, Path: steps}
	for c, v := range a.ms {
		if v > 0 {
			b.Ms[c] = round3(v)
		}
	}
	for _, c := range probe.Categories {
		if why, ok := a.merged[c]; ok && a.ms[c] > 0 {
			b.Merged = append(b.Merged, probe.CategoryTitle(c)+": "+why)
		}
	}
	if a.lossPerLoad && a.ms[probe.CatLoss] > 0 {
		b.Merged = append(b.Merged, probe.CategoryTitle(probe.CatLoss)+": "+perLoadLoss)
	}
	return b
}

// triggerOf is what made n start: its parent's entry, the time the parent
// triggered it (ms), the kind of trigger, and how much of the gap before
// n's start the manifest's delay and the renderer's costs explain. A
// resource without a parent on the path (the root, an unlisted fetch) is
// triggered by navigation start.
func (a *analysis) triggerOf(n *node) (parent *node, at float64, kind string, explained float64) {
	if a.m == nil || n.res < 0 || n.res >= len(a.m.Resources) {
		return nil, 0, "", 0
	}
	r := &a.m.Resources[n.res]
	p := a.byRes[r.Parent]
	if r.Parent < 0 || p == nil {
		return nil, 0, r.Discovery.Kind, 0
	}
	explained = float64(r.Discovery.Delay) / float64(time.Millisecond)
	switch r.Discovery.Kind {
	case page.KindRef:
		if r.Parent == 0 {
			explained += float64(a.rend.CommitDelay) / float64(time.Millisecond)
		}
		// The reference's bytes arrive during the parent's receive: no
		// earlier than if the parent's bytes arrived evenly over it, and
		// as late as the child's start less the compute that explains
		// its gap (other streams' bytes, a push, may hold the parent's
		// back), but not after the parent ended.
		recv := math.Max(p.t.Receive, 0)
		size := float64(a.m.Resources[r.Parent].Size)
		frac := 1.0
		if size > 0 {
			frac = math.Min(float64(r.Discovery.Offset+len(a.m.RefURL(n.res)))/size, 1)
		}
		even := p.end - recv + frac*recv
		at = math.Min(math.Max(even, n.start-explained), p.end)
	default: // onload, redirect: after the parent completed (and ran)
		at = p.end
	}
	return p, math.Max(at, p.start), r.Discovery.Kind, explained
}

// computeIn is how much of the gap [from, to] before a request is client
// compute: the last `explained` ms of it (the manifest's delay, the
// renderer's modelled costs) together with every stretch the traced main
// thread was busy in it (Chromium: parsing the parent, running its
// script, or any other task that kept the thread from issuing the request).
func (a *analysis) computeIn(from, to, explained float64) float64 {
	if to <= from {
		return 0
	}
	iv := [][2]float64{{math.Max(to-explained, from), to}}
	for _, b := range a.busy {
		if lo, hi := math.Max(b.StartMs, from), math.Min(b.EndMs, to); hi > lo {
			iv = append(iv, [2]float64{lo, hi})
		}
	}
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	total, end := 0.0, from
	for _, x := range iv {
		if lo := math.Max(x[0], end); x[1] > lo {
			total += x[1] - lo
			end = x[1]
		}
	}
	return math.Min(total, to-from)
}

func (a *analysis) add(cat string, ms float64) {
	if ms > 0 {
		a.ms[cat] += ms
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
