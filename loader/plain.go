package loader

import (
	"errors"
	"fmt"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// TLSNone (probe.TLSNone) is Options.TLSVersion for plaintext loads:
// HTTP/1.1 or SPDY over bare TCP, as Google's no-SSL SPDY comparisons and
// the SCTP study ran them. Base URLs are then http://; the page's own URLs
// keep their https scheme (they name resources, the base URL says how to
// reach the host).
const TLSNone = probe.TLSNone

// checkPlaintext refuses plaintext for protocols that need TLS: QUIC
// always encrypts. Plain TCP has no ALPN, so the base URL must reach a
// server port that speaks the protocol: SPDY exactly the version asked for
// (server.ServePlain, spdylab serve --plain VERSION), h2 as h2c with prior
// knowledge (the client opens with h2's preface).
func checkPlaintext(o Options) error {
	if o.TLSVersion != TLSNone {
		if p, _ := probe.LookupProtocol(o.Proto); p.Plaintext {
			return fmt.Errorf("%s runs without TLS: set the TLS version to %q", o.Proto, TLSNone)
		}
		return nil
	}
	if p, _ := probe.LookupProtocol(o.Proto); !p.Plaintext && !p.PlainTCPOption {
		return fmt.Errorf("plaintext (TLS %q) works for %s, not %s", TLSNone, probe.OneOf(probe.PlaintextProtocols()), o.Proto)
	}
	if o.TLSResume || o.SessionCache != nil || o.EarlyData {
		return errors.New("plaintext has no TLS sessions to resume and no 0-RTT")
	}
	return nil
}

func plainMismatch(host, base string, plain bool) error {
	if plain {
		return fmt.Errorf("plaintext load (TLS %q) but the base URL %q of host %s is not http://", TLSNone, base, host)
	}
	return fmt.Errorf("base URL %q of host %s is http://, which needs TLS version %q", base, host, TLSNone)
}

// plainReady makes a dialled TCP connection the protocol's byte stream:
// the connection is ready when TCP is, and its ssl phase is 0.
func (c *connection) plainReady(tcpStart time.Time) {
	c.stream = c.raw
	c.ready = time.Now()
	c.connectDur = c.ready.Sub(tcpStart)
}

// harSSL is c's ssl phase for its HAR entry: a plaintext connection has
// none (-1 in HAR, "does not apply"), not a 0 ms handshake.
func (l *load) harSSL(c *connection) time.Duration {
	if l.tlsVer == 0 {
		return -1
	}
	return c.sslDur
}
