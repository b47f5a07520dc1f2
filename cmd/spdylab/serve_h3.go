package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/spdylab/spdylab/server"
)

// serveH3Flags are `spdylab serve`'s HTTP/3 flags.
type serveH3Flags struct {
	on, reject0RTT bool
}

func registerServeH3Flags(fs *flag.FlagSet) *serveH3Flags {
	f := &serveH3Flags{}
	fs.BoolVar(&f.on, "h3", true, "also serve HTTP/3 over QUIC on UDP at the same port (not with --plain)")
	fs.BoolVar(&f.reject0RTT, "reject-0rtt", false, "h3: resume TLS sessions but refuse 0-RTT early data (clients must resend)")
	return f
}

// config fills the server's h3 settings from the shared SPDY/h2 flags.
func (f *serveH3Flags) config(maxStreams, initialWindow, sessionWindow int) server.H3Config {
	return server.H3Config{
		MaxStreams:   int64(maxStreams),
		StreamWindow: uint64(initialWindow),
		ConnWindow:   uint64(sessionWindow),
		Reject0RTT:   f.reject0RTT,
	}
}

// start serves h3 on UDP at the TCP listener's address, when asked.
func (f *serveH3Flags) start(srv *server.Server, tcp net.Addr, plain bool) error {
	if !f.on || plain {
		return nil
	}
	pc, err := net.ListenPacket("udp", tcp.String())
	if err != nil {
		return fmt.Errorf("h3: %w", err)
	}
	go func() {
		if err := srv.ServeH3(pc); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "spdylab serve: h3: %v\n", err)
		}
	}()
	return nil
}
