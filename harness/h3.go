package harness

import (
	"fmt"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// h3Config maps a condition onto the server's HTTP/3 settings: the same
// stream limit and receive window as SPDY and h2 (QUIC's congestion
// control is quic-go's own; the condition's cc and iw do not reach it).
func h3Config(c probe.Condition) server.H3Config {
	return server.H3Config{
		MaxStreams:   int64(c.MaxStreams),
		StreamWindow: uint64(c.InitialWindow),
	}
}

// serveH3 serves HTTP/3 from h on UDP at addr (the TLS listener's address:
// same port number, as servers announcing h3 by Alt-Svc do).
func (b *Bench) serveH3(h *netem.Host, srv *server.Server, addr string) error {
	pc, err := h.ListenPacket("udp", addr)
	if err != nil {
		return fmt.Errorf("harness: h3 on %s (%s): %w", h.Name, addr, err)
	}
	b.serving.Add(1)
	go func() {
		defer b.serving.Done()
		srv.ServeH3(pc) // closes pc when the server shuts down
	}()
	return nil
}
