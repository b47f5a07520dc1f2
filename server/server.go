// Package server is what `spdylab serve` runs: one listener that speaks
// SPDY/3.1, SPDY/3, HTTP/2 and HTTP/1.1 over TLS, choosing by ALPN, or each of
// them over plain TCP (ServePlain, plain.go); a file handler over a directory written by the page
// package; a server-push policy; and a few lab endpoints that let peers check
// transfers end to end.
//
// Files: GET/HEAD of a path under Config.Root answers the file with its exact
// Content-Length and a Content-Type taken from the page manifest
// (Root/manifest.json, or Config.Manifest) or else from the extension; a
// manifest resource's Headers (e.g. `Link: </a.css>; rel=preload`) are added
// to its response. Missing files are 404; directories serve index.html.
//
// Lab endpoints (never read from Root):
//
//	GET  /_spdylab/bytes?n=N&seed=S  N deterministic bytes (xorshift32 stream, see
//	                                 DeterministicReader), application/octet-stream
//	POST /_spdylab/sha256[/...]      {"sha256": hex of the body, "length": bytes, "protocol": ...}
//	ANY  /_spdylab/info              what the server saw: protocol, method, path, host,
//	                                 headers, SPDY priority
//
// Push policies: "none"; "manifest" pushes Config.PushMap[path] (or, when the
// map is nil, the children the manifest lists for that path on the same host)
// along with the parent; "preload" pushes the same-origin targets of the
// response's `Link: <...>; rel=preload` headers. Push needs a protocol with
// push (SPDY, h2); HTTP/1.1 responses are unchanged.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// ALPN protocol tokens the server knows: the SPDY versions of
// spdy.Versions, served by the spdy package, and h2 and HTTP/1.1, served by
// net/http.
const (
	ProtoSPDY31 = spdy.ProtoSPDY31
	ProtoSPDY3  = spdy.ProtoSPDY3
	ProtoSPDY2  = spdy.ProtoSPDY2
	ProtoH2     = "h2"
	ProtoHTTP11 = "http/1.1"
)

// spdyVersions are the SPDY protocols the server speaks: spdy.Versions.
var spdyVersions = spdy.VersionNames()

// DefaultProtocols is the ALPN preference when Config.Protocols is empty:
// the SPDY versions in spdy.Versions order, then h2 and HTTP/1.1.
var DefaultProtocols = append(slices.Clone(spdyVersions), ProtoH2, ProtoHTTP11)

// H2Config are the HTTP/2 settings the server advertises.
type H2Config struct {
	MaxConcurrentStreams uint32 // 0 = 100
	InitialWindowSize    int32  // per-stream receive window; 0 = Go's default (1 MiB)
	ConnWindowSize       int32  // connection receive window; 0 = Go's default (1 MiB)
}

// Config configures a Server. The zero value serves every protocol with a
// throw-away certificate and only the lab endpoints.
type Config struct {
	Root string // directory of files to serve; "" = lab endpoints only
	// Manifest is the page manifest to read content types, response headers
	// and the push map from; "" = Root/manifest.json when that exists.
	Manifest string
	// Site, when set, is that manifest already parsed (Manifest and Root's
	// manifest.json are then not read): a bench with one server per
	// namespace parses a page of hundreds of resources once, not once per
	// server. The server only reads it.
	Site *page.Manifest
	// Protocols lists the ALPN protocols offered over TLS, most preferred
	// first: a subset of spdy/3.1, spdy/3, spdy/2, h2, http/1.1. Empty = DefaultProtocols.
	Protocols []string
	// Plain, when set, makes Serve serve this protocol over plain TCP
	// without TLS (and nothing else): one of Protocols, as ServePlain
	// takes it (http/1.1 and h2 share a listener that answers both).
	Plain string
	// Certificate for TLS; nil = a throw-away self-signed one for HostNames.
	Certificate *tls.Certificate
	// Certificates, when set, replace Certificate: one per host name, and
	// crypto/tls gives each client the first that covers its SNI name, so
	// every host of a replayed page shows a certificate of its own.
	Certificates []tls.Certificate
	HostNames    []string
	// HTTP1Hosts are host names whose TLS handshakes offer http/1.1 alone
	// by ALPN, whatever Protocols says: third parties of a page that never
	// turned the protocol under test on (the lab's deploy first-party).
	HTTP1Hosts []string
	// TLSMin and TLSMax bound TLS over TCP; h3 runs QUIC's TLS 1.3
	// whatever they say (RFC 9001), as probe.LoadTLS has h3 loads do.
	TLSMin  uint16 // tls.VersionTLS12 when 0
	TLSMax  uint16 // tls.VersionTLS13 when 0
	SPDY    spdy.Config
	H2      H2Config
	H3      H3Config            // HTTP/3 over UDP, served by ServeH3
	Push    string              // PushNone (""), PushManifest or PushPreload
	PushMap map[string][]string // parent path -> paths to push with it (PushManifest)
	// Hints is HintsNone ("") or HintsDeps: a document's SPDY response
	// lists its direct children in X-Associated-Content (deps.go).
	Hints string
	// DepsMap is document path -> the paths it references directly, for
	// PushDeps and HintsDeps; nil = the manifest's DependencyMap.
	DepsMap map[string][]string
	// FrameSize is the SPDY sessions' largest DATA payload (the scheduler's
	// interleaving granularity); 0 = SPDY.MaxFrameSize as given (16 KiB).
	FrameSize int
	// PacingRate sets SO_MAX_PACING_RATE in bytes/s on every accepted
	// TCP connection, which turns on TCP's internal pacing (capped at that
	// rate; tcpopt.PacingUncapped for TCP's own rate); 0 = leave.
	PacingRate uint64
	// CC is the TCP congestion control set on the listener; accepted
	// connections inherit it. "" = the namespace default.
	CC string
	// Nagle leaves Nagle's algorithm on for accepted TCP connections: Go
	// sets TCP_NODELAY on every TCP connection, so the server clears it, as
	// a 2012 node.js server (study 1's node-spdy) never set it.
	Nagle bool
	// CipherSuites are the TLS 1.0-1.2 suites offered (nil = Go's
	// defaults); listing RSA key exchange suites enables them for this
	// server only (probe.TLSCipherSuites).
	CipherSuites []uint16
	// NotSentLowat sets TCP_NOTSENT_LOWAT on every accepted connection (and
	// is passed to SPDY sessions); 0 = leave the kernel default.
	NotSentLowat int
	// AdaptiveCC, AdaptiveLowat and AdaptivePacing run the adaptive
	// mechanisms on every accepted TCP connection (adapt.go): congestion
	// control switched to bbr on a loss without RTT inflation;
	// TCP_NOTSENT_LOWAT from the delivery rate and minimum RTT (not with
	// NotSentLowat); a pacing cap at the measured share while a queue
	// builds (adapt_pace.go; not with PacingRate).
	AdaptiveCC     bool
	AdaptiveLowat  bool
	AdaptivePacing bool
	// AdaptiveRegrow moves a connection to bbr when its RTT stays at its
	// minimum behind a full window in congestion avoidance (adapt.go).
	AdaptiveRegrow bool
	// HandshakeTimeout bounds the TLS handshake; 0 = 10 s.
	HandshakeTimeout time.Duration
	// MaxConns caps the connections served at once; 0 = DefaultMaxConns,
	// or 8 per host name of the site's manifest when that is more.
	// SPDY.IdleTimeout (0 = DefaultIdleTimeout) also bounds idle h2 and
	// HTTP/1.1 connections (limits.go).
	MaxConns int
	// MaxConnsPerClient caps the connections from one client address;
	// 0 = DefaultMaxConnsPerClient, or 8 per host name of the site's
	// manifest when that is more (never above MaxConns).
	MaxConnsPerClient int
	// MaxStreamsPerClient caps the SPDY and h2 request streams with a
	// running handler from one client address, over all its sessions; more
	// are refused (SPDY: RST_STREAM REFUSED_STREAM; h2: 503). 0 = DefaultMaxStreamsPerClient, or MAX_CONCURRENT_STREAMS
	// per host name of the site's manifest when that is more; negative =
	// no cap.
	MaxStreamsPerClient int
	Log                 *log.Logger // access and connection log; nil = silent
}

// Server serves one Config on any number of listeners.
type Server struct {
	cfg        Config
	tls        *tls.Config
	root       *os.Root
	meta       map[string]resourceMeta
	replay     map[string]resourceMeta // recorded pages: host+target -> body and answer
	pushMap    map[string][]string
	depsMap    map[string][]string // PushDeps and HintsDeps (deps.go)
	spdySrv    spdyServers
	httpSrv    *http.Server
	httpConn   *connListener
	bytesCache bytesCache
	h3         h3Servers
	gate       connGate
	streamGate streamGate
	siteHosts  int          // host names in the site's manifest (0 without one): sizes the connection caps
	sctp       sctpServed   // SPDY over SCTP (sctp.go)
	tcpInfo    tcpInfoLog   // TCP_INFO of accepted connections (tcpinfo.go)
	handshakes handshakeLog // handshakes by kind, open QUIC connections (views.go)

	ctx    context.Context // cancelled by Shutdown: SPDY sessions go away
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	url       string
	httpOnce  sync.Once
	closed    bool
	wg        sync.WaitGroup
}

// New checks cfg and prepares a server; nothing listens until Serve.
func New(cfg Config) (*Server, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, listeners: map[net.Listener]struct{}{}, conns: map[net.Conn]struct{}{}}
	var err error
	if s.root, err = openRoot(cfg.Root); err != nil {
		return nil, err
	}
	if err := s.loadManifest(); err != nil {
		s.closeRoot()
		return nil, err
	}
	s.gate.max, s.gate.perClient = connCaps(&s.cfg, s.siteHosts)
	s.streamGate.perClient = streamCap(&s.cfg, s.siteHosts)
	if cfg.PushMap != nil {
		s.pushMap = cfg.PushMap
	}
	if cfg.DepsMap != nil {
		s.depsMap = cfg.DepsMap
	}
	if cfg.Plain == "" {
		if s.tls, err = cfg.tlsConfig(); err != nil {
			s.closeRoot()
			return nil, err
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.spdySrv = s.newSPDYServers()
	s.httpConn = newConnListener()
	s.httpSrv = s.newHTTPServer()
	return s, nil
}

// normalize checks the configuration and fills in its defaults.
func (cfg *Config) normalize() error {
	if len(cfg.Protocols) == 0 {
		cfg.Protocols = slices.Clone(DefaultProtocols)
	}
	for i, p := range cfg.Protocols {
		if !slices.Contains(DefaultProtocols, p) {
			return fmt.Errorf("server: unknown protocol %q (want one of %s)", p, strings.Join(DefaultProtocols, ", "))
		}
		if slices.Contains(cfg.Protocols[:i], p) {
			return fmt.Errorf("server: protocol %q listed twice", p)
		}
	}
	if cfg.Plain != "" && !slices.Contains(cfg.Protocols, cfg.Plain) {
		return fmt.Errorf("server: plain-TCP protocol %q is not one of %s", cfg.Plain, strings.Join(cfg.Protocols, ", "))
	}
	switch cfg.Push {
	case "":
		cfg.Push = PushNone
	case PushNone, PushManifest, PushPreload, PushDeps:
	default:
		return fmt.Errorf("server: push policy %q is not %s", cfg.Push, probe.OneOf(probe.PushPolicies))
	}
	switch cfg.Hints {
	case "":
		cfg.Hints = HintsNone
	case HintsNone, HintsDeps:
	default:
		return fmt.Errorf("server: hints policy %q is not %s", cfg.Hints, probe.OneOf(probe.HintPolicies))
	}
	if cfg.TLSMin == 0 {
		cfg.TLSMin = tls.VersionTLS12
	}
	if cfg.TLSMax == 0 {
		cfg.TLSMax = tls.VersionTLS13
	}
	if cfg.TLSMin > cfg.TLSMax {
		return fmt.Errorf("server: TLS minimum version %#x is above the maximum %#x", cfg.TLSMin, cfg.TLSMax)
	}
	if cfg.FrameSize != 0 && (cfg.FrameSize < probe.MinFrameSize || cfg.FrameSize > probe.MaxFrameSize) {
		return fmt.Errorf("server: SPDY DATA frame size %d out of range %d..%d", cfg.FrameSize, probe.MinFrameSize, probe.MaxFrameSize)
	}
	if cfg.FrameSize > 0 {
		cfg.SPDY.MaxFrameSize = cfg.FrameSize
	}
	if cfg.NotSentLowat < 0 {
		return fmt.Errorf("server: negative TCP_NOTSENT_LOWAT %d", cfg.NotSentLowat)
	}
	cfg.applyLimitDefaults()
	if cfg.AdaptiveLowat && cfg.NotSentLowat != 0 {
		return fmt.Errorf("server: AdaptiveLowat sets TCP_NOTSENT_LOWAT per connection; NotSentLowat %d sets it fixed", cfg.NotSentLowat)
	}
	if cfg.AdaptivePacing && cfg.PacingRate != 0 {
		return fmt.Errorf("server: AdaptivePacing sets each connection's pacing cap from what it measures; PacingRate %d sets it fixed", cfg.PacingRate)
	}
	if cfg.NotSentLowat > 0 && cfg.SPDY.NotSentLowat == 0 {
		cfg.SPDY.NotSentLowat = cfg.NotSentLowat
	}
	return nil
}

// tlsConfig is the listener's TLS: the given certificates (or a throw-away
// one for the host names) and the protocols offered by ALPN.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	certList := cfg.Certificates
	switch {
	case len(certList) > 0:
	case cfg.Certificate != nil:
		certList = []tls.Certificate{*cfg.Certificate}
	default:
		c, err := certs.SelfSigned(cfg.HostNames...)
		if err != nil {
			return nil, err
		}
		certList = []tls.Certificate{c}
	}
	tc := &tls.Config{
		Certificates: certList,
		NextProtos:   cfg.Protocols,
		MinVersion:   cfg.TLSMin,
		MaxVersion:   cfg.TLSMax,
		CipherSuites: cfg.CipherSuites,
	}
	if len(cfg.HTTP1Hosts) > 0 {
		h1 := tc.Clone()
		h1.NextProtos = []string{ProtoHTTP11}
		tc.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			if slices.ContainsFunc(cfg.HTTP1Hosts, func(h string) bool { return strings.EqualFold(h, hello.ServerName) }) {
				return h1, nil
			}
			return nil, nil // the server's own list
		}
	}
	return tc, nil
}

// newHTTPServer is Go's server for h2 and HTTP/1.1 connections, which the
// ALPN dispatcher hands over through s.httpConn.
func (s *Server) newHTTPServer() *http.Server {
	cfg := &s.cfg
	var protos http.Protocols
	protos.SetHTTP1(slices.Contains(cfg.Protocols, ProtoHTTP11))
	protos.SetHTTP2(slices.Contains(cfg.Protocols, ProtoH2))
	// h2c with prior knowledge on plain listeners (ServePlain); TLS
	// connections are unaffected.
	protos.SetUnencryptedHTTP2(slices.Contains(cfg.Protocols, ProtoH2))
	hs := &http.Server{
		Handler:   s,
		Protocols: &protos,
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams:          int(cfg.H2.MaxConcurrentStreams),
			MaxReceiveBufferPerStream:     int(cfg.H2.InitialWindowSize),
			MaxReceiveBufferPerConnection: int(cfg.H2.ConnWindowSize),
		},
		ErrorLog:    cfg.Log,
		BaseContext: func(net.Listener) context.Context { return s.ctx },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return withConnRequests(context.WithValue(ctx, connKey{}, c))
		},
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				s.untrack(c)
			}
		},
	}
	cfg.h2Limits(hs)
	if cfg.Log == nil {
		hs.ErrorLog = log.New(discard{}, "", 0)
	}
	return hs
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Serve accepts connections on l until Shutdown or an accept error. The
// first listener served determines URL().
func (s *Server) Serve(l net.Listener) error { return s.serve(l, s.cfg.Plain) }

// serve is Serve and ServePlain: plain is "" for TLS with ALPN, else the
// protocol every connection on l speaks over plain TCP (plain.go).
func (s *Server) serve(l net.Listener, plain string) error {
	if err := tcpopt.SetCongestion(l, s.cfg.CC); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	if s.url == "" {
		scheme := "https"
		if plain != "" {
			scheme = "http"
		}
		s.url = scheme + "://" + dialableAddr(l.Addr()) + "/"
	}
	s.mu.Unlock()
	s.httpOnce.Do(func() {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.httpSrv.Serve(s.httpConn)
		}()
	})

	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c = s.tcpInfo.watch(c)
		if !s.gate.admit(c, s.logf) {
			c.Close()
			continue
		}
		if !s.track(c) {
			s.gate.release(c)
			c.Close()
			return http.ErrServerClosed
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handleConn(c, plain)
		}()
	}
}

// dialableAddr is addr as a client would dial it: a wildcard listener
// (":8443", "0.0.0.0:8443", "[::]:8443") is reachable as localhost.
func dialableAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// URL is https://host:port/ (http:// for plain SPDY) of the first listener
// served, "" before Serve.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	_, live := s.conns[c]
	delete(s.conns, c)
	s.mu.Unlock()
	if live {
		s.gate.release(c)
	}
}

// retrack replaces a raw connection by its TLS wrapper in the set of live
// connections, because net/http reports the wrapper when it closes it.
func (s *Server) retrack(raw, tc net.Conn) {
	s.mu.Lock()
	delete(s.conns, raw)
	s.conns[tc] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log.Printf(format, args...)
	}
}

// handleConn runs one accepted connection to its end: TLS handshake and ALPN
// dispatch, or plain is the protocol the listener speaks without TLS.
func (s *Server) handleConn(c net.Conn, plain string) {
	s.setSocketOptions(c)
	s.startAdapting(c)
	if plain != "" {
		s.servePlainConn(c, plain)
		return
	}

	var wire net.Conn = c
	if s.cfg.Nagle {
		wire = &splitJoiner{Conn: c} // nagle.go: TLS 1.0's split records in one write
	}
	tc := tls.Server(wire, s.tls)
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.HandshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		s.logf("%s: TLS handshake: %v", c.RemoteAddr(), err)
		s.untrack(c)
		c.Close()
		return
	}
	s.handshakes.add(tc.ConnectionState(), false)
	proto := tc.ConnectionState().NegotiatedProtocol
	if proto == "" && slices.Contains(s.cfg.Protocols, ProtoHTTP11) {
		proto = ProtoHTTP11 // a client without ALPN speaks HTTP/1.1
	}
	switch {
	case slices.Contains(spdyVersions, proto):
		defer s.untrack(c)
		defer tc.Close()
		s.serveSPDY(tc, proto)
	case proto == ProtoH2 || proto == ProtoHTTP11:
		// net/http takes the *tls.Conn as if it had accepted it: it sees the
		// completed handshake and hands h2 to its HTTP/2 server. It closes
		// the connection itself and reports it to ConnState, which forgets it.
		s.retrack(c, tc)
		if !s.httpConn.deliver(tc) {
			tc.Close()
			s.untrack(tc)
		}
	default:
		s.logf("%s: no common protocol (client offered none of %v)", c.RemoteAddr(), s.cfg.Protocols)
		tc.Close()
		s.untrack(c)
	}
}

// setSocketOptions applies the per-connection TCP knobs to an accepted
// connection (the congestion control comes with the listener).
func (s *Server) setSocketOptions(c net.Conn) {
	tc, ok := tcpopt.Unwrap(c)
	if !ok {
		return
	}
	if s.cfg.Nagle {
		if err := tc.SetNoDelay(false); err != nil {
			s.logf("%s: Nagle on: %v", c.RemoteAddr(), err)
		}
	}
	if err := tcpopt.SetNotSentLowat(tc, s.cfg.NotSentLowat); err != nil {
		s.logf("%s: TCP_NOTSENT_LOWAT: %v", c.RemoteAddr(), err)
	}
	if err := tcpopt.SetMaxPacingRate(tc, s.cfg.PacingRate); err != nil {
		s.logf("%s: %v", c.RemoteAddr(), err)
	}
}

// Shutdown stops accepting, asks every session to go away (SPDY and h2
// GOAWAY, HTTP/1.1 close after the current response) and waits for them
// until ctx is done; then it closes whatever is left. The files under Root
// are released.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	s.mu.Unlock()
	if already {
		s.wg.Wait()
		return nil
	}
	s.cancel()
	herr := errors.Join(s.httpSrv.Shutdown(ctx), s.h3.shutdown(ctx))
	s.httpConn.Close()

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.httpSrv.Close()
		<-done
	}
	s.closeRoot()
	if err == nil && herr != nil && !errors.Is(herr, context.Canceled) {
		err = herr
	}
	return err
}

// Close is Shutdown without grace.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Shutdown(ctx)
	return nil
}

func (s *Server) closeRoot() {
	if s.root != nil {
		s.root.Close()
	}
}

// Protocols returns the ALPN list the server offers.
func (s *Server) Protocols() []string { return slices.Clone(s.cfg.Protocols) }

// protoKey carries the negotiated protocol in a request's context.
type protoKey struct{}

func requestProtocol(r *http.Request) string {
	if p, ok := r.Context().Value(protoKey{}).(string); ok {
		return p
	}
	if r.ProtoMajor == 2 {
		return ProtoH2
	}
	return ProtoHTTP11
}
