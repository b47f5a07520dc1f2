package spdy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ClientConfig configures a client session.
type ClientConfig struct {
	Config
	// OnPush is called (on the session's reader goroutine: it must not
	// block) for every server push; returning false cancels the push with
	// RST_STREAM CANCEL. nil accepts every push.
	OnPush func(p *PushPromise) bool
	// PersistedSettings are SETTINGS the server asked this client to persist
	// on an earlier session to the same origin (see
	// ClientConn.PersistedSettings); they are returned with
	// FLAG_SETTINGS_PERSISTED in the first SETTINGS frame.
	PersistedSettings []Setting
	// AwaitPeerSettings keeps the session to one open stream until the
	// server's first frame has been read; further requests wait for it.
	// A server that limits streams sends its SETTINGS first, so the
	// session keeps to that MAX_CONCURRENT_STREAMS from the first request
	// and the server never refuses a stream for exceeding it. Without it
	// the session assumes no limit until SETTINGS arrive (section 2.6.4),
	// and requests sent before them beyond the limit are refused
	// (REFUSED_STREAM: errors matching ErrNotProcessed). The wait costs
	// nothing when the SETTINGS travel right behind the handshake's last
	// flight (TLS 1.2, where the server finishes the handshake) and up to
	// one round trip for the held requests when they follow the client's
	// first flight (TLS 1.3, where the server's handshake ends only on the
	// client's Finished, and plain TCP).
	AwaitPeerSettings bool
}

// PushPromise describes a server push as it is announced.
type PushPromise struct {
	URL                string // scheme://host/path from :scheme, :host, :path
	AssociatedStreamID uint32
	StreamID           uint32
	Header             http.Header // response headers known so far (without pseudo-headers)
	Priority           uint8
}

// ClientConn is one client SPDY session over one connection. It is safe for
// concurrent use.
type ClientConn struct {
	s      *session
	onPush func(p *PushPromise) bool

	pushMu sync.Mutex
	pushed map[string]*stream // accepted, not yet claimed, by URL

	persistMu sync.Mutex
	persisted map[SettingID]Setting
}

// NewClientConn starts a client session on c. The caller has already
// negotiated SPDY (ALPN on TLS, or prior knowledge on plain TCP).
func NewClientConn(c net.Conn, cfg *ClientConfig) (*ClientConn, error) {
	if cfg == nil {
		cfg = &ClientConfig{}
	}
	s, err := newSession(c, cfg.Config, true)
	if err != nil {
		return nil, err
	}
	cc := &ClientConn{s: s, onPush: cfg.OnPush, pushed: map[string]*stream{}, persisted: map[SettingID]Setting{}}
	var extra []Setting
	for _, p := range cfg.PersistedSettings {
		cc.persisted[p.ID] = Setting{ID: p.ID, Value: p.Value, Flags: FlagSettingPersist}
		extra = append(extra, Setting{ID: p.ID, Value: p.Value, Flags: FlagSettingPersisted})
	}
	s.onPeerStream = cc.acceptPush
	s.onPersist = cc.persist
	s.awaitPeer = cfg.AwaitPeerSettings
	s.start(extra)
	return cc, nil
}

// persist applies the server's SETTINGS persistence flags (section 2.6.4).
func (cc *ClientConn) persist(f *SettingsFrame) {
	cc.persistMu.Lock()
	defer cc.persistMu.Unlock()
	if f.Flags&FlagSettingsClear != 0 {
		cc.persisted = map[SettingID]Setting{}
	}
	for _, e := range f.Entries {
		if e.Flags&FlagSettingPersist != 0 {
			cc.persisted[e.ID] = Setting{ID: e.ID, Value: e.Value}
		}
	}
}

// PersistedSettings returns the settings the server asked to persist (after
// any CLEAR_SETTINGS). Pass them as ClientConfig.PersistedSettings on the next
// session to the same origin.
func (cc *ClientConn) PersistedSettings() []Setting {
	cc.persistMu.Lock()
	defer cc.persistMu.Unlock()
	out := make([]Setting, 0, len(cc.persisted))
	for _, s := range cc.persisted {
		out = append(out, Setting{ID: s.ID, Value: s.Value})
	}
	return out
}

// Stats returns the session's counters.
func (cc *ClientConn) Stats() Stats { return cc.s.stats.snapshot() }

// RecvWindow says what the adaptive session receive window
// (Config.AdaptiveSessionWindow) did; its On is false without one.
func (cc *ClientConn) RecvWindow() RecvWindowReport { return cc.s.recvWindowReport() }

// Ping sends a PING and returns the round-trip time.
func (cc *ClientConn) Ping(ctx context.Context) (time.Duration, error) { return cc.s.ping(ctx) }

// Close sends GOAWAY (OK), fails streams still open, closes the connection
// and waits for the session's goroutines to exit.
func (cc *ClientConn) Close() error { return cc.s.close() }

// Shutdown sends GOAWAY (OK) and lets open streams finish before closing,
// until ctx ends.
func (cc *ClientConn) Shutdown(ctx context.Context) error { return cc.s.shutdown(ctx) }

// Done is closed once the session has ended and its connection is closed.
func (cc *ClientConn) Done() <-chan struct{} { return cc.s.done }

// Err reports why the session ended (nil while it runs).
func (cc *ClientConn) Err() error {
	cc.s.mu.Lock()
	defer cc.s.mu.Unlock()
	return cc.s.err
}

// CanTakeNewRequest reports whether RoundTrip may still open streams (the
// session is alive and no GOAWAY was sent or received).
func (cc *ClientConn) CanTakeNewRequest() bool {
	cc.s.mu.Lock()
	defer cc.s.mu.Unlock()
	return !cc.s.dead && !cc.s.goAwaySent && cc.s.goAwayReceived == nil
}

func requestHeaders(req *http.Request) (Header, error) {
	if req.URL == nil {
		return nil, errors.New("spdy: request has no URL")
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if host == "" {
		return nil, errors.New("spdy: request has no host")
	}
	scheme := req.URL.Scheme
	if scheme == "" {
		scheme = "https"
	}
	path := req.URL.RequestURI()
	h := Header{
		":method":  {method},
		":path":    {path},
		":version": {"HTTP/1.1"},
		":host":    {host},
		":scheme":  {scheme},
	}
	if err := fromHTTPHeader(h, req.Header); err != nil {
		return nil, err
	}
	if req.ContentLength > 0 && h.Get("content-length") == "" {
		h.Set("content-length", fmt.Sprint(req.ContentLength))
	}
	return h, nil
}

// RoundTrip sends req on a new stream and returns the response as soon as
// its SYN_REPLY arrives; the body streams. The priority comes from
// WithPriority on req.Context() (default 3). RoundTrip waits while the peer's
// MAX_CONCURRENT_STREAMS is reached (and, with AwaitPeerSettings, while a
// stream is open before the peer's first frame). Errors matching ErrNotProcessed mean the
// server did not process the request and it can be retried elsewhere.
func (cc *ClientConn) RoundTrip(req *http.Request) (*http.Response, error) {
	s := cc.s
	ctx := req.Context()
	trace := httptrace.ContextClientTrace(ctx)
	h, err := requestHeaders(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	pri := priorityFrom(ctx)

	s.mu.Lock()
	if err := s.waitSlotLocked(ctx); err != nil {
		s.mu.Unlock()
		closeBody(req)
		return nil, err
	}
	id := s.nextLocalID
	s.nextLocalID += 2
	st := s.newStreamLocked(id, pri)
	var flags uint8
	if !hasBody {
		flags = FlagFin
		st.localClosed = true
	}
	var written func()
	if trace != nil {
		written = func() {
			if trace.WroteHeaders != nil {
				trace.WroteHeaders()
			}
			if !hasBody && trace.WroteRequest != nil {
				trace.WroteRequest(httptrace.WroteRequestInfo{})
			}
		}
	}
	// Queued under the same lock that assigned the id: ids hit the wire in order.
	s.sched.pushControl(&SynStreamFrame{Stream: id, Priority: pri, Flags: flags, Headers: h}, written)
	s.wake.Signal()
	s.resetIdleLocked()
	s.mu.Unlock()

	if hasBody {
		go cc.sendBody(st, req, trace)
	}
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.resetLocked(st, RstCancel, ctx.Err())
		s.mu.Unlock()
	})
	<-st.replied
	s.mu.Lock()
	if !st.gotReply {
		err := st.err
		s.mu.Unlock()
		stop()
		return nil, err
	}
	rh := st.replyHeaders
	s.mu.Unlock()
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	resp, err := buildResponse(rh, st, req)
	if err != nil {
		s.mu.Lock()
		s.resetLocked(st, RstProtocolError, err)
		s.mu.Unlock()
		stop()
		return nil, err
	}
	resp.Body = &clientBody{bodyReader: bodyReader{st: st}, stop: stop, resp: resp}
	return resp, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// sendBody streams the request body as flow-controlled DATA frames.
func (cc *ClientConn) sendBody(st *stream, req *http.Request, trace *httptrace.ClientTrace) {
	defer req.Body.Close()
	buf := make([]byte, cc.s.maxFrame)
	var sent int64
	for {
		// One Read per frame: a streaming body's bytes go out as soon as
		// they exist instead of waiting to fill a frame.
		n, rerr := req.Body.Read(buf)
		if rerr != nil && rerr != io.EOF {
			cc.s.mu.Lock()
			cc.s.resetLocked(st, RstCancel, fmt.Errorf("spdy: reading request body: %w", rerr))
			cc.s.mu.Unlock()
			return
		}
		fin := rerr == io.EOF
		sent += int64(n)
		if fin && req.ContentLength > 0 && sent != req.ContentLength {
			cc.s.mu.Lock()
			cc.s.resetLocked(st, RstCancel, fmt.Errorf("spdy: request body has %d bytes, Content-Length says %d", sent, req.ContentLength))
			cc.s.mu.Unlock()
			return
		}
		if n == 0 && !fin {
			continue
		}
		if err := st.write(buf[:n], fin); err != nil {
			return
		}
		if fin {
			if trace != nil && trace.WroteRequest != nil {
				trace.WroteRequest(httptrace.WroteRequestInfo{})
			}
			return
		}
	}
}

func buildResponse(h Header, st *stream, req *http.Request) (*http.Response, error) {
	code, status, err := parseStatus(h.Get(":status"))
	if err != nil {
		return nil, err
	}
	major, minor, ok := http.ParseHTTPVersion(h.Get(":version"))
	if !ok {
		major, minor = 1, 1
	}
	resp := &http.Response{
		Status:        status,
		StatusCode:    code,
		Proto:         h.Get(":version"),
		ProtoMajor:    major,
		ProtoMinor:    minor,
		Header:        toHTTPHeader(h),
		ContentLength: contentLength(h),
		Request:       req,
	}
	if req != nil && req.Method == http.MethodHead {
		resp.ContentLength = -1
	}
	return resp, nil
}

// clientBody is a response body; closing it early cancels the stream.
type clientBody struct {
	bodyReader
	stop func() bool
	resp *http.Response
}

// Read fills resp.Trailer from HEADERS frames that followed the data, once
// the body is complete (as net/http does).
func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.bodyReader.Read(p)
	if err == io.EOF && b.resp != nil {
		s := b.st.s
		s.mu.Lock()
		tr := b.st.trailers
		s.mu.Unlock()
		if len(tr) > 0 {
			b.resp.Trailer = toHTTPHeader(tr)
		}
		b.resp = nil
	}
	return n, err
}

func (b *clientBody) Close() error {
	if b.stop != nil {
		b.stop()
	}
	return b.bodyReader.Close()
}

// acceptPush validates a server-initiated SYN_STREAM (section 3.3.2). mu held.
func (cc *ClientConn) acceptPush(f *SynStreamFrame) *StreamError {
	s := cc.s
	refuse := func(status RstStatus, reason string) *StreamError {
		return &StreamError{Stream: f.Stream, Status: status, Reason: reason}
	}
	if f.AssociatedTo == 0 {
		s.fatalLocked(sessionErrorf("server push SYN_STREAM %d with Associated-To-Stream-ID 0", f.Stream), GoAwayProtocolError, nil, true)
		return nil
	}
	// Section 3.3.1 requires FLAG_UNIDIRECTIONAL on pushes, but node-spdy
	// omits it; an even stream with an associated id can only be a push, so
	// it is treated as one (section 4.6 calls the flag redundant).
	assoc := s.streams[f.AssociatedTo]
	if assoc == nil || assoc.isPush {
		return refuse(RstInvalidStream, "push associated with a stream that is not open")
	}
	u, ok := pushURL(f.Headers)
	if !ok {
		return refuse(RstProtocolError, "push without :scheme, :host and :path (or, in SPDY/2, an absolute url)")
	}
	p := &PushPromise{URL: u, AssociatedStreamID: f.AssociatedTo, StreamID: f.Stream, Header: toHTTPHeader(f.Headers), Priority: f.Priority}
	s.stats.add(func(st *Stats) { st.PushesOffered++ })
	if cc.onPush != nil && !cc.onPush(p) {
		return refuse(RstCancel, "push declined")
	}
	cc.pushMu.Lock()
	_, dup := cc.pushed[u]
	cc.pushMu.Unlock()
	if dup {
		return refuse(RstCancel, "duplicate push of "+u)
	}
	st := s.newStreamLocked(f.Stream, f.Priority)
	st.isPush = true
	st.associated = f.AssociatedTo
	st.localClosed = true // unidirectional: we never send on it
	st.replyHeaders = Header{}
	for k, v := range f.Headers {
		st.replyHeaders[k] = v
	}
	if f.Headers.Get(":status") != "" {
		st.gotReply = true
		close(st.replied)
	}
	if f.Flags&FlagFin != 0 {
		st.remoteClosed = true
		st.recvFin = true
	}
	cc.pushMu.Lock()
	cc.pushed[u] = st
	cc.pushMu.Unlock()
	st.onClose = func() {
		// A push that failed before being claimed is forgotten.
		if st.err != nil {
			cc.pushMu.Lock()
			if cc.pushed[u] == st {
				delete(cc.pushed, u)
			}
			cc.pushMu.Unlock()
		}
	}
	s.stats.add(func(st *Stats) { st.PushesAccepted++ })
	s.maybeCloseLocked(st)
	return nil
}

// Pushed claims the pushed response for url (as announced:
// scheme://host/path). It waits for the push's response headers if they have
// not arrived yet. Each push can be claimed once.
func (cc *ClientConn) Pushed(url string) (*http.Response, bool) {
	cc.pushMu.Lock()
	st := cc.pushed[url]
	delete(cc.pushed, url)
	cc.pushMu.Unlock()
	if st == nil {
		return nil, false
	}
	<-st.replied
	s := cc.s
	s.mu.Lock()
	if !st.gotReply {
		s.mu.Unlock()
		return nil, false
	}
	h := st.replyHeaders
	st.claimed = true
	s.mu.Unlock()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, err := buildResponse(h, st, req)
	if err != nil {
		s.mu.Lock()
		s.resetLocked(st, RstProtocolError, err)
		s.mu.Unlock()
		return nil, false
	}
	resp.Body = &clientBody{bodyReader: bodyReader{st: st}, resp: resp}
	s.stats.add(func(st *Stats) { st.PushesClaimed++ })
	return resp, true
}

// PushedURLs lists pushes accepted and not yet claimed.
func (cc *ClientConn) PushedURLs() []string {
	cc.pushMu.Lock()
	defer cc.pushMu.Unlock()
	out := make([]string, 0, len(cc.pushed))
	for u := range cc.pushed {
		out = append(out, u)
	}
	return out
}

// ServerHints returns the URLs a response hints the client should fetch
// next (SPDY "server hint"): X-Associated-Content (mod_spdy's
// comma-separated, optionally quoted URLs) and Link headers with
// rel=subresource, rel=preload or rel=prefetch. Relative references are
// resolved against base when it is non-nil.
func ServerHints(h http.Header, base *url.URL) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ref string) {
		ref = strings.Trim(strings.TrimSpace(ref), "\"")
		if ref == "" {
			return
		}
		if base != nil {
			if u, err := base.Parse(ref); err == nil {
				ref = u.String()
			}
		}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	for _, v := range h.Values("X-Associated-Content") {
		for _, part := range strings.Split(v, ",") {
			// mod_spdy allowed an optional ":priority" suffix after a quoted URL.
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, "\"") {
				if end := strings.Index(part[1:], "\""); end >= 0 {
					part = part[1 : end+1]
				}
			}
			add(part)
		}
	}
	for _, v := range h.Values("Link") {
		for _, link := range strings.Split(v, ",") {
			link = strings.TrimSpace(link)
			if !strings.HasPrefix(link, "<") {
				continue
			}
			end := strings.Index(link, ">")
			if end < 0 {
				continue
			}
			target, params := link[1:end], strings.ToLower(link[end+1:])
			for _, p := range strings.Split(params, ";") {
				p = strings.TrimSpace(p)
				if !strings.HasPrefix(p, "rel=") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(p[4:], "\"")) {
					if rel == "subresource" || rel == "preload" || rel == "prefetch" {
						add(target)
					}
				}
			}
		}
	}
	return out
}

// AddServerHints sets X-Associated-Content on a response so SPDY clients
// (ServerHints) learn which resources to fetch next without a push.
func AddServerHints(h http.Header, urls ...string) {
	quoted := make([]string, 0, len(urls))
	for _, u := range urls {
		quoted = append(quoted, "\""+u+"\"")
	}
	if len(quoted) > 0 {
		h.Add("X-Associated-Content", strings.Join(quoted, ", "))
	}
}

// pushURL is the URL a push SYN_STREAM names: :scheme, :host and :path, or,
// as draft 2 words it ("url" holds the full URL of the pushed resource), an
// absolute URL in :path alone.
func pushURL(h Header) (string, bool) {
	scheme, host, path := h.Get(":scheme"), h.Get(":host"), h.Get(":path")
	if abs, err := url.Parse(path); err == nil && abs.IsAbs() && abs.Host != "" {
		return abs.String(), true
	}
	if scheme == "" || host == "" || path == "" {
		return "", false
	}
	return (&url.URL{Scheme: scheme, Host: host}).String() + path, true
}
