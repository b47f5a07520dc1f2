package harness

import (
	"fmt"

	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/server"
)

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
