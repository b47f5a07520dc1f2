package loader

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
)

// h2 is HTTP/2 with one connection per host, through x/net/http2's client
// connection over a TLS connection the loader dialled itself (so that the
// load controls connection setup and timing, not a Transport's pool).
type h2 struct {
	l  *load
	ss *sessions
	// Header bytes: compressed are the HEADERS, CONTINUATION and
	// PUSH_PROMISE frame payloads seen on the decrypted byte stream, i.e.
	// exactly what HPACK produced; raw are the same header lists written
	// as "name: value\r\n" lines (pseudo-headers included), comparable to
	// HTTP/1.1's header bytes.
	raw, compressed atomic.Int64
}

// defaultWindow is SPDY's and HTTP/2's default initial stream window.
const defaultWindow = 65535

func newH2(l *load) *h2 {
	h := &h2{l: l}
	h.ss = &sessions{l: l, m: map[string]*muxSession{}, open: h.open}
	return h
}

func (h *h2) open(ctx context.Context, org origin) (*muxSession, error) {
	c, err := h.l.dialer.open(ctx, org, "h2")
	if err != nil {
		return nil, err
	}
	win := h.l.opt.InitialWindow
	if win == 0 {
		win = defaultWindow
	}
	t1 := &http.Transport{HTTP2: &http.HTTP2Config{
		MaxReceiveBufferPerStream:     win,
		MaxReceiveBufferPerConnection: sessionWindow(win),
	}}
	t2, err := http2.ConfigureTransports(t1)
	if err != nil {
		return nil, err
	}
	t2.DisableCompression = true // the loader sends Chrome's Accept-Encoding and decodes itself
	sniffed := &h2HeaderSniffer{Conn: c.tls, count: &h.compressed}
	sniffed.out.skip = len(http2.ClientPreface)
	cc, err := t2.NewClientConn(sniffed)
	if err != nil {
		return nil, err
	}
	return &muxSession{c: c, rt: cc, close: cc.Close}, nil
}

// sessionWindow is the connection-level receive window: Chromium let a
// session receive far more than one stream's window (10 MiB), so that
// flow control never throttles a page with many streams in flight.
func sessionWindow(stream int) int {
	if w := 10 << 20; stream < w {
		return w
	}
	return stream
}

func (h *h2) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	err := muxFetch(ctx, h.l, h.ss, e, nil, body)
	e.mu.Lock()
	n := headerLinesSize(e.reqHeaders) + int64(len(":method: GET\r\n:scheme: https\r\n"))
	n += int64(len(":authority: \r\n")+len(e.url.Host)) + int64(len(":path: \r\n")+len(requestPath(e)))
	if e.status != 0 {
		n += int64(len(":status: 200\r\n")) + headerLinesSize(e.respHeaders)
	}
	e.mu.Unlock()
	h.raw.Add(n)
	return err
}

func headerLinesSize(h []HARNameValue) int64 {
	var n int64
	for _, kv := range h {
		n += int64(len(kv.Name) + len(kv.Value) + 4)
	}
	return n
}

func (h *h2) pushed(*entry) (*http.Response, *connection, bool) { return nil, nil, false }

func (h *h2) headerBytes() (int64, int64) { return h.raw.Load(), h.compressed.Load() }

func (h *h2) shutdown() { h.ss.shutdown() }

// h2HeaderSniffer follows the HTTP/2 frame boundaries of both directions of
// a decrypted connection and counts header-block payload bytes.
type h2HeaderSniffer struct {
	net.Conn
	count   *atomic.Int64
	mu      sync.Mutex // Write may be called from several goroutines
	in, out frameWalker
}

func (s *h2HeaderSniffer) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	s.count.Add(s.in.walk(p[:n])) // only the read loop reads
	return n, err
}

func (s *h2HeaderSniffer) Write(p []byte) (int, error) {
	n, err := s.Conn.Write(p)
	s.mu.Lock()
	s.count.Add(s.out.walk(p[:n]))
	s.mu.Unlock()
	return n, err
}

// frameWalker parses a byte stream into frames incrementally.
type frameWalker struct {
	skip    int // bytes to pass over first (the client preface)
	hdr     [9]byte
	hdrN    int
	left    int // payload bytes of the current frame still to come
	counted bool
}

// walk consumes p and returns how many header-block payload bytes it held.
func (w *frameWalker) walk(p []byte) int64 {
	var n int64
	for len(p) > 0 {
		if w.skip > 0 {
			k := min(w.skip, len(p))
			w.skip -= k
			p = p[k:]
			continue
		}
		if w.left > 0 {
			k := min(w.left, len(p))
			if w.counted {
				n += int64(k)
			}
			w.left -= k
			p = p[k:]
			continue
		}
		k := copy(w.hdr[w.hdrN:], p)
		w.hdrN += k
		p = p[k:]
		if w.hdrN < 9 {
			continue
		}
		w.hdrN = 0
		w.left = int(binary.BigEndian.Uint32(w.hdr[0:4]) >> 8)
		switch http2.FrameType(w.hdr[3]) {
		case http2.FrameHeaders, http2.FrameContinuation, http2.FramePushPromise:
			w.counted = true
		default:
			w.counted = false
		}
	}
	return n
}
