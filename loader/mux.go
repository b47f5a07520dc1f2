package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/spdylab/spdylab/client"
	"github.com/spdylab/spdylab/har"
)

// muxSession is one multiplexed session (SPDY or HTTP/2) to one host.
type muxSession struct {
	ready chan struct{} // closed when c/rt or err is set
	c     *connection
	rt    http.RoundTripper
	close func() error
	// usable reports whether the session may take new requests (no
	// GOAWAY sent or received, not closed).
	usable func() bool
	err    error

	race raceState // guarded by sessions.mu
}

// raceState is a session's set-up while connections race for it.
type raceState struct {
	failed   int
	firstErr error
	settled  bool                      // ready is closed
	cancels  []context.CancelCauseFunc // one per attempt started, cancelled with errLostRace when settled
}

// sessions opens a load's sessions: Options.Sessions per host (one by
// default, as Chrome's SpdySessionPool kept), each known by its host and
// slot (the spreader's assignment, spread.go). A slot's session opens when
// its first request needs it, and later requests to the slot wait for it,
// as HTTPS's pool opens a connection when a request finds none free. With
// race > 1 (Options.RaceConnects, only with one session per host), while
// the session is being set up each further request starts another
// connection, up to race in all, and the first to be set up becomes the
// session.
type sessions struct {
	l    *load
	mu   sync.Mutex
	m    map[sessionKey]*muxSession
	open func(ctx context.Context, org origin) (*muxSession, error)
	race int
}

// sessionKey names one of a host's sessions.
type sessionKey struct {
	host string
	slot int // 0-based; 0 is the one a single-session load uses
}

func newSessions(l *load, open func(ctx context.Context, org origin) (*muxSession, error), race int) *sessions {
	return &sessions{l: l, m: map[sessionKey]*muxSession{}, open: open, race: race}
}

// get returns the session in host's slot, opening it if needed, and
// waits until it is set up.
func (s *sessions) get(ctx context.Context, host string, slot int) (*muxSession, error) {
	k := sessionKey{host, slot}
	s.mu.Lock()
	ms, ok := s.m[k]
	if ok && sessionGone(ms) {
		// The server sent GOAWAY (or the session ended): the next
		// request opens a new session, as Chrome does.
		ok = false
	}
	switch {
	case !ok:
		ms = &muxSession{ready: make(chan struct{})}
		s.m[k] = ms
		s.dialLocked(ms, host)
	case !ms.race.settled && len(ms.race.cancels) < s.race:
		s.dialLocked(ms, host)
	}
	s.mu.Unlock()
	select {
	case <-ms.ready:
		return ms, ms.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// dialLocked starts one more connection attempt for ms.
func (s *sessions) dialLocked(ms *muxSession, host string) {
	// The winner's context ends with the load's; the others' when it wins.
	ctx, cancel := context.WithCancelCause(s.l.ctx)
	attempt := len(ms.race.cancels)
	ms.race.cancels = append(ms.race.cancels, cancel)
	s.l.wg.Add(1)
	go func() {
		defer s.l.wg.Done()
		opened, err := s.open(ctx, s.l.origins[host])
		s.mu.Lock()
		defer s.mu.Unlock()
		if ms.race.settled {
			// Lost the race: the handshake finished after another's.
			// Its context was cancelled, so this is rare.
			if err == nil {
				opened.c.abandoned.Store(true)
				opened.close()
			}
			return
		}
		if err != nil {
			ms.race.failed++
			if ms.race.firstErr == nil {
				ms.race.firstErr = err
			}
			if ms.race.failed < len(ms.race.cancels) {
				return // another attempt may still make it
			}
			ms.err = ms.race.firstErr
		} else {
			ms.c, ms.rt, ms.close, ms.usable = opened.c, opened.rt, opened.close, opened.usable
		}
		s.settleLocked(ms, attempt)
	}()
}

// errLostRace is the cause of a racing connection's cancellation: it says
// so however late its handshake notices, even after the load has ended.
var errLostRace = errors.New("another connection won the host's session")

// settleLocked ends ms's race: the other attempts are cancelled, which
// closes their sockets mid-handshake (as Chromium cancels its other connect
// jobs once a session exists), and the waiting requests go on.
func (s *sessions) settleLocked(ms *muxSession, winner int) {
	ms.race.settled = true
	for i, cancel := range ms.race.cancels {
		if i != winner {
			cancel(errLostRace)
		}
	}
	close(ms.ready)
}

// ready returns the host's sessions that are set up and working, without
// waiting (a session still being set up cannot have pushed anything), in
// slot order.
func (s *sessions) ready(host string) []*muxSession {
	s.mu.Lock()
	var all []*muxSession
	for slot := range s.l.spread.n {
		if ms := s.m[sessionKey{host, slot}]; ms != nil {
			all = append(all, ms)
		}
	}
	s.mu.Unlock()
	var out []*muxSession
	for _, ms := range all {
		select {
		case <-ms.ready:
			if ms.err == nil {
				out = append(out, ms)
			}
		default:
		}
	}
	return out
}

// sessionGone reports whether a set-up session can take no new request.
func sessionGone(ms *muxSession) bool {
	select {
	case <-ms.ready:
		return ms.err == nil && ms.usable != nil && !ms.usable()
	default:
		return false
	}
}

func (s *sessions) each(fn func(*muxSession)) {
	s.mu.Lock()
	var all []*muxSession
	for _, ms := range s.m {
		all = append(all, ms)
	}
	s.mu.Unlock()
	for _, ms := range all {
		select {
		case <-ms.ready:
			if ms.err == nil {
				fn(ms)
			}
		default:
		}
	}
}

func (s *sessions) shutdown() {
	s.each(func(ms *muxSession) {
		if ms.close != nil {
			ms.close()
		}
	})
}

// traced returns ctx with an httptrace hook that stamps e's send and
// first-byte times, which the SPDY and HTTP/2 clients report.
func traced(ctx context.Context, e *entry) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaders: func() {
			e.mu.Lock()
			if e.sendStart.IsZero() { // not stamped by the dispatcher
				e.sendStart = time.Now()
			}
			e.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			e.mu.Lock()
			e.sendEnd = time.Now()
			e.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			e.mu.Lock()
			e.firstByte = time.Now()
			e.mu.Unlock()
		},
	})
}

// maxNotProcessedRetries bounds how often one request is sent again after
// the server did not process it (REFUSED_STREAM, above a GOAWAY's last
// stream id), as browsers retry such requests.
const maxNotProcessedRetries = 5

// muxFetch runs e over a session: builds the request, records timings and
// headers, and reads the body. A request the server did not process is sent
// again (on a new session when the old one is going away).
func muxFetch(ctx context.Context, l *load, ss *sessions, e *entry, withCtx func(context.Context) context.Context, consume func(io.Reader) (int64, error)) error {
	for attempt := 0; ; attempt++ {
		err := muxFetchOnce(ctx, l, ss, e, withCtx, consume)
		if err == nil || !client.NotProcessed(err) || attempt == maxNotProcessedRetries || ctx.Err() != nil {
			if err != nil && client.NotProcessed(err) && attempt > 0 {
				return fmt.Errorf("%w (after %d retries)", err, attempt)
			}
			return err
		}
		e.mu.Lock()
		e.sendStart, e.sendEnd, e.firstByte = time.Time{}, time.Time{}, time.Time{}
		e.retries++
		e.mu.Unlock()
	}
}

func muxFetchOnce(ctx context.Context, l *load, ss *sessions, e *entry, withCtx func(context.Context) context.Context, consume func(io.Reader) (int64, error)) error {
	ms, err := ss.get(ctx, e.url.Hostname(), e.session)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.conn = ms.c
	e.setup = !e.queued.After(ms.c.start) && ms.c.claimSetup()
	e.mu.Unlock()
	rctx := traced(ctx, e)
	if withCtx != nil {
		rctx = withCtx(rctx)
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, e.url.String(), nil)
	if err != nil {
		return err
	}
	hdrs := requestHeaders(e)
	for _, kv := range hdrs {
		req.Header.Set(kv.Name, kv.Value)
	}
	e.mu.Lock()
	e.reqHeaders = hdrs
	e.reqHdrSize = -1 // compressed per session; the totals are in Result
	e.mu.Unlock()
	sent, err := l.dispatch.dispatch(ctx)
	if err != nil {
		return err
	}
	if !sent.IsZero() {
		e.mu.Lock()
		e.sendStart = sent // the dispatcher's handover; else the write's (traced)
		e.mu.Unlock()
	}
	resp, err := ms.rt.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	now := time.Now()
	e.mu.Lock()
	if e.sendStart.IsZero() {
		e.sendStart = now
	}
	if e.firstByte.IsZero() {
		e.firstByte = now
	}
	e.status = resp.StatusCode
	e.statusText = statusText(resp)
	e.respHeaders = har.Headers(resp.Header)
	e.respHdrSize = -1
	e.mime = resp.Header.Get("Content-Type")
	e.mu.Unlock()
	if l.spread.demanding() {
		l.mu.Lock()
		e.large = l.spread.sized(e.url.Hostname(), e.session, e.large, resp.ContentLength)
		l.mu.Unlock()
	}
	if err := readBody(e, resp.Header.Get("Content-Encoding"), resp.Body, consume); err != nil {
		return fmt.Errorf("reading the response body: %w", err)
	}
	e.mu.Lock()
	e.end = time.Now()
	e.mu.Unlock()
	return nil
}

// raceConnects is how many connections may race for one host's session:
// none with several sessions per host, whose connections are the host's
// extra ones (racing for each would open up to MaxConnsPerHost per
// session).
func (l *load) raceConnects() int {
	if l.opt.RaceConnects && l.opt.Sessions <= 1 {
		return l.opt.MaxConnsPerHost
	}
	return 1
}
