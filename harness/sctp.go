package harness

import (
	"fmt"

	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/server"
)

// Plaintext benches (Condition.TLS "none") are the SCTP study's: every host
// serves SPDY/3.1 over plain TCP and SPDY/3.1 over SCTP (over UDP), both on
// PlainPort. Plain TCP has no ALPN to choose a protocol by, so such a bench
// serves exactly spdy/3.1 on TCP; https and spdy/3 without TLS would each
// need a port of their own and no study compares them.

// PlainPort is where plaintext servers listen on an emulated testbed.
const PlainPort = 80

// plainProtocols are the protocols a plaintext bench serves.
var plainProtocols = []string{probe.ProtoSPDY31, probe.ProtoSPDY31SCTP}

func plaintext(c probe.Condition) bool { return c.TLS == probe.TLSNone }

// checkPlainProto refuses a load a plaintext bench cannot serve.
func checkPlainProto(c probe.Condition, proto string) error {
	if !plaintext(c) {
		if p, _ := probe.LookupProtocol(proto); p.Plaintext {
			return fmt.Errorf("harness: %s runs without TLS, and this bench serves TLS %s (set tls %q)", proto, c.TLS, probe.TLSNone)
		}
		return nil
	}
	for _, p := range plainProtocols {
		if p == proto {
			return nil
		}
	}
	return fmt.Errorf("harness: a plaintext bench (tls %q) serves %s, not %s", probe.TLSNone, probe.OneOf(plainProtocols), proto)
}

// serveSCTP serves SPDY over SCTP from h on UDP at addr (the plain TCP
// listener's address) with the condition's SCTP knobs.
func (b *Bench) serveSCTP(h *netem.Host, srv *server.Server, addr string) error {
	pc, err := h.ListenPacket("udp4", addr)
	if err != nil {
		return fmt.Errorf("harness: SCTP on %s (%s): %w", h.Name, addr, err)
	}
	cfg, opt := loader.SCTPTransport(b.cond.SCTP)
	l, err := sctp.Listen(pc, cfg)
	if err != nil {
		return fmt.Errorf("harness: SCTP on %s (%s): %w", h.Name, addr, err)
	}
	b.serving.Add(1)
	go func() {
		defer b.serving.Done()
		srv.ServeSCTP(l, opt) // closes l when the server shuts down
	}()
	return nil
}

// takeSCTPCounters collects the servers' side of the associations of the
// load that just ended into r (which the loader filled with the client's
// side); for other protocols it only clears what the servers recorded.
func (b *Bench) takeSCTPCounters(r *probe.SCTPCounters) {
	for _, s := range b.servers {
		_, c := s.TakeSCTPCounters()
		if r != nil {
			r.Server.Add(loader.SCTPEndpointCounters(c))
		}
	}
}
