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
func newSessionCache(o Options) tls.ClientSessionCache {
	switch {
	case o.SessionCache != nil:
		return o.SessionCache
	case o.TLSResume:
		return tls.NewLRUClientSessionCache(sessionCacheSize)
	}
	return nil
}
