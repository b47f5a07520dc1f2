package loader

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/spdylab/spdylab/client"
)

// h2 is HTTP/2 with one connection per host, on the client package's
// HTTP/2 connection (x/net/http2's Framer and HPACK) over a TLS connection
// the loader dialled itself, as the SPDY path is built on package spdy:
// Chrome's priority chain (or RFC 9218 headers), server push accepted and
// used when the page asks for the URL, requests beyond the server's
// MAX_CONCURRENT_STREAMS queued, bodies streamed to the scanner as DATA
// arrives.
type h2 struct {
	l  *load
	ss *sessions

	mu    sync.Mutex
	conns map[*connection]*client.H2Conn
}

// defaultWindow is SPDY's and HTTP/2's default initial stream window.
const defaultWindow = 65535

func newH2(l *load) *h2 {
	h := &h2{l: l, conns: map[*connection]*client.H2Conn{}}
	h.ss = newSessions(l, h.open, l.raceConnects())
	return h
}

func (h *h2) open(ctx context.Context, org origin) (*muxSession, error) {
	c, err := h.l.dialer.open(ctx, org, "h2")
	if err != nil {
		return nil, err
	}
	win, session := h.l.opt.windows(defaultWindow)
	cc, err := client.NewH2Conn(c.stream, client.H2Config{
		StreamWindow:      int32(win),
		ConnWindow:        int32(session),
		Priorities:        h.l.opt.H2Priorities,
		WholeDataFrames:   h.l.opt.WholeDataFrames,
		AwaitPeerSettings: h.l.opt.AwaitPeerSettings,
		// Every push is accepted; whether it is used depends on the page
		// asking for its URL.
		OnPush: func(*client.PushPromise) bool { return true },
	})
	if err != nil {
		return nil, c.sessionFailed(ctx, err)
	}
	h.mu.Lock()
	h.conns[c] = cc
	h.mu.Unlock()
	return &muxSession{c: c, rt: cc, close: cc.Close, usable: cc.CanTakeNewRequest}, nil
}

func (h *h2) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	return muxFetch(ctx, h.l, h.ss, e, func(c context.Context) context.Context {
		return client.WithPriority(c, e.priority)
	}, body)
}

// pushed claims a push for e's URL from a connection to e's host (with
// several sessions per host, from any of them).
func (h *h2) pushed(e *entry) (*http.Response, *connection, bool) {
	for _, ms := range h.ss.ready(e.url.Hostname()) {
		h.mu.Lock()
		cc := h.conns[ms.c]
		h.mu.Unlock()
		if resp, ok := cc.Pushed(e.url.String()); ok {
			return resp, ms.c, true
		}
	}
	return nil, nil, false
}

// headerBytes adds up the connections' header blocks in both directions:
// compressed is the HPACK output on the wire, raw the same header lists as
// "name: value\r\n" lines (pseudo-headers included), comparable to
// HTTP/1.1's header bytes.
func (h *h2) headerBytes() (raw, compressed int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cc := range h.conns {
		st := cc.Stats()
		raw += st.HeaderBytesSentRaw + st.HeaderBytesReceivedRaw
		compressed += st.HeaderBytesSentCompressed + st.HeaderBytesReceivedCompressed
	}
	return raw, compressed
}

func (h *h2) shutdown() { h.ss.shutdown() }
