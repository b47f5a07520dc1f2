package harness

import (
	"fmt"
	"net"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// Plaintext benches (Condition.TLS "none") serve every TCP protocol without
// TLS, and SPDY/3.1 over SCTP (over UDP). Plain TCP has no ALPN, so each
// host's server listens on a port per protocol (server.ServePlain), as the
// no-SSL SPDY setups of 2012 did: HTTP/1.1 and h2c share port 80 (h2's
// preface tells them apart), and each SPDY version has a port of its own,
// because spdy/3 and spdy/3.1 frames carry the same version number.
const (
	PlainPort       = 80   // HTTP/1.1, and h2c with prior knowledge
	PlainPortSPDY31 = 8031 // SPDY/3.1; SPDY/3.1 over SCTP on the same UDP port
	PlainPortSPDY3  = 8030
	PlainPortSPDY2  = 8020
)

// plainListeners are a plaintext server's listeners: the protocol each
// speaks (a server.ServePlain protocol) and its port.
var plainListeners = []struct {
	proto string
	port  int
}{
	{server.ProtoHTTP11, PlainPort},
	{server.ProtoSPDY31, PlainPortSPDY31},
	{server.ProtoSPDY3, PlainPortSPDY3},
	{server.ProtoSPDY2, PlainPortSPDY2},
}

// plainListenerFor is the listener protocol that serves a load of proto
// on a plaintext bench: the SPDY version's own, HTTP/1.1's for https and
// h2 (h2c); spdy/3.1+sctp reaches SPDY/3.1's address over UDP.
func plainListenerFor(proto string) (string, bool) {
	p, ok := probe.LookupProtocol(proto)
	switch {
	case !ok || p.Transport == probe.TransportQUIC:
		return "", false
	case p.SPDY():
		return p.ALPN, true
	}
	return server.ProtoHTTP11, true
}

func plaintext(c probe.Condition) bool { return c.TLS == probe.TLSNone }

// checkPlainProto refuses a load the bench's TLS setting cannot serve.
func checkPlainProto(c probe.Condition, proto string) error {
	p, _ := probe.LookupProtocol(proto)
	switch _, served := plainListenerFor(proto); {
	case !plaintext(c) && p.Plaintext:
		return fmt.Errorf("harness: %s runs without TLS, and this bench serves TLS %s (set tls %q)", proto, c.TLS, probe.TLSNone)
	case plaintext(c) && !served:
		return fmt.Errorf("harness: a plaintext bench (tls %q) serves %s, not %s", probe.TLSNone, probe.OneOf(probe.PlaintextProtocols()), proto)
	}
	return nil
}

// servePlainSite has srv listen at site's plain ports (and SPDY/3.1's UDP
// port for SCTP) and records the site's base URL for each.
func (b *Bench) servePlainSite(srv *server.Server, site *netem.Host) error {
	if b.plainURLs == nil {
		b.plainURLs = map[string]map[string]string{}
	}
	for _, pl := range plainListeners {
		l, url, err := b.listenSite(site, pl.port, "http")
		if err != nil {
			return err
		}
		if pl.proto == server.ProtoSPDY31 {
			if err := b.serveSCTP(site, srv, l.Addr().String()); err != nil {
				l.Close()
				return err
			}
		}
		b.serveOn(l, func(l net.Listener) error { return srv.ServePlain(l, pl.proto) })
		if b.plainURLs[pl.proto] == nil {
			b.plainURLs[pl.proto] = map[string]string{}
		}
		b.plainURLs[pl.proto][site.Name] = url
		if pl.proto == server.ProtoHTTP11 {
			b.baseURLs[site.Name] = url
		}
	}
	return nil
}

// urlsFor are the base URLs a load of proto reaches the servers at.
func (b *Bench) urlsFor(proto string) map[string]string {
	if !plaintext(b.cond) {
		return b.baseURLs
	}
	l, _ := plainListenerFor(proto)
	return b.plainURLs[l]
}
