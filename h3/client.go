// Package h3 is the client side of HTTP/3 over QUIC (quic-go) that
// spdylab's loader and `spdylab get` share: one QUIC connection over a UDP
// socket the caller made (so that it can belong to a network namespace),
// the handshake's timing and kind (full, resumed, 0-RTT), TLS session
// resumption and 0-RTT with the retry a browser performs when the server
// rejects early data, and the UDP payload bytes each way.
//
// The package knows nothing of the lab; it needs only quic-go.
package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// ALPN is HTTP/3's ALPN token.
const ALPN = http3.NextProtoH3

// Config configures one connection.
type Config struct {
	// TLS carries ServerName, RootCAs or InsecureSkipVerify, and the
	// ClientSessionCache that makes resumption (and 0-RTT) possible; nil
	// cache = every handshake is full. Versions and ALPN are set here.
	TLS *tls.Config
	// EarlyData sends requests in 0-RTT when the session cache holds a
	// ticket that allows it. If the server rejects the early data, the
	// requests are sent again once the handshake completes.
	EarlyData bool
	// StreamWindow is the per-stream receive window and ConnWindow the
	// connection's. Set, they are fixed (auto-tuning off), as SPDY's and
	// h2's windows are; 0 = quic-go's defaults (512 KiB, auto-tuned up to
	// 6 and 15 MiB).
	StreamWindow, ConnWindow uint64
	// HandshakeTimeout gives up a handshake that makes no progress for this
	// long; 0 = 5 s (quic-go's default). The dial's context bounds it too.
	HandshakeTimeout time.Duration
	// Counter, when set, adds the UDP payload bytes sent and received.
	Counter *Counter
}

// Handshake says how a connection was set up.
type Handshake struct {
	Start    time.Time // dialling began
	Ready    time.Time // requests could be sent: handshake complete, or 0-RTT keys ready
	Complete time.Time // handshake complete; zero if it never completed
	Resumed  bool      // a session ticket was accepted (abbreviated handshake)
	// EarlyData: requests went out in 0-RTT. EarlyRejected: the server
	// refused them and they were sent again after the handshake.
	EarlyData, EarlyRejected bool
	HelloRetry               bool // the server asked for another key share (one more round trip)
	// Redialed: the connection died while switching to 1-RTT after a
	// rejection and a new one was set up (one more round trip); see
	// Conn.redial.
	Redialed bool
}

// RoundTrips is the number of round trips the handshake put before the
// first request could be answered: 0 for accepted 0-RTT, otherwise 1
// (QUIC's handshake carries TLS 1.3's), plus one for a HelloRetryRequest.
func (h Handshake) RoundTrips() int {
	n := 1
	if h.EarlyData && !h.EarlyRejected {
		n = 0
	}
	if h.HelloRetry {
		n++
	}
	if h.Redialed {
		n++
	}
	return n
}

// Conn is one HTTP/3 connection. RoundTrip is safe for concurrent use.
type Conn struct {
	pc   net.PacketConn
	tr   *quic.Transport
	q    *quic.Conn
	h3tr *http3.Transport

	hsDone chan struct{} // closed when hs.Complete (or the failure) is known
	mu     sync.Mutex
	hs     Handshake
	cc     *http3.ClientConn
	early  bool          // requests go out as 0-RTT until the handshake says otherwise
	retry  chan struct{} // closed once the connection is usable after a rejection
	retErr error
	dial   func(context.Context) (*quic.Conn, error) // a 1-RTT connection to the same server (redial)
	redone chan struct{}                             // closed once redial is done

	closeOnce sync.Once
}

// Dial sets up a QUIC connection to addr over pc and returns once requests
// can be sent: after the handshake, or at once when 0-RTT is possible. Dial
// owns pc from then on: Close (or a failed Dial) closes it. A handshake
// that never completes fails when ctx ends or after HandshakeTimeout.
func Dial(ctx context.Context, pc net.PacketConn, addr net.Addr, cfg Config) (*Conn, error) {
	if cfg.TLS == nil {
		pc.Close()
		return nil, errors.New("h3: no TLS config (ServerName and verification are needed)")
	}
	if cfg.Counter != nil {
		pc = countBytes(pc, cfg.Counter)
	}
	tc := cfg.TLS.Clone()
	tc.NextProtos = []string{ALPN}
	tc.MinVersion, tc.MaxVersion = tls.VersionTLS13, tls.VersionTLS13
	qc := quicConfig(cfg)
	c := &Conn{
		pc:     pc,
		tr:     &quic.Transport{Conn: pc},
		h3tr:   &http3.Transport{DisableCompression: true},
		hsDone: make(chan struct{}),
	}
	c.hs.Start = time.Now()
	c.dial = func(ctx context.Context) (*quic.Conn, error) { return c.tr.Dial(ctx, addr, tc, qc) }
	var err error
	early := cfg.EarlyData && ticketAllowsEarlyData(tc)
	if cfg.EarlyData {
		c.q, err = c.tr.DialEarly(ctx, addr, tc, qc)
	} else {
		c.q, err = c.tr.Dial(ctx, addr, tc, qc)
	}
	if err != nil {
		c.tr.Close()
		pc.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("QUIC handshake with %s did not complete: %w", addr, context.Cause(ctx))
		}
		return nil, fmt.Errorf("QUIC handshake with %s: %w", addr, err)
	}
	c.hs.Ready = time.Now()
	switch {
	case early:
		// Requests go out as early data. Decided by the ticket, not by
		// whether the handshake is still running: on a fast path (loopback,
		// a descheduled goroutine) it may have completed, even rejecting
		// 0-RTT, before Dial got here; RoundTrip then takes the rejection
		// path, which is what happened on the wire.
		c.hs.EarlyData, c.early = true, true
		c.cc = c.h3tr.NewClientConn(c.q) // before awaitHandshake may replace it
		go c.awaitHandshake()
	default:
		if cfg.EarlyData {
			// DialEarly without a 0-RTT ticket waits for the handshake;
			// should 0-RTT have been rejected nonetheless, quic-go restarted
			// the stream space and only NextConnection takes it into use.
			if _, err := c.q.NextConnection(ctx); err != nil {
				c.Close()
				return nil, fmt.Errorf("QUIC handshake with %s: %w", addr, err)
			}
		}
		c.handshakeCompleted()
		close(c.hsDone)
		c.cc = c.h3tr.NewClientConn(c.q)
	}
	return c, nil
}

// quicConfig is the client's QUIC configuration: set windows are fixed
// (initial = maximum, so quic-go's auto-tuning cannot grow them).
func quicConfig(cfg Config) *quic.Config {
	qc := &quic.Config{HandshakeIdleTimeout: cfg.HandshakeTimeout}
	if cfg.StreamWindow > 0 {
		qc.InitialStreamReceiveWindow, qc.MaxStreamReceiveWindow = cfg.StreamWindow, cfg.StreamWindow
	}
	if cfg.ConnWindow > 0 {
		qc.InitialConnectionReceiveWindow, qc.MaxConnectionReceiveWindow = cfg.ConnWindow, cfg.ConnWindow
	}
	return qc
}

// ticketAllowsEarlyData reports whether the session cache holds a ticket
// for the server that allows 0-RTT, i.e. whether crypto/tls will send early
// data (crypto/tls keys its cache by ServerName).
func ticketAllowsEarlyData(tc *tls.Config) bool {
	if tc.ClientSessionCache == nil || tc.ServerName == "" {
		return false
	}
	cs, ok := tc.ClientSessionCache.Get(tc.ServerName)
	if !ok || cs == nil {
		return false
	}
	_, st, err := cs.ResumptionState()
	return err == nil && st != nil && st.EarlyData
}

// handshakeCompleted records what the completed handshake was.
func (c *Conn) handshakeCompleted() {
	st := c.q.ConnectionState()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hs.Complete = time.Now()
	c.hs.Resumed = st.TLS.DidResume
	c.hs.HelloRetry = st.TLS.HelloRetryRequest
	switch {
	case st.Used0RTT:
		c.hs.EarlyData = true
		c.early = false // requests from now on are ordinary 1-RTT ones
	case c.hs.EarlyData:
		c.hs.EarlyRejected = true
	}
}

// awaitHandshake waits for a 0-RTT connection's handshake. It ends with the
// connection.
func (c *Conn) awaitHandshake() {
	defer close(c.hsDone)
	q := c.conn()
	select {
	case <-q.HandshakeComplete():
	case <-q.Context().Done():
		// A connection that completed its handshake and then closed (see
		// redial) still reports the handshake it had.
		select {
		case <-q.HandshakeComplete():
		default:
			return
		}
	}
	c.handshakeCompleted()
	if c.Handshake().EarlyRejected {
		c.startRetry() // new requests go to the 1-RTT session at once
	}
}

// Handshake reports the handshake; call it after HandshakeDone for the
// final word on a 0-RTT connection.
func (c *Conn) Handshake() Handshake {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hs
}

// HandshakeDone is closed when the handshake completed or the connection
// ended before it did.
func (c *Conn) HandshakeDone() <-chan struct{} { return c.hsDone }

// LocalAddr and RemoteAddr are the UDP endpoints.
func (c *Conn) LocalAddr() net.Addr  { return c.conn().LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr { return c.conn().RemoteAddr() }

// conn is the QUIC connection in use (redial may replace it).
func (c *Conn) conn() *quic.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q
}

// Alive reports whether the connection can still carry requests: false
// once it closed, for instance after the idle timeout (30 s unless the
// server asks for less), when a browser opens a new one. A connection
// that died in the switch to 1-RTT after a rejection stays alive while it
// can still be dialled again (redial, once): requests sent to it wait for
// the new connection. Reported dead there, it made the loader open a
// second connection to the host, with a handshake of its own, between the
// death and the redial (seen under CPU contention, where http3's
// control-stream goroutine loses that race).
func (c *Conn) Alive() bool {
	c.mu.Lock()
	q, rejected, redone, failed := c.q, c.retry != nil, c.redone, c.retErr != nil
	c.mu.Unlock()
	switch {
	case failed:
		return false
	case q.Context().Err() == nil:
		return true
	case !rejected:
		return false
	case redone == nil:
		return true // the next request dials again
	}
	select {
	case <-redone:
		return false // dialled again, and that connection ended too
	default:
		return true // being dialled again
	}
}

// Stats are quic-go's counters of the connection (RTT, cwnd, losses); after
// a redial, of the new connection.
func (c *Conn) Stats() quic.ConnectionStats { return c.conn().ConnectionStats() }

// RoundTrip sends req on a new request stream. While 0-RTT is in use, GET
// and HEAD go out as early data; when the server rejects it, the request is
// sent again over the completed handshake (a fresh HTTP/3 session on the
// same QUIC connection, as RFC 9114 requires after a rejection).
func (c *Conn) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	cc, early, retry := c.cc, c.early, c.retry
	c.mu.Unlock()
	if retry != nil {
		return c.afterRejection(req, retry)
	}
	if !early {
		resp, err := cc.RoundTrip(req)
		if err != nil && rejectedStream(req, err) {
			// A request that took this connection's client just before
			// the switch (or on a dial that found a ticket our check did
			// not) met the rejected stream space.
			return c.afterRejection(req, c.startRetry())
		}
		return resp, err
	}
	r, done := c.earlyRequest(req)
	resp, err := cc.RoundTrip(r)
	if err != nil {
		done()
		if c.rejected(req.Context()) || rejectedStream(req, err) {
			return c.afterRejection(req, c.startRetry())
		}
		return nil, err
	}
	resp.Body = &closeHook{ReadCloser: resp.Body, hook: done}
	return resp, nil
}

// rejected waits for the handshake and reports whether the server refused
// the early data. The error a rejected request sees depends on when the
// rejection arrived (quic.Err0RTTRejected, a reset stream, an incomplete
// frame), so the handshake's outcome decides, not the error.
func (c *Conn) rejected(ctx context.Context) bool {
	select {
	case <-c.hsDone:
	case <-ctx.Done():
		return false
	}
	return c.Handshake().EarlyRejected
}

// rejectedStream reports an error that says the request's stream was in
// the stream space 0-RTT's rejection closed, wherever it surfaced (opening
// the stream, writing the request, parsing the response's first frame:
// http3 wraps quic.Err0RTTRejected in each), for a request that can be
// sent again (no body, or one GetBody gives anew).
func rejectedStream(req *http.Request, err error) bool {
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	return replayable && errors.Is(err, quic.Err0RTTRejected)
}

// earlyRequest prepares req for 0-RTT: GET and HEAD go out as early data
// (other methods wait for the handshake: they may not be idempotent).
//
// The request's end (FIN) is held back until the handshake completes, by an
// empty body that ends then. Why: quic-go v0.65 does not shut down a 0-RTT
// stream whose FIN was already written when the server rejects early data,
// and http3's failed round trip then resets that stream; the RESET_STREAM
// goes out under the stream's number in the stream space that restarts
// after the rejection, where it kills the requests sent again (the server
// answers H3_REQUEST_INCOMPLETE). A stream still open is shut down cleanly
// and sends nothing. The server answers on HEADERS, so the held-back FIN
// delays no response; the request's trace reports it written with its
// headers, as it would be without the workaround.
//
// done releases what the request holds; call it when the response body is
// closed or the round trip failed.
func (c *Conn) earlyRequest(req *http.Request) (r *http.Request, done func()) {
	var m string
	switch req.Method {
	case "", http.MethodGet:
		m = http3.MethodGet0RTT
	case http.MethodHead:
		m = http3.MethodHead0RTT
	default:
		return req, func() {}
	}
	ctx, stop := detachTrace(req.Context())
	r = req.Clone(ctx)
	r.Method = m
	r.Body = finAfter{c.hsDone}
	r.ContentLength = 0 // with a body: unknown, so no content-length is sent
	return r, stop
}

// finAfter is a request body with no bytes that ends when done is closed.
type finAfter struct{ done <-chan struct{} }

func (f finAfter) Read([]byte) (int, error) {
	<-f.done
	return 0, io.EOF
}

func (f finAfter) Close() error { return nil }

// detachTrace returns a context cancelled with ctx but without its
// httptrace hooks, carrying instead hooks that report the request written
// when its headers are (the held-back FIN is not part of the request).
func detachTrace(ctx context.Context) (context.Context, func()) {
	dctx, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	release := func() {
		stop()
		cancel(context.Canceled)
	}
	t := httptrace.ContextClientTrace(ctx)
	if t == nil {
		return dctx, release
	}
	return httptrace.WithClientTrace(dctx, &httptrace.ClientTrace{
		WroteHeaders: func() {
			if t.WroteHeaders != nil {
				t.WroteHeaders()
			}
			if t.WroteRequest != nil {
				t.WroteRequest(httptrace.WroteRequestInfo{})
			}
		},
		GotFirstResponseByte: t.GotFirstResponseByte,
	}), release
}

// closeHook runs hook once the body is closed.
type closeHook struct {
	io.ReadCloser
	hook func()
	once sync.Once
}

func (b *closeHook) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.hook)
	return err
}

// startRetry begins (once) the switch to a 1-RTT HTTP/3 session after the
// server rejected 0-RTT, and returns the channel closed when it is ready.
func (c *Conn) startRetry() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.retry != nil {
		return c.retry
	}
	c.retry = make(chan struct{})
	c.early = false
	ch := c.retry
	go func() {
		defer close(ch)
		// NextConnection waits for the handshake (or the connection's end).
		q, err := c.conn().NextConnection(context.Background())
		if err != nil {
			// The connection died in the switch (see redial).
			<-c.redial()
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cc = c.h3tr.NewClientConn(q)
	}()
	return ch
}

// redial replaces a connection that died while switching to 1-RTT after a
// rejection with a new one (no early data; the ticket still resumes), once,
// and returns the channel closed when it is done (c.cc, or c.retErr).
//
// Why a connection dies there: http3's client connection opens its control
// stream from a goroutine, and closes the whole QUIC connection
// (H3_INTERNAL_ERROR) when that open fails. quic-go fails stream opens
// with quic.Err0RTTRejected from the rejection until NextConnection takes
// the fresh stream space into use, so a goroutine that the scheduler held
// back until that window (CPU contention) kills the connection; one held
// back past it opens a second control stream, which the server refuses by
// closing the connection. Neither can be prevented from outside http3.
func (c *Conn) redial() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.redone != nil {
		return c.redone
	}
	ch := make(chan struct{})
	c.redone = ch
	old := c.q
	go func() {
		defer close(ch)
		old.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		q, err := c.dial(context.Background())
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			c.retErr = fmt.Errorf("dialling again after the server rejected 0-RTT and the connection failed: %w", err)
			return
		}
		c.q, c.cc, c.retErr = q, c.h3tr.NewClientConn(q), nil
		c.hs.Redialed = true
	}()
	return ch
}

func (c *Conn) afterRejection(req *http.Request, ready chan struct{}) (*http.Response, error) {
	select {
	case <-ready:
	case <-req.Context().Done():
		return nil, context.Cause(req.Context())
	}
	c.mu.Lock()
	cc, q, err := c.cc, c.q, c.retErr
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	resp, err := cc.RoundTrip(rewind(req))
	if err == nil || !replayable(req, err, q) {
		return resp, err
	}
	// The connection died in the switch, or the request met the rejected
	// stream space: send it again on a new connection.
	select {
	case <-c.redial():
	case <-req.Context().Done():
		return nil, context.Cause(req.Context())
	}
	c.mu.Lock()
	cc, rerr := c.cc, c.retErr
	c.mu.Unlock()
	if rerr != nil {
		return nil, rerr
	}
	return cc.RoundTrip(rewind(req))
}

// replayable reports whether a request that failed on q after a rejection
// may be sent again: its stream met the rejected space, or q ended (a
// request the server never answered), and its body can be sent again.
func replayable(req *http.Request, err error, q *quic.Conn) bool {
	if req.Context().Err() != nil {
		return false
	}
	if rejectedStream(req, err) {
		return true
	}
	canResend := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	return canResend && connEnded(err, q)
}

// connEnded reports whether a request failed because its connection
// ended: the error is the connection's own close (a quic.ApplicationError;
// a stream's reset is a quic.StreamError), or q's context has ended. The
// error can come first: http3's client closes the connection
// (H3_INTERNAL_ERROR, local) when its control stream cannot open in the
// switch, and a request may meet the closed connection ("http3: conn
// unusable: H3_INTERNAL_ERROR (local)") before quic-go ends its context.
func connEnded(err error, q *quic.Conn) bool {
	var closed *quic.ApplicationError
	if errors.As(err, &closed) {
		return true
	}
	return q != nil && q.Context().Err() != nil
}

// rewind gives a request that is sent again a fresh body.
func rewind(req *http.Request) *http.Request {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return req
	}
	body, err := req.GetBody()
	if err != nil {
		return req
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r
}

// Close closes the connection (CONNECTION_CLOSE with H3_NO_ERROR) and the
// socket. It does not wait for open requests.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		err = c.conn().CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		c.tr.Close()
		if cerr := c.pc.Close(); err == nil {
			err = cerr
		}
	})
	return err
}
