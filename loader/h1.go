package loader

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/client"
	"github.com/spdylab/spdylab/har"
)

// h1 is HTTPS as Chrome did it: per host a pool of at most MaxConnsPerHost
// persistent HTTP/1.1 connections, opened on demand (a new one only when
// every open one is busy), no pipelining, waiting requests served in
// priority order, then in the order they were discovered. A connection
// that finishes connecting serves whichever request is at the head of the
// queue then (late binding), as Chromium's socket pools do.
type h1 struct {
	l     *load
	mu    sync.Mutex
	pools map[string]*h1Pool
	hdr   atomic.Int64
}

func newH1(l *load) *h1 { return &h1{l: l, pools: map[string]*h1Pool{}} }

type h1Pool struct {
	h       *h1
	org     origin
	max     int
	mu      sync.Mutex
	idle    []*h1Conn
	waiters waitQueue
	open    int // connections open or being opened
}

type h1Conn struct {
	c    *connection
	h    *client.H1Conn
	used int // requests completed on it
	// idled: taken from the idle list, so the server may have closed it
	// meanwhile (its keep-alive timeout), used or not.
	idled bool
}

type acquired struct {
	hc  *h1Conn
	err error
}

type waiter struct {
	e     *entry
	ch    chan acquired // buffered: a hand-off never blocks the giver
	index int
}

// waitQueue orders waiting requests by priority, then discovery order.
type waitQueue []*waiter

func (q waitQueue) Len() int { return len(q) }
func (q waitQueue) Less(i, j int) bool {
	if q[i].e.priority != q[j].e.priority {
		return q[i].e.priority < q[j].e.priority
	}
	return q[i].e.seq < q[j].e.seq
}
func (q waitQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *waitQueue) Push(x any) {
	w := x.(*waiter)
	w.index = len(*q)
	*q = append(*q, w)
}
func (q *waitQueue) Pop() any {
	old := *q
	w := old[len(old)-1]
	*q = old[:len(old)-1]
	w.index = -1
	return w
}

func (h *h1) pool(host string) *h1Pool {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.pools[host]
	if !ok {
		p = &h1Pool{h: h, org: h.l.origins[host], max: h.l.opt.MaxConnsPerHost}
		h.pools[host] = p
	}
	return p
}

func (h *h1) pushed(*entry) (*http.Response, *connection, bool) { return nil, nil, false }

func (h *h1) headerBytes() (int64, int64) { n := h.hdr.Load(); return n, n }

func (h *h1) shutdown() {} // the load closes the sockets; HTTP/1.1 has nothing to say first

// acquire waits for a connection for e, opening one if the pool may grow.
func (p *h1Pool) acquire(ctx context.Context, e *entry) (*h1Conn, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		// The most recently used idle socket, as Chromium picks it: its
		// congestion window is the most likely to be warm.
		hc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		hc.idled = true
		return hc, nil
	}
	w := &waiter{e: e, ch: make(chan acquired, 1)}
	heap.Push(&p.waiters, w)
	if p.open < p.max {
		p.open++
		p.h.l.wg.Add(1)
		go p.dial(ctx)
	}
	p.mu.Unlock()
	select {
	case a := <-w.ch:
		return a.hc, a.err
	case <-ctx.Done():
		p.mu.Lock()
		if w.index >= 0 {
			heap.Remove(&p.waiters, w.index)
		}
		p.mu.Unlock()
		select {
		case a := <-w.ch: // handed a connection at the last moment
			if a.hc != nil {
				p.release(a.hc, false)
			}
		default:
		}
		return nil, context.Cause(ctx)
	}
}

func (p *h1Pool) dial(ctx context.Context) {
	defer p.h.l.wg.Done()
	c, err := p.h.l.dialer.open(ctx, p.org, "http/1.1")
	if err != nil {
		p.mu.Lock()
		p.open--
		var w *waiter
		if p.waiters.Len() > 0 {
			w = heap.Pop(&p.waiters).(*waiter)
		}
		p.mu.Unlock()
		if w != nil {
			w.ch <- acquired{err: err}
		}
		return
	}
	p.release(&h1Conn{c: c, h: client.NewH1Conn(c.stream)}, true)
}

// closeIdle closes every idle connection of the pool.
func (p *h1Pool) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.open -= len(idle)
	p.mu.Unlock()
	for _, hc := range idle {
		hc.c.Close()
	}
}

// release returns a connection after a request (or after connecting): it
// goes to the first waiting request, else it idles. A connection that can
// not be reused is closed and, if requests wait, replaced.
func (p *h1Pool) release(hc *h1Conn, reusable bool) {
	p.mu.Lock()
	if !reusable {
		p.open--
		hc.c.Close()
		if p.waiters.Len() > 0 && p.open < p.max {
			p.open++
			p.h.l.wg.Add(1)
			go p.dial(p.h.l.ctx)
		}
		p.mu.Unlock()
		return
	}
	if p.waiters.Len() > 0 {
		w := heap.Pop(&p.waiters).(*waiter)
		p.mu.Unlock()
		w.ch <- acquired{hc: hc}
		return
	}
	p.idle = append(p.idle, hc)
	p.mu.Unlock()
}

func (h *h1) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	p := h.pool(e.url.Hostname())
	for attempt := 0; ; attempt++ {
		hc, err := p.acquire(ctx, e)
		if err != nil {
			return err
		}
		e.mu.Lock()
		e.conn = hc.c
		e.setup = hc.used == 0 && !e.queued.After(hc.c.start) && hc.c.claimSetup()
		e.mu.Unlock()
		reused := hc.used > 0 || hc.idled
		retry, reusable, err := h.roundTrip(e, hc, body)
		if err == nil {
			hc.used++
		}
		p.release(hc, err == nil && reusable)
		if err == nil {
			return nil
		}
		// A kept-alive connection the server closed before answering:
		// browsers resend the request on a fresh connection once.
		if retry && reused && attempt == 0 && ctx.Err() == nil {
			// The server closed it while it idled, and likely the
			// host's other idle ones: a browser's pool finds them
			// closed before reuse, so the resend takes a fresh one.
			p.closeIdle()
			e.mu.Lock()
			e.conn, e.setup = nil, false
			e.sendStart, e.sendEnd = time.Time{}, time.Time{}
			e.mu.Unlock()
			continue
		}
		return err
	}
}

// roundTrip sends e's request on hc and reads the response. retry reports a
// failure before any response byte arrived; reusable whether the
// connection may carry another request.
func (h *h1) roundTrip(e *entry, hc *h1Conn, body func(io.Reader) (int64, error)) (retry, reusable bool, err error) {
	hdrs := append([]har.NameValue{
		{Name: "Host", Value: e.url.Host},
		{Name: "Connection", Value: "keep-alive"},
	}, requestHeaders(e)...)
	fields := make([]client.Field, len(hdrs))
	for i, kv := range hdrs {
		fields[i] = client.Field{Name: kv.Name, Value: kv.Value}
	}
	sent, err := h.l.dispatch.dispatch(h.l.ctx)
	if err != nil {
		return false, false, err
	}
	if sent.IsZero() {
		sent = time.Now()
	}
	e.mu.Lock()
	e.reqHeaders = hdrs
	e.sendStart = sent
	e.mu.Unlock()
	n, err := hc.h.SendHead(http.MethodGet, requestPath(e), fields)
	h.hdr.Add(n)
	e.mu.Lock()
	e.reqHdrSize = n
	e.mu.Unlock()
	if err != nil {
		return client.ConnDropped(err), false, err
	}
	now := time.Now()
	e.mu.Lock()
	e.sendEnd = now
	e.mu.Unlock()

	if err := hc.h.AwaitResponse(); err != nil {
		if client.ConnDropped(err) {
			return true, false, fmt.Errorf("connection closed before any response byte: %w", err)
		}
		return false, false, fmt.Errorf("waiting for the response: %w", err)
	}
	now = time.Now()
	e.mu.Lock()
	e.firstByte = now
	e.mu.Unlock()

	resp, err := hc.h.ReadResponse(http.MethodGet)
	if err != nil {
		return false, false, err
	}
	h.hdr.Add(resp.HeadBytes)
	harHdrs := make([]har.NameValue, len(resp.Fields))
	for i, f := range resp.Fields {
		harHdrs[i] = har.NameValue{Name: f.Name, Value: f.Value}
	}
	e.mu.Lock()
	e.status = resp.StatusCode
	e.statusText = statusText(&resp.Response)
	e.respHeaders = harHdrs
	e.respHdrSize = resp.HeadBytes
	e.mime = resp.Header.Get("Content-Type")
	e.mu.Unlock()

	if err := readBody(e, resp.Header.Get("Content-Encoding"), resp.Body, body); err != nil {
		return false, false, fmt.Errorf("reading the response body: %w", err)
	}
	if err := hc.h.Finish(resp); err != nil {
		return false, false, err
	}
	e.mu.Lock()
	e.end = time.Now()
	e.mu.Unlock()
	return false, resp.Reusable, nil
}
