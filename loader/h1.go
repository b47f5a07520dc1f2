package loader

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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
	br   *bufio.Reader
	used int // requests completed on it
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
	p.release(&h1Conn{c: c, br: bufio.NewReaderSize(c.tls, 32<<10)}, true)
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
		reused := hc.used > 0
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
	hdrs := append([]HARNameValue{
		{Name: "Host", Value: e.url.Host},
		{Name: "Connection", Value: "keep-alive"},
	}, requestHeaders(e)...)
	var req bytes.Buffer
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\n", requestPath(e))
	for _, kv := range hdrs {
		fmt.Fprintf(&req, "%s: %s\r\n", kv.Name, kv.Value)
	}
	req.WriteString("\r\n")

	e.mu.Lock()
	e.httpVersion = "HTTP/1.1"
	e.reqHeaders = hdrs
	e.reqHdrSize = int64(req.Len())
	e.sendStart = time.Now()
	e.mu.Unlock()
	h.hdr.Add(int64(req.Len()))
	if _, err := hc.c.tls.Write(req.Bytes()); err != nil {
		return isConnDrop(err), false, fmt.Errorf("sending request: %w", err)
	}
	now := time.Now()
	e.mu.Lock()
	e.sendEnd = now
	e.mu.Unlock()

	if _, err := hc.br.Peek(1); err != nil {
		if isConnDrop(err) {
			return true, false, fmt.Errorf("connection closed before any response byte: %w", err)
		}
		return false, false, fmt.Errorf("waiting for the response: %w", err)
	}
	now = time.Now()
	e.mu.Lock()
	e.firstByte = now
	e.mu.Unlock()

	resp, hdrSize, err := readResponseHead(hc.br)
	h.hdr.Add(hdrSize)
	if err != nil {
		return false, false, err
	}
	e.mu.Lock()
	e.status = resp.StatusCode
	e.statusText = statusText(&resp.Response)
	e.respHeaders = resp.harHeaders
	e.respHdrSize = hdrSize
	e.mime = resp.Header.Get("Content-Type")
	e.mu.Unlock()

	var r io.Reader
	reusable = resp.ProtoAtLeast(1, 1) && !headerHasToken(resp.Header, "Connection", "close")
	chunked := headerHasToken(resp.Header, "Transfer-Encoding", "chunked")
	switch {
	case chunked:
		r = httputil.NewChunkedReader(hc.br)
	case resp.Header.Get("Content-Length") != "":
		n, perr := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("Content-Length")), 10, 64)
		if perr != nil || n < 0 {
			return false, false, fmt.Errorf("bad Content-Length %q", resp.Header.Get("Content-Length"))
		}
		r = &exactReader{r: hc.br, left: n, total: n}
	default:
		r = hc.br // delimited by the end of the connection
		reusable = false
	}
	if err := readBody(e, resp.Header.Get("Content-Encoding"), r, body); err != nil {
		return false, false, fmt.Errorf("reading the response body: %w", err)
	}
	// A consumer may stop early (an HTML scan stops at EOF of the decoder,
	// not necessarily of the framing); drain what the framing still holds.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return false, false, fmt.Errorf("reading the response body: %w", err)
	}
	if chunked {
		// The chunked reader stops after the last chunk; the trailer
		// section (usually just CRLF) still belongs to this response.
		var trailer int64
		for {
			line, err := readLine(hc.br, &trailer)
			if err != nil {
				return false, false, fmt.Errorf("reading the chunked trailer: %w", err)
			}
			if line == "" {
				break
			}
		}
	}
	e.mu.Lock()
	e.end = time.Now()
	e.mu.Unlock()
	return false, reusable, nil
}

// isConnDrop is a connection the server closed or reset.
func isConnDrop(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// exactReader reads exactly total bytes of a Content-Length body; the
// connection ending earlier is an error saying how much arrived.
type exactReader struct {
	r           io.Reader
	left, total int64
}

func (x *exactReader) Read(p []byte) (int, error) {
	if x.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > x.left {
		p = p[:x.left]
	}
	n, err := x.r.Read(p)
	x.left -= int64(n)
	if x.left == 0 {
		return n, nil
	}
	if err == io.EOF {
		return n, fmt.Errorf("connection closed after %d of %d body bytes (Content-Length): %w", x.total-x.left, x.total, io.ErrUnexpectedEOF)
	}
	return n, err
}

// h1Response is a parsed status line and header.
type h1Response struct {
	http.Response
	harHeaders []HARNameValue
}

const maxHeaderBytes = 256 << 10

// readResponseHead parses the status line and header fields, counting their
// exact bytes on the wire (http.ReadResponse cannot tell that). Interim 1xx
// responses are skipped and counted.
func readResponseHead(br *bufio.Reader) (*h1Response, int64, error) {
	var size int64
	for {
		line, err := readLine(br, &size)
		if err != nil {
			return nil, size, fmt.Errorf("reading the status line: %w", err)
		}
		proto, rest, _ := strings.Cut(line, " ")
		codeStr, reason, _ := strings.Cut(rest, " ")
		major, minor, ok := http.ParseHTTPVersion(proto)
		code, cerr := strconv.Atoi(codeStr)
		if !ok || cerr != nil || len(codeStr) != 3 {
			return nil, size, fmt.Errorf("malformed status line %q", truncate(line, 80))
		}
		resp := &h1Response{Response: http.Response{
			Status: codeStr + " " + reason, StatusCode: code, Proto: proto,
			ProtoMajor: major, ProtoMinor: minor, Header: http.Header{},
		}}
		for {
			line, err := readLine(br, &size)
			if err != nil {
				return nil, size, fmt.Errorf("reading the response header: %w", err)
			}
			if line == "" {
				break
			}
			name, value, ok := strings.Cut(line, ":")
			if !ok || name == "" || strings.ContainsAny(name, " \t") {
				return nil, size, fmt.Errorf("malformed header line %q", truncate(line, 80))
			}
			value = strings.TrimSpace(value)
			resp.Header.Add(name, value)
			resp.harHeaders = append(resp.harHeaders, HARNameValue{Name: name, Value: value})
		}
		if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
			continue
		}
		if resp.harHeaders == nil {
			resp.harHeaders = []HARNameValue{}
		}
		return resp, size, nil
	}
}

func readLine(br *bufio.Reader, size *int64) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		*size += int64(len(chunk))
		buf = append(buf, chunk...)
		if *size > maxHeaderBytes {
			return "", fmt.Errorf("response header larger than %d bytes", maxHeaderBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(buf), "\r\n"), nil
	}
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
