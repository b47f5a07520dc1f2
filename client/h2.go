package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Chrome's HTTP/2 receive windows (Chromium's kSpdyStreamMaxRecvWindowSize
// and kSpdySessionMaxRecvWindowSize): large enough that flow control does
// not throttle a page load on any network the lab emulates.
const (
	ChromeStreamWindow = 6 << 20
	ChromeConnWindow   = 15 << 20
)

// defaultPeerMaxStreams is what the client assumes the server allows before
// its SETTINGS arrive (Chromium's kInitialMaxConcurrentStreams): waiting for
// the SETTINGS would cost a round trip, and streams the server refuses
// meanwhile are sent again.
const defaultPeerMaxStreams = 100

// H2Config configures an HTTP/2 client connection. The zero value behaves
// like Chrome: its windows, its exclusive priority chain, push disabled.
type H2Config struct {
	StreamWindow int32 // our SETTINGS_INITIAL_WINDOW_SIZE; 0 = ChromeStreamWindow
	ConnWindow   int32 // our connection receive window; 0 = ChromeConnWindow
	// MaxHeaderListSize caps a decoded response header list; 0 = 256 KiB.
	MaxHeaderListSize uint32
	// Priorities chooses how request priority (WithPriority) is signalled.
	Priorities PriorityScheme
	// OnPush, when set, enables server push (SETTINGS_ENABLE_PUSH 1) and is
	// called on the connection's reader goroutine for every PUSH_PROMISE
	// (it must not block); false refuses the push (RST_STREAM CANCEL).
	// Accepted pushes wait to be claimed with Pushed.
	OnPush func(p *PushPromise) bool
	// Trace sees every frame sent and received (for `spdylab get -v`); it
	// is called with the connection's locks held and must not block.
	Trace func(ev FrameEvent)
	// WholeDataFrames hands a DATA frame's payload to the body only once
	// the whole frame has arrived (x/net/http2's Framer alone). The zero
	// value passes payload on as it arrives, as browsers' decoders do
	// (h2split.go); this switch is there to show what that is worth.
	WholeDataFrames bool
	// AwaitPeerSettings keeps the connection to one open stream until the
	// server's SETTINGS have arrived; further requests wait for them. The
	// connection then keeps to the server's MAX_CONCURRENT_STREAMS from the
	// first request and the server never refuses a stream for exceeding
	// it. Without it the connection assumes Chromium's 100 streams until
	// the SETTINGS arrive (defaultPeerMaxStreams), and a server that allows
	// fewer refuses the excess sent before them (REFUSED_STREAM: errors
	// matching ErrNotProcessed). The wait costs nothing when the SETTINGS
	// travel right behind the handshake's last flight (TLS 1.2) and up to
	// one round trip for the held requests when they follow the client's
	// first flight (TLS 1.3: the server's handshake ends on the client's
	// Finished).
	AwaitPeerSettings bool
}

// PushPromise is a push the server announced.
type PushPromise struct {
	URL                string
	AssociatedStreamID uint32
	StreamID           uint32
	Header             http.Header // the promised request's header fields
}

// H2Stats are byte counts of the connection's header blocks.
type H2Stats struct {
	// Raw header bytes are the decoded (or, sent, encoded) header lists as
	// "name: value\r\n" lines, pseudo-headers included, comparable to
	// HTTP/1.1's header bytes; compressed are the HPACK block bytes on the
	// wire (HEADERS, CONTINUATION and PUSH_PROMISE fragments).
	HeaderBytesSentRaw, HeaderBytesSentCompressed         int64
	HeaderBytesReceivedRaw, HeaderBytesReceivedCompressed int64
	Refused                                               int // streams the server refused or dropped by GOAWAY
	PushesOffered, PushesAccepted, PushesClaimed          int
}

// H2Conn is one HTTP/2 client connection. It is safe for concurrent use.
type H2Conn struct {
	conn net.Conn
	cfg  H2Config

	// wmu serialises frame writes (and the HPACK encoder, whose state
	// must follow the order of HEADERS on the wire). Lock order: wmu, then mu.
	wmu  sync.Mutex
	bw   *bufio.Writer
	fr   *http2.Framer
	henc *hpack.Encoder
	hbuf headerBuffer

	mu             sync.Mutex
	cond           *sync.Cond // slots, send windows, settings and closing
	streams        map[uint32]*h2Stream
	nextID         uint32
	active         int // streams we opened that are not closed
	peerMaxStreams uint32
	peerStreamWin  int32 // peer's SETTINGS_INITIAL_WINDOW_SIZE
	peerMaxFrame   uint32
	sendWin        window // connection send window
	recvUnacked    int32  // connection bytes received not yet credited back
	gotSettings    bool
	settingsAcked  bool // the server applied our SETTINGS (stream windows are ours)
	goAwayLast     uint32
	goneAway       bool
	closed         bool
	err            error // why the connection ended
	lastPushID     uint32
	pushes         map[string]*h2Stream // accepted pushes not yet claimed, by URL
	chain          priorityChain
	stats          H2Stats
	done           chan struct{}
	readerDone     chan struct{}
	closeOnce      sync.Once
	maxHeaderList  uint32
	streamWindow   int32
	connWindow     int32
	pushEnabled    bool
	compressedIn   atomic.Int64  // header block bytes received
	split          *dataSplitter // nil with WholeDataFrames
}

// ErrConnClosed is returned for requests on a closed connection.
var ErrConnClosed = errors.New("h2: connection closed")

// NewH2Conn starts an HTTP/2 client connection on c (TLS with ALPN "h2"
// already negotiated): it writes the preface and SETTINGS and starts the
// reader goroutine. Close ends both.
func NewH2Conn(c net.Conn, cfg H2Config) (*H2Conn, error) {
	cc := &H2Conn{
		conn:           c,
		cfg:            cfg,
		streams:        map[uint32]*h2Stream{},
		nextID:         1,
		peerMaxStreams: defaultPeerMaxStreams,
		peerStreamWin:  65535,
		peerMaxFrame:   16384,
		sendWin:        65535,
		pushes:         map[string]*h2Stream{},
		done:           make(chan struct{}),
		readerDone:     make(chan struct{}),
		streamWindow:   cfg.StreamWindow,
		connWindow:     cfg.ConnWindow,
		maxHeaderList:  cfg.MaxHeaderListSize,
		pushEnabled:    cfg.OnPush != nil,
	}
	if cc.streamWindow == 0 {
		cc.streamWindow = ChromeStreamWindow
	}
	if cc.connWindow == 0 {
		cc.connWindow = ChromeConnWindow
	}
	if cc.streamWindow < 0 || cc.connWindow < 65535 {
		return nil, fmt.Errorf("h2: windows out of range (stream %d, connection %d; the connection window is at least 65535)", cc.streamWindow, cc.connWindow)
	}
	if cc.maxHeaderList == 0 {
		cc.maxHeaderList = 256 << 10
	}
	cc.cond = sync.NewCond(&cc.mu)
	cc.bw = bufio.NewWriterSize(c, 32<<10)
	in := &headerByteCounter{r: c, count: &cc.compressedIn}
	var frames io.Reader = bufio.NewReaderSize(in, 32<<10)
	if !cfg.WholeDataFrames {
		// Our SETTINGS leave SETTINGS_MAX_FRAME_SIZE at its default.
		cc.split = newDataSplitter(frames, 16384)
		frames = cc.split
	}
	cc.fr = http2.NewFramer(cc.bw, frames)
	cc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	cc.fr.MaxHeaderListSize = cc.maxHeaderList
	cc.henc = hpack.NewEncoder(&cc.hbuf)
	if err := cc.writePreface(); err != nil {
		c.Close()
		return nil, fmt.Errorf("h2: writing the connection preface: %w", err)
	}
	go cc.readLoop()
	return cc, nil
}

func (cc *H2Conn) writePreface() error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	if _, err := cc.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	push := uint32(0)
	if cc.pushEnabled {
		push = 1
	}
	settings := []http2.Setting{
		{ID: http2.SettingHeaderTableSize, Val: 65536},
		{ID: http2.SettingEnablePush, Val: push},
		{ID: http2.SettingInitialWindowSize, Val: uint32(cc.streamWindow)},
		{ID: http2.SettingMaxHeaderListSize, Val: cc.maxHeaderList},
	}
	if err := cc.fr.WriteSettings(settings...); err != nil {
		return err
	}
	cc.traceSent(FrameEvent{Type: http2.FrameSettings, Length: uint32(6 * len(settings)), Settings: settings})
	if inc := cc.connWindow - 65535; inc > 0 {
		if err := cc.fr.WriteWindowUpdate(0, uint32(inc)); err != nil {
			return err
		}
		cc.traceSent(FrameEvent{Type: http2.FrameWindowUpdate, Length: 4, Increment: uint32(inc)})
	}
	return cc.bw.Flush()
}

// Stats returns the header byte counts so far.
func (cc *H2Conn) Stats() H2Stats {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	st := cc.stats
	st.HeaderBytesReceivedCompressed = cc.compressedIn.Load()
	return st
}

// Done is closed when the connection has ended; Err then says why.
func (cc *H2Conn) Done() <-chan struct{} { return cc.done }

// Err is why the connection ended (nil while it is open).
func (cc *H2Conn) Err() error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.err
}

// CanTakeNewRequest reports whether a new request could be sent: the
// connection is open and no GOAWAY arrived.
func (cc *H2Conn) CanTakeNewRequest() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return !cc.closed && !cc.goneAway
}

// Close sends GOAWAY NO_ERROR, closes the connection and waits for the
// reader goroutine; every open stream fails.
func (cc *H2Conn) Close() error {
	cc.closeOnce.Do(func() {
		// The deadline first, without the write lock: a writer stuck on a
		// peer that does not read must give the lock up.
		_ = cc.conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		cc.wmu.Lock()
		if cc.fr.WriteGoAway(0, http2.ErrCodeNo, nil) == nil {
			cc.traceSent(FrameEvent{Type: http2.FrameGoAway, Length: 8, ErrCode: http2.ErrCodeNo})
			_ = cc.bw.Flush()
		}
		cc.wmu.Unlock()
		cc.fail(ErrConnClosed)
	})
	<-cc.readerDone
	return nil
}

// fail ends the connection with err (the first reason wins) and fails every
// stream still open.
func (cc *H2Conn) fail(err error) {
	cc.mu.Lock()
	if cc.closed {
		cc.mu.Unlock()
		return
	}
	cc.closed = true
	cc.err = err
	streams := cc.streams
	cc.streams = map[uint32]*h2Stream{}
	cc.pushes = map[string]*h2Stream{}
	cc.cond.Broadcast()
	cc.mu.Unlock()
	for _, st := range streams {
		st.abort(fmt.Errorf("%w: %w", ErrConnClosed, err))
	}
	cc.conn.Close()
	close(cc.done)
}

// RoundTrip sends req on a new stream and returns the response once its
// header arrives; the body streams as DATA arrives. When the server's
// MAX_CONCURRENT_STREAMS is reached the request waits for a free stream.
// Priority comes from WithPriority on req's context. It honours
// httptrace's WroteHeaders, WroteRequest and GotFirstResponseByte.
func (cc *H2Conn) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st, err := cc.admit(req)
	if err != nil {
		return nil, err
	}
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	if req.Body != nil && req.Body != http.NoBody {
		if err := st.writeBody(ctx, req.Body); err != nil {
			st.reset(http2.ErrCodeCancel, err)
			return nil, err
		}
	}
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	select {
	case <-st.gotHeaders:
	case <-ctx.Done():
		st.reset(http2.ErrCodeCancel, context.Cause(ctx))
		return nil, context.Cause(ctx)
	}
	if trace != nil && trace.GotFirstResponseByte != nil && st.resp != nil {
		trace.GotFirstResponseByte()
	}
	if st.resp == nil {
		return nil, st.failure()
	}
	stop := context.AfterFunc(ctx, func() { st.reset(http2.ErrCodeCancel, context.Cause(ctx)) })
	st.body.onClose = func() { stop() }
	return st.resp, nil
}

// admit waits for a stream slot and opens a stream for req, waiting again
// when the server's SETTINGS took the slot away before the HEADERS went out.
func (cc *H2Conn) admit(req *http.Request) (*h2Stream, error) {
	for {
		if err := cc.awaitSlot(req.Context()); err != nil {
			return nil, err
		}
		st, err := cc.openStream(req)
		if err != errOverLimit {
			return st, err
		}
	}
}

// errOverLimit says a stream admitted under the limit assumed before the
// server's SETTINGS is beyond the limit they set.
var errOverLimit = errors.New("h2: beyond the server's MAX_CONCURRENT_STREAMS")

// awaitSlot blocks until the server's stream limit lets one more stream
// open (or the connection ends, or ctx is done).
func (cc *H2Conn) awaitSlot(ctx context.Context) error {
	defer cc.wakeOnDone(ctx)()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for {
		switch {
		case cc.closed:
			return fmt.Errorf("%w: %w", ErrNotProcessed, cc.err)
		case cc.goneAway:
			return fmt.Errorf("%w: the server sent GOAWAY", ErrNotProcessed)
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case uint32(cc.active) < cc.streamLimitLocked():
			cc.active++
			return nil
		}
		cc.cond.Wait()
	}
}

// streamLimitLocked is how many streams we may have open: the server's
// MAX_CONCURRENT_STREAMS (or the default assumed until its SETTINGS), or
// one while AwaitPeerSettings waits for those SETTINGS. cc.mu held.
func (cc *H2Conn) streamLimitLocked() uint32 {
	if cc.cfg.AwaitPeerSettings && !cc.gotSettings {
		return min(cc.peerMaxStreams, 1)
	}
	return cc.peerMaxStreams
}

// wakeOnDone wakes every waiter on cc.cond when ctx ends, so that waits
// under cc.mu notice the cancellation; call the returned stop when done.
func (cc *H2Conn) wakeOnDone(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		cc.mu.Lock()
		cc.cond.Broadcast()
		cc.mu.Unlock()
	})
}

// releaseSlot returns a stream slot taken by awaitSlot.
func (cc *H2Conn) releaseSlot() {
	cc.mu.Lock()
	cc.active--
	cc.cond.Broadcast()
	cc.mu.Unlock()
}

// openStream assigns the next stream id and writes the request's HEADERS.
func (cc *H2Conn) openStream(req *http.Request) (*h2Stream, error) {
	fields, err := requestFields(req, cc.cfg.Priorities)
	if err != nil {
		cc.releaseSlot()
		return nil, err
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	prio := priorityOf(req.Context())

	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	cc.mu.Lock()
	if cc.closed || cc.goneAway {
		cc.active--
		err := cc.err
		cc.mu.Unlock()
		if err == nil {
			err = errors.New("the server sent GOAWAY")
		}
		return nil, fmt.Errorf("%w: %w", ErrNotProcessed, err)
	}
	if uint32(cc.active) > cc.peerMaxStreams {
		// Admitted before the server's SETTINGS, which allow fewer. Once
		// our SETTINGS ACK has gone out (this HEADERS would follow it),
		// Go's server answers a stream beyond its limit with
		// PROTOCOL_ERROR instead of REFUSED_STREAM, so it waits again.
		cc.active--
		cc.cond.Broadcast()
		cc.mu.Unlock()
		return nil, errOverLimit
	}
	st := newH2Stream(cc, cc.nextID, req, cc.recvWindowNow(), cc.peerStreamWin)
	cc.nextID += 2
	cc.streams[st.id] = st
	var param http2.PriorityParam
	if cc.cfg.Priorities == PriorityChrome {
		param = cc.chain.open(st.id, prio)
		st.inChain = true
	}
	cc.stats.HeaderBytesSentRaw += fieldsSize(fields)
	maxFrame := cc.peerMaxFrame
	cc.mu.Unlock()

	block := cc.encode(fields)
	cc.mu.Lock()
	cc.stats.HeaderBytesSentCompressed += int64(len(block))
	cc.mu.Unlock()
	if err := cc.writeHeaders(st.id, block, !hasBody, param, maxFrame, fields); err != nil {
		cc.fail(fmt.Errorf("writing HEADERS: %w", err))
		return nil, fmt.Errorf("%w: writing HEADERS: %w", ErrNotProcessed, err)
	}
	return st, nil
}

// recvWindowNow is what the server may send on a new stream: the
// protocol's 65535 until it has applied our SETTINGS (RFC 9113 section
// 6.9.2), then our window. The caller holds cc.mu.
func (cc *H2Conn) recvWindowNow() int32 {
	if cc.settingsAcked {
		return cc.streamWindow
	}
	return 65535
}

func (cc *H2Conn) encode(fields []hpack.HeaderField) []byte {
	cc.hbuf.Reset()
	for _, f := range fields {
		_ = cc.henc.WriteField(f) // writes to a bytes.Buffer: cannot fail
	}
	return append([]byte(nil), cc.hbuf.Bytes()...)
}

// writeHeaders writes a header block as HEADERS and CONTINUATION frames of
// at most the peer's frame size. The caller holds wmu.
func (cc *H2Conn) writeHeaders(id uint32, block []byte, endStream bool, prio http2.PriorityParam, maxFrame uint32, fields []hpack.HeaderField) error {
	first := true
	for first || len(block) > 0 {
		n := min(len(block), int(maxFrame))
		if first && !prio.IsZero() {
			n = min(n, int(maxFrame)-5)
		}
		frag := block[:n]
		block = block[n:]
		end := len(block) == 0
		var err error
		if first {
			err = cc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: frag, EndStream: endStream, EndHeaders: end, Priority: prio})
			ev := FrameEvent{Type: http2.FrameHeaders, StreamID: id, Length: uint32(len(frag)), Fields: fields}
			if endStream {
				ev.Flags |= http2.FlagHeadersEndStream
			}
			if end {
				ev.Flags |= http2.FlagHeadersEndHeaders
			}
			if !prio.IsZero() {
				ev.Flags |= http2.FlagHeadersPriority
				ev.Length += 5
				ev.Priority = prio
			}
			cc.traceSent(ev)
		} else {
			err = cc.fr.WriteContinuation(id, end, frag)
			ev := FrameEvent{Type: http2.FrameContinuation, StreamID: id, Length: uint32(len(frag))}
			if end {
				ev.Flags = http2.FlagContinuationEndHeaders
			}
			cc.traceSent(ev)
		}
		if err != nil {
			return err
		}
		first = false
	}
	return cc.bw.Flush()
}

// writeFrame runs write under the write lock and flushes.
func (cc *H2Conn) writeFrame(write func() error, ev FrameEvent) error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	if err := write(); err != nil {
		return err
	}
	cc.traceSent(ev)
	return cc.bw.Flush()
}

func (cc *H2Conn) traceSent(ev FrameEvent) {
	if cc.cfg.Trace != nil {
		ev.Sent = true
		cc.cfg.Trace(ev)
	}
}

// Pushed claims an accepted push of url: it waits for the pushed
// response's header (or the push's failure) and returns it. false when the
// server pushed no such URL, or the push failed before its header.
func (cc *H2Conn) Pushed(url string) (*http.Response, bool) {
	cc.mu.Lock()
	st := cc.pushes[url]
	delete(cc.pushes, url)
	cc.mu.Unlock()
	if st == nil {
		return nil, false
	}
	<-st.gotHeaders
	if st.resp == nil {
		return nil, false
	}
	cc.mu.Lock()
	cc.stats.PushesClaimed++
	cc.mu.Unlock()
	st.claim()
	return st.resp, true
}

// PushedURLs lists accepted pushes not yet claimed.
func (cc *H2Conn) PushedURLs() []string {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	out := make([]string, 0, len(cc.pushes))
	for u := range cc.pushes {
		out = append(out, u)
	}
	return out
}
