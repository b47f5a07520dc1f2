package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// serveSCTPFlag is `spdylab serve --sctp PORT`: SPDY/3.1 over SCTP (over
// UDP) with the lab's SCTP defaults, beside whatever the TCP listener serves.
type serveSCTPFlag struct{ port int }

func registerServeSCTPFlag(fs *flag.FlagSet) *serveSCTPFlag {
	f := &serveSCTPFlag{}
	fs.IntVar(&f.port, "sctp", 0, "also serve spdy/3.1 over SCTP (plaintext, SCTP over UDP) on this UDP `PORT` of the --listen host (0 = off)")
	return f
}

// start serves SCTP when asked; errors after the start go to stderr.
func (f *serveSCTPFlag) start(srv *server.Server, tcp net.Addr, stderr io.Writer) error {
	if f.port == 0 {
		return nil
	}
	if f.port < 0 || f.port > 65535 {
		return fmt.Errorf("--sctp %d is not a UDP port (1..65535)", f.port)
	}
	host, _, err := net.SplitHostPort(tcp.String())
	if err != nil {
		return err
	}
	cfg, opt := loader.SCTPTransport(probe.SCTP{})
	go func() {
		err := srv.ListenAndServeSCTP(net.JoinHostPort(host, strconv.Itoa(f.port)), cfg, opt)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "spdylab serve: sctp: %v\n", err)
		}
	}()
	return nil
}
