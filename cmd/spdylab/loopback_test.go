package main

import (
	"net"
	"testing"

	"github.com/spdylab/spdylab/server"
)

// loopbackServer runs a spdylab server with cfg on a loopback port until
// the test ends and returns its address; serve starts it on the listener
// ((*server.Server).Serve, or ServePlain for one protocol of its choice).
func loopbackServer(t *testing.T, cfg server.Config, serve func(*server.Server, net.Listener) error) string {
	t.Helper()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go serve(srv, ln)
	return ln.Addr().String()
}
