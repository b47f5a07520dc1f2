package server

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// Server-wide limits (the per-session SPDY limits live in spdy/limits.go,
// and h2 gets the equivalent knobs of net/http here). Defaults are far above
// what the lab's own studies need: a page of 300+ resources over 8 shards
// opens at most 6 connections per shard and host.
const (
	// DefaultMaxConns caps live connections per Server; more are closed on
	// accept with a log line.
	DefaultMaxConns = 1024
	// DefaultMaxConnsPerClient caps live connections from one client
	// address, so that one client holding connections open (idle, or each
	// with half a frame) cannot lock every other client out. A browser
	// opens at most 6 per host name (https; the loader as many SPDY/h2
	// sessions, probe.MaxSessions): a server whose site names
	// many hosts (a replayed page) raises both caps to 8 per host name
	// (connCaps), so the limits never bite the lab's own loads. Each SPDY
	// session costs about 200 KiB once it carries a request (its read and
	// write buffers and header decompression context): 64 keep a client
	// that opens as many as it may, each full of streams that never finish,
	// under 64 MiB of RSS with DefaultMaxStreamsPerClient (256 did not:
	// bench/dos, "never-finished streams on each connection").
	DefaultMaxConnsPerClient = 64
	// connsPerHostName is what connCaps allows per host name of the site.
	connsPerHostName = 8
	// DefaultMaxStreamsPerClient caps the SPDY and h2 request handlers
	// running at once for one client address, across all its sessions;
	// streams past it are refused (SPDY: RST_STREAM REFUSED_STREAM; h2: 503,
	// admitH2). Each costs a goroutine
	// and its request, about 8 KiB, so a client filling every session's
	// MAX_CONCURRENT_STREAMS with uploads that never finish (64
	// connections x 100 streams) would pin about 50 MiB. A browser keeps
	// one session per host name with at most MAX_CONCURRENT_STREAMS open:
	// a server whose site names many hosts raises the cap to that per host
	// name (streamCap), so it never bites the lab's own loads.
	DefaultMaxStreamsPerClient = 512
	// DefaultIdleTimeout closes SPDY sessions and h2/HTTP/1.1 connections
	// that have had no open stream for this long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultHandshakeTimeout bounds the TLS handshake.
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultReadHeaderTimeout bounds HTTP/1.1 request headers (slowloris).
	DefaultReadHeaderTimeout = 30 * time.Second
	// h2WriteByteTimeout closes an h2 connection whose peer has not taken a
	// byte for this long; a slow emulated link still moves bytes far faster.
	h2WriteByteTimeout = time.Minute
)

func (c *Config) applyLimitDefaults() {

	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if c.SPDY.IdleTimeout == 0 {
		c.SPDY.IdleTimeout = DefaultIdleTimeout
	}
}

// h2Limits sets the net/http (HTTP/1.1 and h2) equivalents of the SPDY
// limits on srv.
func (c *Config) h2Limits(srv *http.Server) {
	srv.ReadHeaderTimeout = DefaultReadHeaderTimeout
	srv.IdleTimeout = c.SPDY.IdleTimeout
	headerBytes := c.SPDY.MaxHeaderBytesPerStream
	if headerBytes == 0 {
		headerBytes = spdy.DefaultMaxHeaderBytesPerStream
	}
	srv.MaxHeaderBytes = headerBytes
	srv.HTTP2.MaxReadFrameSize = 1 << 20
	srv.HTTP2.WriteByteTimeout = h2WriteByteTimeout
	srv.HTTP2.PingTimeout = 15 * time.Second
	srv.HTTP2.SendPingTimeout = c.SPDY.IdleTimeout
	// net/http's h2 server already bounds queued control frames and answers
	// rapid reset (CVE-2023-44487) by itself; MaxConcurrentStreams is set
	// from H2Config (0 = 100).
}

// connGate is the per-server connection cap.
type connGate struct {
	max, perClient int
	mu             sync.Mutex
	n              int
	byClient       map[string]int // live connections per client IP
	// lastLog rate-limits the "limit reached" line to one per second, with
	// the count refused since the previous line.
	lastLog time.Time
	refused int
}

// connCaps are the connection caps of a server whose site names hosts
// host names (0 without a manifest): the configured values, or defaults
// that leave room for a browser's connections to every name.
func connCaps(cfg *Config, hosts int) (total, perClient int) {
	total = cfg.MaxConns
	if total == 0 {
		total = max(DefaultMaxConns, connsPerHostName*hosts)
	}
	perClient = cfg.MaxConnsPerClient
	if perClient == 0 {
		perClient = max(DefaultMaxConnsPerClient, connsPerHostName*hosts)
	}
	return total, min(perClient, total)
}

// streamCap is the per-client stream cap of a server whose site names
// hosts host names: the configured value, or the default raised to a full
// session of streams per host name (one session's worth without a site).
func streamCap(cfg *Config, hosts int) int {
	if cfg.MaxStreamsPerClient != 0 {
		return cfg.MaxStreamsPerClient
	}
	perSession := int(cfg.SPDY.MaxConcurrentStreams)
	if perSession == 0 {
		perSession = spdy.DefaultMaxConcurrentStreams
	}
	// h2 sessions count against the same cap: a full one of either.
	perSession = max(perSession, int(cfg.H2.MaxConcurrentStreams))
	return max(DefaultMaxStreamsPerClient, perSession*max(hosts, 1))
}

// streamGate is the per-client cap on running SPDY and h2 request
// handlers: SPDY's through spdy.Server.AdmitStream, h2's in ServeHTTP
// (admitH2). One count per client over both, since one client may hold
// sessions of each.
type streamGate struct {
	perClient int // <= 0: no cap
	mu        sync.Mutex
	byClient  map[string]int
	lastLog   time.Time // the "limit reached" line, once a second at most
	refused   int
}

// admit takes a handler slot for c's client, or refuses the stream.
func (g *streamGate) admit(c net.Conn, logf func(string, ...any)) (release func(), ok bool) {
	return g.admitClient(clientOf(c), logf)
}

// admitClient takes a handler slot for client, or refuses the stream.
func (g *streamGate) admitClient(client string, logf func(string, ...any)) (release func(), ok bool) {
	if g.perClient <= 0 {
		return func() {}, true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byClient[client] >= g.perClient {
		g.refused++
		if now := time.Now(); now.Sub(g.lastLog) >= time.Second {
			logf("%s: refused %d stream(s)", g.limitReached(client), g.refused)
			g.lastLog, g.refused = now, 0
		}
		return nil, false
	}
	if g.byClient == nil {
		g.byClient = map[string]int{}
	}
	g.byClient[client]++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.byClient[client]--; g.byClient[client] <= 0 {
			delete(g.byClient, client)
		}
	}, true
}

// limitReached says which limit refused client's stream and how to raise it.
func (g *streamGate) limitReached(client string) string {
	return fmt.Sprintf("limit of %d open SPDY/h2 streams per client reached by %s (raise with --max-streams-per-client)", g.perClient, client)
}

// admitH2 applies the stream cap to an h2 request. Go's h2 server gives a
// handler no way to refuse its stream (RST_STREAM REFUSED_STREAM), so a
// refused request is answered 503 with Retry-After and the limit named:
// like a refused stream, it was not processed and may be retried.
func (s *Server) admitH2(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if requestProtocol(r) != ProtoH2 {
		return func() {}, true
	}
	client := clientOfAddr(r.RemoteAddr)
	release, ok = s.streamGate.admitClient(client, s.logf)
	if !ok {
		w.Header().Set("Retry-After", "1")
		http.Error(w, s.streamGate.limitReached(client), http.StatusServiceUnavailable)
	}
	return release, ok
}

// clientOf is the address a connection's client is counted under.
func clientOf(c net.Conn) string { return clientOfAddr(c.RemoteAddr().String()) }

// clientOfAddr is clientOf for an address string (host:port).
func clientOfAddr(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// admit reports whether one more connection may be served; logf is told
// when a limit refuses one.
func (g *connGate) admit(c net.Conn, logf func(string, ...any)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	client := clientOf(c)
	why := ""
	switch {
	case g.n >= g.max:
		why = fmt.Sprintf("connection limit of %d reached (raise with --max-conns)", g.max)
	case g.perClient > 0 && g.byClient[client] >= g.perClient:
		why = fmt.Sprintf("limit of %d connections per client reached by %s (raise with --max-conns-per-client)", g.perClient, client)
	default:
		g.n++
		if g.byClient == nil {
			g.byClient = map[string]int{}
		}
		g.byClient[client]++
		return true
	}
	g.refused++
	if now := time.Now(); now.Sub(g.lastLog) >= time.Second {
		logf("%s: refused %d connection(s), latest from %s", why, g.refused, c.RemoteAddr())
		g.lastLog, g.refused = now, 0
	}
	return false
}

func (g *connGate) release(c net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	client := clientOf(c)
	if g.byClient[client]--; g.byClient[client] <= 0 {
		delete(g.byClient, client)
	}
}

// LimitFlags are the `spdylab serve` flags for the limits. Names are a
// public contract.
type LimitFlags struct {
	maxConns, maxPerClient, maxHeaderBytes, maxControl, maxInflated *int
	maxStreamsPerClient                                             *int
	resetsPerSec, emptyPerSec, settingsPerSec, refusedPerSec        *int
	idle, handshake, frameRead                                      *time.Duration
}

// RegisterLimitFlags adds the limit flags to fs.
func RegisterLimitFlags(fs *flag.FlagSet) *LimitFlags {
	return &LimitFlags{
		maxConns:            fs.Int("max-conns", 0, fmt.Sprintf("most connections served at once; more are closed with a log line (0 = %d, or %d per host name of the site's manifest when that is more)", DefaultMaxConns, connsPerHostName)),
		maxPerClient:        fs.Int("max-conns-per-client", 0, fmt.Sprintf("most connections served at once from one client address (0 = %d, or %d per host name of the site's manifest when that is more)", DefaultMaxConnsPerClient, connsPerHostName)),
		maxStreamsPerClient: fs.Int("max-streams-per-client", 0, fmt.Sprintf("most SPDY and h2 request streams with a running handler from one client address, over all its sessions; more are refused (h2: 503) (0 = %d, or MAX_CONCURRENT_STREAMS per host name of the site's manifest when that is more; -1 = no limit)", DefaultMaxStreamsPerClient)),
		maxHeaderBytes:      fs.Int("max-header-bytes", spdy.DefaultMaxHeaderBytesPerStream, "decompressed header bytes per SPDY stream (all its header frames) and per h2/HTTP/1.1 request"),
		maxControl:          fs.Int("max-control-queue", spdy.DefaultMaxQueuedControlFrames, "SPDY control frames a peer may make us queue while not reading"),
		maxInflated:         fs.Int("max-inflated-buffer", 0, fmt.Sprintf("unread decompressed bytes of FLAG_DATA_COMPRESSED DATA a SPDY stream may hold (0 = max(%d, 16 stream windows))", spdy.DefaultMaxInflatedBuffer)),
		resetsPerSec:        fs.Int("max-resets-per-sec", spdy.DefaultMaxResetsPerSecond, "SPDY RST_STREAMs a peer may send per second (bursts of twice that; -1 = no limit)"),
		emptyPerSec:         fs.Int("max-empty-frames-per-sec", spdy.DefaultMaxEmptyFramesPerSecond, "SPDY empty DATA/HEADERS frames per second (-1 = no limit)"),
		settingsPerSec:      fs.Int("max-settings-per-sec", spdy.DefaultMaxSettingsPerSecond, "SPDY SETTINGS frames per second (-1 = no limit)"),
		refusedPerSec:       fs.Int("max-refused-per-sec", spdy.DefaultMaxRefusedStreamsPerSecond, "SPDY streams refused (over MAX_CONCURRENT_STREAMS) per second (-1 = no limit)"),
		idle:                fs.Duration("idle-timeout", DefaultIdleTimeout, "close connections without open streams after this long"),
		handshake:           fs.Duration("handshake-timeout", DefaultHandshakeTimeout, "TLS handshake deadline"),
		frameRead:           fs.Duration("frame-timeout", spdy.DefaultFrameReadTimeout, "time a SPDY frame may take to arrive once its first byte has (slowloris)"),
	}
}

// Apply copies the flag values into cfg.
func (l *LimitFlags) Apply(cfg *Config) {
	cfg.MaxConns = *l.maxConns
	cfg.MaxConnsPerClient = *l.maxPerClient
	cfg.MaxStreamsPerClient = *l.maxStreamsPerClient
	cfg.HandshakeTimeout = *l.handshake
	cfg.SPDY.IdleTimeout = *l.idle
	cfg.SPDY.MaxHeaderBytesPerStream = *l.maxHeaderBytes
	cfg.SPDY.MaxQueuedControlFrames = *l.maxControl
	cfg.SPDY.MaxInflatedBuffer = *l.maxInflated
	cfg.SPDY.MaxResetsPerSecond = *l.resetsPerSec
	cfg.SPDY.MaxEmptyFramesPerSecond = *l.emptyPerSec
	cfg.SPDY.MaxSettingsPerSecond = *l.settingsPerSec
	cfg.SPDY.MaxRefusedStreamsPerSecond = *l.refusedPerSec
	cfg.SPDY.FrameReadTimeout = *l.frameRead
}
