package loader

import (
	"crypto/tls"
	"sync"

	"github.com/spdylab/spdylab/h3"
	"github.com/spdylab/spdylab/probe"
)

// handshakes tallies a load's TLS handshakes for Result.TLS.
type handshakes struct {
	mu sync.Mutex
	t  probe.TLSHandshakes
}

// tcp records a completed TLS handshake over TCP.
func (h *handshakes) tcp(st tls.ConnectionState) {
	rt := 1
	if st.Version < tls.VersionTLS13 && !st.DidResume {
		rt = 2 // TLS 1.2's full handshake; its abbreviated one takes 1
	}
	if st.HelloRetryRequest {
		rt++
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if st.DidResume {
		h.t.Resumed++
	} else {
		h.t.Full++
	}
	h.t.RoundTrips += rt
	// Every connection of a load asks for the same version and suites, so
	// the last handshake's stand for all of them.
	h.t.Version = probe.TLSVersionName(st.Version)
	h.t.CipherSuite = tls.CipherSuiteName(st.CipherSuite)
}

// quic records an HTTP/3 connection's handshake once it is known.
func (h *handshakes) quic(hs h3.Handshake) {
	if hs.Complete.IsZero() && !hs.EarlyData {
		return // never completed, never carried a request
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs.Resumed || hs.EarlyData {
		h.t.Resumed++
	} else {
		h.t.Full++
	}
	if hs.EarlyData {
		h.t.EarlyData++
		if hs.EarlyRejected {
			h.t.EarlyRejected++
		}
	}
	h.t.RoundTrips += hs.RoundTrips()
}

func (h *handshakes) summary() probe.TLSHandshakes {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.t
}

// sessionCacheSize holds a ticket per host of the largest pages (8 shards)
// with room to spare.
const sessionCacheSize = 64

// newSessionCache is the load's TLS session cache: Options.SessionCache
// when the caller keeps one across loads (a repeat visit), a fresh one when
// Options.TLSResume asks for resumption within the load, else nil (every
// handshake full, as after clearing the browser's state).
//
// How TLSResume's fresh cache is seeded, as a browser's is after the first
// handshake to a host: it starts empty, so each host's first connection
// makes a full handshake; its ticket enters the cache under the host's
// name (crypto/tls keys it by ServerName: shards and a replay's hosts never
// share one) when it arrives, within the handshake for TLS 1.2 and in a
// NewSessionTicket the connection reads right after it for TLS 1.3 and
// QUIC. A connection to the host that starts later resumes; one started
// while the first is still handshaking is full too. HTTPS opens up to six
// connections per host, so most of them resume; SPDY, h2 and h3 hold one
// per host, so in a cold load only a connection that replaces one (after a
// GOAWAY, or an h3 connection that idled out) resumes, and with EarlyData
// sends its first requests in 0-RTT. SPDY and h2 with Options.Sessions > 1
// open each later session when its first request goes out (spread.go), so
// those opened after the host's first handshake resume, as HTTPS's do.
func newSessionCache(o Options) tls.ClientSessionCache {
	switch {
	case o.SessionCache != nil:
		return o.SessionCache
	case o.TLSResume:
		return tls.NewLRUClientSessionCache(sessionCacheSize)
	}
	return nil
}
