package spdy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server serves HTTP over SPDY, one session per connection.
type Server struct {
	Config Config
	// Handler serves each request stream; nil means http.DefaultServeMux.
	// Its ResponseWriter implements http.Flusher and http.Pusher; the
	// request's SPDY priority is RequestPriority(r).
	Handler http.Handler
	// ErrorLog receives handler panics; nil uses the log package.
	ErrorLog *log.Logger
	// ShutdownGrace is how long ServeConn lets open streams finish after its
	// context ends (GOAWAY has been sent by then); 0 = 5 s.
	ShutdownGrace time.Duration
	// AdmitStream, when set, is asked before a request stream on c gets a
	// handler; false refuses the stream with RST_STREAM REFUSED_STREAM
	// (counted against Config.MaxRefusedStreamsPerSecond). release is
	// called once that handler has returned. It runs on the session's
	// reader goroutine and must not block. A server bounds with it what
	// one client's streams cost across all its sessions: each running
	// handler is a goroutine, often waiting for a body that never comes.
	AdmitStream func(c net.Conn) (release func(), ok bool)
}

// ErrPushRefused is returned by Push when the push cannot be made: the
// client's MAX_CONCURRENT_STREAMS for pushes is reached, the associated
// stream has finished, or the session is going away.
var ErrPushRefused = errors.New("spdy: push refused")

type serverConn struct {
	srv     *Server
	s       *session
	handler http.Handler
	ctx     context.Context // cancelled when the session ends
	wg      sync.WaitGroup
	// pushReserved counts pushes whose SYN_STREAM is not queued yet; they
	// already count against the client's MAX_CONCURRENT_STREAMS.
	pushReserved int
}

// ServeConn runs a SPDY server session on c until the peer goes away, a
// session error occurs, or ctx ends (then GOAWAY is sent and open streams get
// ShutdownGrace to finish). It returns after every handler has returned and
// c is closed. A clean end (peer GOAWAY or EOF) returns nil.
func (srv *Server) ServeConn(ctx context.Context, c net.Conn) error {
	s, err := newSession(c, srv.Config, false)
	if err != nil {
		c.Close()
		return err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	sc := &serverConn{srv: srv, s: s, handler: srv.Handler, ctx: sctx}
	if sc.handler == nil {
		sc.handler = http.DefaultServeMux
	}
	s.onPeerStream = sc.onRequest
	s.start(nil)
	select {
	case <-s.done:
	case <-ctx.Done():
		grace := srv.ShutdownGrace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		gctx, gcancel := context.WithTimeout(context.Background(), grace)
		s.shutdown(gctx)
		gcancel()
	}
	cancel()
	sc.wg.Wait()
	s.mu.Lock()
	err = s.err
	s.mu.Unlock()
	var se *SessionError
	if errors.As(err, &se) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

func (sc *serverConn) logf(format string, args ...any) {
	if sc.srv.ErrorLog != nil {
		sc.srv.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

// onRequest turns an accepted SYN_STREAM into a handler goroutine. mu held.
func (sc *serverConn) onRequest(f *SynStreamFrame) *StreamError {
	s := sc.s
	if f.Flags&FlagUnidirectional != 0 || f.AssociatedTo != 0 {
		return &StreamError{Stream: f.Stream, Status: RstProtocolError, Reason: "client opened a unidirectional or associated stream"}
	}
	release := func() {}
	if admit := sc.srv.AdmitStream; admit != nil {
		r, ok := admit(s.conn)
		if !ok {
			if s.overLimitLocked(&s.limits.refused, "refused streams") {
				return nil // the session is over
			}
			return &StreamError{Stream: f.Stream, Status: RstRefusedStream, Reason: "Server.AdmitStream refused the stream"}
		}
		release = r
	}
	st := s.newStreamLocked(f.Stream, f.Priority)
	if f.Flags&FlagFin != 0 {
		st.remoteClosed = true
		st.recvFin = true
	}
	ctx, cancel := context.WithCancelCause(sc.ctx)
	st.onClose = func() {
		if st.err != nil {
			cancel(st.err)
		}
	}
	req, badReq := sc.buildRequest(f, st, ctx)
	rw := &responseWriter{sc: sc, st: st, req: req, header: http.Header{}}
	sc.wg.Add(1)
	go sc.runHandler(rw, req, badReq, cancel, release)
	return nil
}

func (sc *serverConn) buildRequest(f *SynStreamFrame, st *stream, ctx context.Context) (*http.Request, error) {
	h := f.Headers
	method, path, version, host, scheme := h.Get(":method"), h.Get(":path"), h.Get(":version"), h.Get(":host"), h.Get(":scheme")
	var bad error
	if method == "" || path == "" || version == "" || host == "" || scheme == "" {
		bad = errors.New("request lacks one of :method :path :version :host :scheme")
	}
	u, err := url.ParseRequestURI(path)
	if err != nil {
		if bad == nil {
			bad = fmt.Errorf("bad :path %q: %v", path, err)
		}
		u = &url.URL{Path: "/"}
	}
	u.Scheme, u.Host = scheme, host
	major, minor, ok := http.ParseHTTPVersion(version)
	if !ok {
		major, minor = 1, 1
	}
	info := &requestInfo{priority: f.Priority, stream: f.Stream}
	req := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      version,
		ProtoMajor: major,
		ProtoMinor: minor,
		Header:     toHTTPHeader(h),
		Host:       host,
		RequestURI: path,
		RemoteAddr: sc.s.conn.RemoteAddr().String(),
	}
	if tc, ok := sc.s.conn.(*tls.Conn); ok {
		cs := tc.ConnectionState()
		req.TLS = &cs
	}
	if st.recvFin {
		req.Body = http.NoBody
	} else {
		req.Body = &bodyReader{st: st}
		req.ContentLength = contentLength(h)
		st.declaredLen = req.ContentLength
	}
	return req.WithContext(context.WithValue(ctx, requestInfoKey{}, info)), bad
}

func (sc *serverConn) runHandler(rw *responseWriter, req *http.Request, badReq error, cancel context.CancelCauseFunc, release func()) {
	defer sc.wg.Done()
	defer release() // before Done: ServeConn returns with every stream released
	defer cancel(nil)
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				sc.logf("spdy: panic serving stream %d %s: %v", rw.st.id, req.URL, p)
			}
			rw.abort(RstInternalError)
			return
		}
		rw.finish()
	}()
	if badReq != nil {
		http.Error(rw, "400 Bad Request: "+badReq.Error(), http.StatusBadRequest)
		return
	}
	sc.handler.ServeHTTP(rw, req)
}

// pushInfo is the identity of a pushed stream, sent in its SYN_STREAM.
type pushInfo struct {
	assoc              *stream
	scheme, host, path string
	ready              chan struct{} // closed once the SYN_STREAM is queued (or the push failed)
	info               *requestInfo
	err                error
}

// responseWriter is the http.ResponseWriter of one stream.
type responseWriter struct {
	sc     *serverConn
	st     *stream
	req    *http.Request
	header http.Header

	status      int
	wroteHeader bool
	replySent   bool
	buf         []byte // body bytes held back until the first flush
	written     int64
	push        *pushInfo
	failed      error
	finishing   bool // the handler returned: the buffered body is all there is
}

func (rw *responseWriter) Header() http.Header { return rw.header }

func (rw *responseWriter) WriteHeader(code int) {
	if rw.wroteHeader {
		return
	}
	if code >= 100 && code < 200 {
		return // interim responses have no SPDY/3 encoding
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("spdy: invalid WriteHeader code %d", code))
	}
	rw.wroteHeader = true
	rw.status = code
}

func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified && !(status >= 100 && status < 200)
}

func (rw *responseWriter) Write(p []byte) (int, error) {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.failed != nil {
		return 0, rw.failed
	}
	if !bodyAllowed(rw.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if rw.req.Method == http.MethodHead {
		rw.written += int64(len(p))
		return len(p), nil
	}
	max := rw.sc.s.maxFrame
	if len(rw.buf)+len(p) <= max {
		if rw.buf == nil {
			rw.buf = make([]byte, 0, max)
		}
		rw.buf = append(rw.buf, p...)
		rw.written += int64(len(p))
		return len(p), nil
	}
	if err := rw.flushData(false); err != nil {
		return 0, err
	}
	if err := rw.st.write(p, false); err != nil {
		rw.failed = err
		return 0, err
	}
	rw.written += int64(len(p))
	return len(p), nil
}

// Flush sends the response headers and any buffered body now.
func (rw *responseWriter) Flush() {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	rw.flushData(false)
}

// FlushError is Flush with an error, for http.ResponseController.
func (rw *responseWriter) FlushError() error {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	return rw.flushData(false)
}

func (rw *responseWriter) flushData(fin bool) error {
	if rw.failed != nil {
		return rw.failed
	}
	if !rw.replySent {
		if err := rw.sendReply(fin && len(rw.buf) == 0); err != nil {
			return err
		}
		if fin && len(rw.buf) == 0 {
			return nil
		}
	}
	if len(rw.buf) == 0 && !fin {
		return nil
	}
	err := rw.st.write(rw.buf, fin)
	rw.buf = rw.buf[:0]
	if err != nil {
		rw.failed = err
	}
	return err
}

// replyHeaders builds the SPDY response header block.
func (rw *responseWriter) replyHeaders(final bool) (Header, error) {
	h := Header{":status": {statusValue(rw.status)}, ":version": {"HTTP/1.1"}}
	if rw.push != nil {
		// Section 3.3.1 requires only :scheme :host :path, but node-spdy
		// (spdy-transport) rejects a SYN_STREAM without :method and drops the
		// whole session; the pushed request's method costs a few bytes.
		h.Set(":method", rw.req.Method)
	}
	if rw.header.Get("Date") == "" {
		h.Set("date", time.Now().UTC().Format(http.TimeFormat))
	}
	if bodyAllowed(rw.status) && rw.header.Get("Content-Type") == "" && len(rw.buf) > 0 {
		h.Set("content-type", http.DetectContentType(rw.buf))
	}
	if final && rw.header.Get("Content-Length") == "" && bodyAllowed(rw.status) && rw.req.Method != http.MethodHead {
		// The whole body is known: announce its length like net/http does.
		h.Set("content-length", strconv.Itoa(len(rw.buf)))
	}
	if err := fromHTTPHeader(h, rw.header); err != nil {
		return nil, err
	}
	if p := rw.push; p != nil {
		h.Set(":scheme", p.scheme)
		h.Set(":host", p.host)
		h.Set(":path", p.path)
	}
	if _, err := marshalBlock(nil, h); err != nil {
		return nil, err
	}
	return h, nil
}

// sendReply queues SYN_REPLY (or, for a push, the unidirectional
// SYN_STREAM) with the response headers.
func (rw *responseWriter) sendReply(fin bool) error {
	rw.replySent = true
	final := fin || rw.handlerDoneWithBuffer()
	h, err := rw.replyHeaders(final)
	s := rw.sc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if rw.push != nil {
		rw.sc.pushReserved--
	}
	if err != nil {
		rw.failed = err
		if rw.push == nil {
			s.resetLocked(rw.st, RstInternalError, err)
		}
		rw.pushDone(err)
		return err
	}
	var flags uint8
	if fin {
		flags = FlagFin
	}
	if p := rw.push; p != nil {
		if s.dead || s.goAwaySent || p.assoc.closed || p.assoc.localClosed {
			err := fmt.Errorf("%w: associated stream %d finished or session closing", ErrPushRefused, p.assoc.id)
			rw.failed = err
			rw.pushDone(err)
			return err
		}
		id := s.nextLocalID
		if id > 0x7fffffff {
			rw.failed = ErrStreamIDsExhausted
			rw.pushDone(ErrStreamIDsExhausted)
			return ErrStreamIDsExhausted
		}
		s.nextLocalID += 2
		st := rw.st
		st.id = id
		s.registerLocked(st)
		s.localActive++
		st.send.avail = s.peerInitWindow
		st.recv.avail = s.streamRecvIW
		st.remoteClosed, st.recvFin = true, true // the client never sends on a push
		p.info.stream = id
		s.sched.pushControl(&SynStreamFrame{Stream: id, AssociatedTo: p.assoc.id, Priority: st.priority,
			Flags: flags | FlagUnidirectional, Headers: h}, nil)
		rw.pushDone(nil)
	} else {
		if rw.st.closed || s.dead {
			err := rw.st.err
			if err == nil {
				err = ErrSessionClosed
			}
			rw.failed = err
			return err
		}
		s.sched.pushControl(&SynReplyFrame{Stream: rw.st.id, Flags: flags, Headers: h}, nil)
	}
	if fin {
		rw.st.localClosed = true
		s.maybeCloseLocked(rw.st)
	}
	s.wake.Signal()
	return nil
}

func (rw *responseWriter) handlerDoneWithBuffer() bool { return rw.finishing }

func (rw *responseWriter) pushDone(err error) {
	if p := rw.push; p != nil {
		select {
		case <-p.ready:
		default:
			p.err = err
			close(p.ready)
		}
	}
}

// finish completes the response after the handler returned.
func (rw *responseWriter) finish() {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	rw.finishing = true
	if rw.failed == nil {
		rw.flushData(true)
	}
	rw.pushDone(rw.failed)
	// A request body the handler did not read is discarded, returning its
	// window so the client can finish sending.
	if rw.push == nil {
		s := rw.sc.s
		s.mu.Lock()
		rw.st.discard = true
		if n := int64(rw.st.buf.len()); n > 0 {
			rw.st.buf.reset()
			w := rw.st.windowBytes(n)
			rw.st.creditBufferedLocked(w)
			if !rw.st.recvFin && !rw.st.closed && w > 0 {
				rw.st.recv.grow(w)
				if s.flow {
					s.queueControl(&WindowUpdateFrame{Stream: rw.st.id, Delta: uint32(w)})
				} else {
					s.spdy2ConsumedLocked(rw.st, w) // the cap is freed; announced only to a window-keeping peer
				}
			}
		}
		s.mu.Unlock()
	}
}

// abort resets the stream after a handler panic.
func (rw *responseWriter) abort(status RstStatus) {
	s := rw.sc.s
	rw.pushDone(errors.New("spdy: pushed handler panicked"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if rw.st.id != 0 {
		s.resetLocked(rw.st, status, nil)
	}
	if rw.push != nil && !rw.replySent {
		rw.sc.pushReserved--
	}
}

// Push implements http.Pusher: it opens a server push stream associated
// with this request and runs the handler for target on it. Push returns
// once the push's SYN_STREAM is queued, so frames of this response written
// afterwards cannot reach the client before the push is announced.
func (rw *responseWriter) Push(target string, opts *http.PushOptions) error {
	if rw.push != nil {
		return fmt.Errorf("%w: cannot push from a pushed stream", ErrPushRefused)
	}
	if opts == nil {
		opts = &http.PushOptions{}
	}
	if opts.Method != "" && opts.Method != http.MethodGet && opts.Method != http.MethodHead {
		return fmt.Errorf("spdy: cannot push a %s request", opts.Method)
	}
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("spdy: bad push target %q: %v", target, err)
	}
	if u.Scheme == "" {
		if !strings.HasPrefix(target, "/") {
			return fmt.Errorf("spdy: push target %q is neither absolute nor an absolute path", target)
		}
		u.Scheme, u.Host = rw.req.URL.Scheme, rw.req.Host
	}
	path := u.RequestURI()
	s := rw.sc.s
	s.mu.Lock()
	switch {
	case s.dead || s.goAwaySent || s.goAwayReceived != nil:
		s.mu.Unlock()
		return fmt.Errorf("%w: session is closing", ErrPushRefused)
	case rw.st.closed || rw.st.localClosed:
		s.mu.Unlock()
		return fmt.Errorf("%w: associated stream %d has finished", ErrPushRefused, rw.st.id)
	case uint64(s.localActive+rw.sc.pushReserved) >= uint64(s.peerMaxStreams):
		s.mu.Unlock()
		return fmt.Errorf("%w: client allows %d concurrent pushes", ErrPushRefused, s.peerMaxStreams)
	}
	rw.sc.pushReserved++
	st := &stream{s: s, priority: rw.st.priority, associated: rw.st.id, isPush: true,
		notify: make(chan struct{}, 1), replied: make(chan struct{}), declaredLen: -1}
	s.mu.Unlock()

	hdr := rw.req.Header.Clone() // a push inherits the associated request's headers (3.3)
	for k, v := range opts.Header {
		hdr[k] = v
	}
	method := opts.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithCancelCause(rw.sc.ctx)
	st.onClose = func() {
		if st.err != nil {
			cancel(st.err)
		}
	}
	info := &requestInfo{priority: st.priority}
	preq := (&http.Request{
		Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: hdr, Host: u.Host, RequestURI: path, RemoteAddr: rw.req.RemoteAddr,
		TLS: rw.req.TLS, Body: http.NoBody,
	}).WithContext(context.WithValue(ctx, requestInfoKey{}, info))
	p := &pushInfo{assoc: rw.st, scheme: u.Scheme, host: u.Host, path: path, ready: make(chan struct{}), info: info}
	prw := &responseWriter{sc: rw.sc, st: st, req: preq, header: http.Header{}, push: p}
	rw.sc.wg.Add(1)
	go rw.sc.runHandler(prw, preq, nil, cancel, func() {}) // the client's limit bounds pushes
	<-p.ready
	return p.err
}

var (
	_ http.Flusher = (*responseWriter)(nil)
	_ http.Pusher  = (*responseWriter)(nil)
	_ io.Writer    = (*responseWriter)(nil)
)
