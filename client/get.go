package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// ALPN tokens Dial speaks besides the SPDY versions (spdy.Versions).
const (
	ProtoH2     = "h2"
	ProtoHTTP11 = "http/1.1"
)

// protocol is how Dial starts one protocol on a connection (TLS or plain
// TCP) once it is agreed.
type protocol struct {
	name  string
	start func(c *Conn, conn net.Conn, o DialOptions, drainer *pushDrainer) error
}

// protocols are the protocols Dial speaks over TCP, in preference order:
// the SPDY versions in spdy.Versions order, then h2 and HTTP/1.1.
var protocols = append(spdyProtocols(), protocol{ProtoH2, startH2}, protocol{ProtoHTTP11, startH1})

func spdyProtocols() []protocol {
	var ps []protocol
	for _, v := range spdy.Versions {
		ps = append(ps, protocol{v.Proto, startSPDY})
	}
	return ps
}

func lookupProtocol(name string) (protocol, bool) {
	for _, p := range protocols {
		if p.name == name {
			return p, true
		}
	}
	return protocol{}, false
}

// Protocols are the ALPN tokens Dial offers, in preference order.
var Protocols = protocolNames()

func protocolNames() []string {
	n := make([]string, len(protocols))
	for i, p := range protocols {
		n[i] = p.name
	}
	return n
}

// DialOptions configure Dial.
type DialOptions struct {
	// Proto insists on one protocol; "" offers Protocols over TLS and uses
	// what the server picks (http/1.1 for http:// URLs).
	Proto    string
	Insecure bool // accept any server certificate
	// StreamWindow is the SPDY and h2 per-stream receive window (0 = the
	// protocol's default for SPDY, Chrome's for h2); SessionWindow the
	// SPDY/3.1 session window (0 = 64 KiB).
	StreamWindow, SessionWindow int32
	// SPDY2Windows is whether a spdy/2 session keeps SPDY/3 stream
	// windows, as node-spdy's does (zero = spdy.SPDY2WindowsAuto: detected
	// from the server's frames).
	SPDY2Windows spdy.SPDY2Windows
	// Trace, when set, gets one line per frame (SPDY, h2) or head line
	// (HTTP/1.1), prefixed "> " when sent and "< " when received.
	Trace func(line string)
	// OnPushed, when set, enables server push: every push is read to its
	// end and reported (get has no cache to put it in; a push nobody reads
	// would hold its stream window).
	OnPushed func(url string, status int, n int64, err error)
}

// ConnTimings are the connection-level phases, paid once per origin.
type ConnTimings struct{ DNS, Connect, TLS time.Duration }

// Conn is one connection to an origin in whichever protocol it speaks.
type Conn struct {
	Proto     string
	Timings   ConnTimings
	Multiplex bool // concurrent requests share the connection
	rt        http.RoundTripper
	close     func() error
	drain     *pushDrainer
}

// RoundTrip sends req on the connection.
func (c *Conn) RoundTrip(req *http.Request) (*http.Response, error) { return c.rt.RoundTrip(req) }

// Close reads the pushes not yet read, then closes the connection.
func (c *Conn) Close() error {
	if c.drain != nil {
		c.drain.stop()
	}
	return c.close()
}

// Dial resolves, connects and (for https) handshakes with ALPN, then sets
// up the protocol the server agreed to.
func Dial(ctx context.Context, u *url.URL, o DialOptions) (*Conn, error) {
	if o.Proto == ProtoH3 {
		return dialH3(ctx, u, o)
	}
	raw, t, err := connect(ctx, u)
	if err != nil {
		return nil, err
	}
	conn, proto := net.Conn(raw), o.Proto
	if u.Scheme == "https" {
		start := time.Now()
		tc, got, err := handshake(ctx, raw, u.Hostname(), o)
		if err != nil {
			raw.Close()
			return nil, err
		}
		t.TLS = time.Since(start)
		conn, proto = tc, got
	} else if proto == "" {
		proto = ProtoHTTP11
	}
	c, err := newConn(conn, proto, o)
	if err != nil {
		conn.Close()
		return nil, err
	}
	c.Timings = t
	return c, nil
}

func connect(ctx context.Context, u *url.URL) (net.Conn, ConnTimings, error) {
	var t ConnTimings
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	start := time.Now()
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return nil, t, fmt.Errorf("resolving %s: %w", host, err)
	}
	t.DNS = time.Since(start)
	start = time.Now()
	var d net.Dialer
	var raw net.Conn
	for _, a := range addrs {
		raw, err = d.DialContext(ctx, "tcp", net.JoinHostPort(a, port))
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, t, fmt.Errorf("connecting: %w", err)
	}
	t.Connect = time.Since(start)
	return raw, t, nil
}

// handshake runs TLS offering o.Proto (or every protocol) by ALPN and
// returns the protocol chosen; errors say what to do about them.
func handshake(ctx context.Context, raw net.Conn, host string, o DialOptions) (*tls.Conn, string, error) {
	offer := Protocols
	if o.Proto != "" {
		offer = []string{o.Proto}
	}
	tc := tls.Client(raw, &tls.Config{ServerName: host, NextProtos: offer, InsecureSkipVerify: o.Insecure})
	if err := tc.HandshakeContext(ctx); err != nil {
		if o.Proto != "" && strings.Contains(err.Error(), "application protocol") {
			return nil, "", fmt.Errorf("TLS handshake: the server does not speak %s (offered only that by ALPN): %w", o.Proto, err)
		}
		var unknownCA x509.UnknownAuthorityError
		if errors.As(err, &unknownCA) {
			return nil, "", fmt.Errorf("TLS handshake: %w (spdylab's servers use throw-away certificates: add --insecure)", err)
		}
		return nil, "", fmt.Errorf("TLS handshake: %w", err)
	}
	got := tc.ConnectionState().NegotiatedProtocol
	switch {
	case o.Proto != "" && got != o.Proto && !(got == "" && o.Proto == ProtoHTTP11):
		tc.Close()
		if got == "" {
			return nil, "", fmt.Errorf("ALPN mismatch: asked for %s, the server negotiated no protocol", o.Proto)
		}
		return nil, "", fmt.Errorf("ALPN mismatch: asked for %s, the server chose %s", o.Proto, got)
	case got == "":
		got = ProtoHTTP11
	}
	return tc, got, nil
}

// newConn starts proto's client on conn.
func newConn(conn net.Conn, proto string, o DialOptions) (*Conn, error) {
	p, ok := lookupProtocol(proto)
	if !ok {
		return nil, fmt.Errorf("server chose %q, which spdylab does not speak", proto)
	}
	c := &Conn{Proto: proto, Multiplex: true}
	var drainer *pushDrainer
	if o.OnPushed != nil {
		drainer = newPushDrainer(o.OnPushed)
	}
	if err := p.start(c, conn, o, drainer); err != nil {
		return nil, err
	}
	return c, nil
}

func startSPDY(c *Conn, conn net.Conn, o DialOptions, drainer *pushDrainer) error {
	cfg := &spdy.ClientConfig{Config: spdy.Config{Version: c.Proto, InitialWindowSize: o.StreamWindow, SessionWindowSize: o.SessionWindow,
		SPDY2StreamWindows: o.SPDY2Windows}}
	if o.Trace != nil {
		var mu sync.Mutex
		cfg.Trace = func(sent bool, f spdy.Frame) {
			mu.Lock()
			o.Trace(direction(sent) + f.String())
			mu.Unlock()
		}
	}
	if drainer != nil {
		cfg.OnPush = func(*spdy.PushPromise) bool { drainer.notify(); return true }
	}
	cc, err := spdy.NewClientConn(conn, cfg)
	if err != nil {
		return err
	}
	c.useMux(cc, drainer)
	return nil
}

// muxConn is a SPDY or h2 client connection.
type muxConn interface {
	http.RoundTripper
	pushSource
	Close() error
}

// useMux makes cc the connection's transport, its pushes read by drainer.
func (c *Conn) useMux(cc muxConn, drainer *pushDrainer) {
	c.rt, c.close = cc, cc.Close
	c.drain = drainer.start(cc)
}

func startH2(c *Conn, conn net.Conn, o DialOptions, drainer *pushDrainer) error {
	cfg := H2Config{StreamWindow: o.StreamWindow}
	if o.Trace != nil {
		cfg.Trace = func(ev FrameEvent) { o.Trace(direction(ev.Sent) + ev.String()) }
	}
	if drainer != nil {
		cfg.OnPush = func(*PushPromise) bool { drainer.notify(); return true }
	}
	cc, err := NewH2Conn(conn, cfg)
	if err != nil {
		return err
	}
	c.useMux(cc, drainer)
	return nil
}

func startH1(c *Conn, conn net.Conn, o DialOptions, _ *pushDrainer) error {
	h := NewH1Conn(conn)
	if o.Trace != nil {
		h.Trace = func(sent bool, line string) { o.Trace(direction(sent) + line) }
	}
	c.rt, c.close, c.Multiplex = h, conn.Close, false
	return nil
}

func direction(sent bool) string {
	if sent {
		return "> "
	}
	return "< "
}

// pushSource is a connection that holds accepted pushes until claimed.
type pushSource interface {
	Pushed(url string) (*http.Response, bool)
	PushedURLs() []string
}

// pushDrainer reads every accepted push. The connection announces a push
// (OnPush) just before it registers it, so each announcement claims the
// pushes registered so far, and stop claims the rest: no polling.
type pushDrainer struct {
	report func(url string, status int, n int64, err error)
	wake   chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
	src    pushSource
}

func newPushDrainer(report func(string, int, int64, error)) *pushDrainer {
	return &pushDrainer{report: report, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// notify is called on the connection's reader goroutine: it never blocks.
func (d *pushDrainer) notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *pushDrainer) start(src pushSource) *pushDrainer {
	if d == nil {
		return nil
	}
	d.src = src
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			select {
			case <-d.wake:
				d.claimAll()
			case <-d.done:
				d.claimAll()
				return
			}
		}
	}()
	return d
}

func (d *pushDrainer) claimAll() {
	for _, u := range d.src.PushedURLs() {
		resp, ok := d.src.Pushed(u)
		if !ok {
			continue
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d.report(u, resp.StatusCode, n, err)
		}()
	}
}

// stop claims the pushes left and waits until every push was read.
func (d *pushDrainer) stop() {
	close(d.done)
	d.wg.Wait()
}

// GetRequest is what `spdylab get` sends to every URL.
type GetRequest struct {
	Method string
	Body   []byte // nil: none
	Header http.Header
}

// GetResult is one URL's outcome.
type GetResult struct {
	URL    *url.URL
	Proto  string
	Conn   ConnTimings // zero when the connection was reused
	Reused bool
	Status int
	Body   []byte
	TTFB   time.Duration
	Total  time.Duration
	Err    error
}

// Get fetches every URL, one connection per origin (origins one after the
// other, in first-seen order), the URLs of one origin concurrently when its
// protocol multiplexes. onConnect is told about each connection as it opens.
// The error is an origin that could not be connected; per-URL failures are
// in the results.
func Get(ctx context.Context, urls []*url.URL, req GetRequest, o DialOptions, onConnect func(origin string, c *Conn)) ([]GetResult, error) {
	var origins []string
	byOrigin := map[string][]int{}
	for i, u := range urls {
		key := u.Scheme + "://" + u.Host
		if !slices.Contains(origins, key) {
			origins = append(origins, key)
		}
		byOrigin[key] = append(byOrigin[key], i)
	}
	results := make([]GetResult, len(urls))
	for _, origin := range origins {
		idx := byOrigin[origin]
		c, err := Dial(ctx, urls[idx[0]], o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", origin, err)
		}
		if onConnect != nil {
			onConnect(origin, c)
		}
		var wg sync.WaitGroup
		for n, i := range idx {
			run := func() {
				results[i] = fetchOne(ctx, c, urls[i], req)
				// The first request pays for the connection; the others reuse it.
				if n == 0 {
					results[i].Conn = c.Timings
				} else {
					results[i].Reused = true
				}
			}
			if c.Multiplex && len(idx) > 1 {
				wg.Add(1)
				go func() { defer wg.Done(); run() }()
			} else {
				run()
			}
		}
		wg.Wait()
		c.Close()
	}
	return results, nil
}

func fetchOne(ctx context.Context, c *Conn, u *url.URL, o GetRequest) GetResult {
	r := GetResult{URL: u, Proto: c.Proto}
	var body io.Reader
	if o.Body != nil {
		body = bytes.NewReader(o.Body)
	}
	start := time.Now()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { r.TTFB = time.Since(start) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), o.Method, u.String(), body)
	if err != nil {
		r.Err = err
		return r
	}
	for k, v := range o.Header {
		req.Header[k] = v
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "spdylab-get")
	}
	resp, err := c.RoundTrip(req)
	if err != nil {
		r.Err = err
		return r
	}
	defer resp.Body.Close()
	if r.TTFB == 0 {
		r.TTFB = time.Since(start)
	}
	r.Status = resp.StatusCode
	r.Body, err = io.ReadAll(resp.Body)
	r.Total = time.Since(start)
	if err != nil {
		r.Err = fmt.Errorf("reading body after %d bytes: %w", len(r.Body), err)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != int64(len(r.Body)) && r.Err == nil && req.Method != http.MethodHead {
		r.Err = fmt.Errorf("body is %d bytes but Content-Length said %d", len(r.Body), resp.ContentLength)
	}
	return r
}
