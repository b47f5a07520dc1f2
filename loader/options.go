package loader

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"time"

	"github.com/spdylab/spdylab/client"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// This file holds what a caller chooses for a load: the target and the
// options, with their defaults.

// Target is the page to load and where its hosts' servers listen.
type Target struct {
	Manifest *page.Manifest
	// BaseURLs maps each manifest host to "https://addr:port". The host
	// name of the page's URLs is still sent as TLS server name and Host;
	// the base URL only says where to connect. With Options.Resolver set,
	// a host name in the base URL is looked up through it.
	BaseURLs map[string]string
}

// Options choose the protocol and the client's network behaviour.
type Options struct {
	Proto      string // probe.ProtoHTTPS, ProtoSPDY31, ProtoSPDY3, ProtoSPDY2, ProtoH2, ProtoH3
	TLSVersion string // "1.0", "1.1", "1.2" (default), "1.3", or "none" (plaintext: http:// base URLs); h3 is always 1.3
	// TLSKx is the key exchange offered on TLS 1.0-1.2 (probe.KxRSA: only
	// RSA key exchange, as the 2012 stack; "" = Go's default suites).
	TLSKx string
	// HTTPSHosts are hosts of the page fetched over HTTPS (HTTP/1.1, over
	// TLS or plain as TLSVersion says) whatever Proto is: third parties
	// that never turned Proto on (deploy.go). Their Target.BaseURLs must
	// reach an HTTP/1.1 server.
	HTTPSHosts []string
	// Dial opens TCP connections; nil dials directly with Options.CC as the
	// socket's congestion control.
	Dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	Resolver *net.Resolver // nil = no DNS phase (base URL addresses used directly)
	CC       string        // client TCP congestion control when Dial is nil; "" = kernel default
	// MaxConnsPerHost caps HTTPS connections per host; 0 = 6 (Chrome).
	MaxConnsPerHost int
	// InitialWindow is the client's per-stream receive window for SPDY,
	// HTTP/2 and h3; 0 = the browser profile's (Windows), else 64 KiB.
	InitialWindow int
	// SessionWindow is the client's session receive window for SPDY/3.1
	// and its connection window for HTTP/2, announced with WINDOW_UPDATE
	// on stream 0 at session start; 0 = the profile's (windows).
	SessionWindow int
	// AdaptiveWindow moves SPDY/3.1 session windows with the path
	// (spdy.Config.AdaptiveSessionWindow), SessionWindow being the top.
	AdaptiveWindow bool
	// SPDY2Windows is whether spdy/2 sessions keep SPDY/3 stream windows
	// (zero = spdy.SPDY2WindowsAuto: when the server shows it does).
	SPDY2Windows spdy.SPDY2Windows
	Timeout      time.Duration // whole load; 0 = 60 s
	// RootCAs verifies the servers' certificates; nil skips verification
	// (spdylab's servers use throw-away self-signed certificates).
	RootCAs *x509.CertPool
	// TLS options (see tls.go and h3.go): TLSResume resumes sessions across
	// the load's connections to a host, as browsers do; SessionCache, when
	// set, is used instead and kept by the caller across loads (a repeat
	// visit); EarlyData sends h3 requests in 0-RTT when a ticket allows it
	// (Go's crypto/tls has no client 0-RTT over TCP).
	TLSResume    bool
	SessionCache tls.ClientSessionCache
	EarlyData    bool
	// ListenPacket opens h3's UDP sockets (one per QUIC connection); nil =
	// net.ListenPacket. A testbed passes its client host's, so that the
	// socket lives in the client namespace.
	ListenPacket func(network, address string) (net.PacketConn, error)
	// H2Priorities is how HTTP/2 requests carry their priority: Chrome's
	// exclusive dependency chain (the zero value), RFC 9218 headers or none.
	H2Priorities client.PriorityScheme
	// Priority is the policy that gives each request its priority
	// (probe.PriorityPolicies; "" = probe.PriorityChrome, by resource type);
	// see priorityFor.
	Priority string
	// Sessions is how many SPDY or HTTP/2 sessions (each its own TCP
	// connection) the load opens per host: 0 or 1 = one, as browsers do;
	// at most MaxConnsPerHost. A session opens when SessionPolicy first
	// gives it a request (spread.go; probe.SessionPolicies, "" =
	// roundrobin). HTTPS ignores both (its pool is MaxConnsPerHost); h3
	// and SPDY over SCTP refuse more than one.
	Sessions      int
	SessionPolicy string
	// SCTP are the association's knobs for spdy/3.1+sctp (sctp.go).
	SCTP probe.SCTP
	// Browser-profile mechanisms (throttle.go, profile.go, renderer.go;
	// ApplyProfile sets them by name): which requests are held back, which
	// request headers go out, the receive windows when the condition sets
	// none, and the browser's own processing time. Zero values are
	// Chrome 16's.
	Throttle RequestThrottle
	Headers  HeaderSet
	Windows  ReceiveWindows
	Renderer RendererCosts
	// StyleAfterScripts holds what stylesheets reference (but other
	// stylesheets) until the root document is parsed and its blocking
	// scripts have run, when a browser resolves style (stylegate.go).
	StyleAfterScripts bool
	// ScriptsAwaitStyles runs the root document's parser-blocking scripts
	// as a browser's parser does: in document order, each after the
	// stylesheets named before it have loaded (scriptorder.go). What a
	// script inserts is requested only then, and StyleAfterScripts counts
	// it as run only then. Off, a script runs as soon as it has loaded.
	ScriptsAwaitStyles bool
	// RaceConnects: while a host's first SPDY or HTTP/2 connection is
	// being set up, every further request to the host starts another one,
	// up to MaxConnsPerHost, and the first set up carries them all; the
	// others are closed mid-handshake. Chromium's socket pool learns that
	// a host multiplexes only once a connection has negotiated it, so each
	// pending request gets its own connect job (pageA on four hosts: 16
	// SYNs and ClientHellos where one per host is used, 30 KB more on a
	// 1 Mbit/s uplink).
	RaceConnects bool
	// HelloPadding adds this many bytes to each TLS ClientHello over TCP
	// (hellopad.go): chromium-modern's is Chromium's ~2 KB hello, which
	// crypto/tls cannot build (ChromiumHelloPadding).
	HelloPadding int
	// WholeDataFrames hands an h2 DATA frame to the scanner only once all
	// of it has arrived, a round trip late when the frame straddles the
	// server's congestion window (client.H2Config.WholeDataFrames); no
	// browser does this, so both profiles leave it off. It is here to show
	// the mechanism's effect.
	WholeDataFrames bool
	// AwaitPeerSettings holds a SPDY or HTTP/2 session's requests beyond
	// the first until the server's SETTINGS arrive, so that the session
	// keeps to the server's MAX_CONCURRENT_STREAMS from its first request
	// and no request is refused and sent again
	// (spdy.ClientConfig.AwaitPeerSettings). Browsers do not wait: Chrome
	// 16 assumed 10 streams and modern Chromium assumes 100 until the
	// SETTINGS (off, the loader's SPDY sessions assume no limit, as the
	// SPDY spec says, and its h2 connections 100), and a server allowing
	// fewer refuses the excess. The harness sets it for conditions that
	// limit streams, where the lab measures the limit rather than the
	// refusals. It costs nothing over TLS 1.2 (the SETTINGS follow the
	// server's Finished) and up to a round trip per session over TLS 1.3
	// and plaintext, where they follow the client's first flight.
	AwaitPeerSettings bool
}

// DefaultMaxConnsPerHost is Chrome's limit of persistent HTTP/1.1
// connections per host (probe.BrowserConnsPerHost).
const DefaultMaxConnsPerHost = probe.BrowserConnsPerHost

// DefaultTimeout bounds a load when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second
