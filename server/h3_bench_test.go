package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/spdylab/spdylab/h3"
)

// BenchmarkH3SmallResponses and BenchmarkH3LargeResponses are
// BenchmarkSmallResponses and BenchmarkLargeResponses over HTTP/3: one QUIC
// connection on loopback, client and server in this process. The client
// counts UDP bytes (as the loader does), which makes quic-go read and write
// one datagram per system call on the client side.
func BenchmarkH3SmallResponses(b *testing.B) {
	benchH3(b, "_spdylab/bytes?n=100&seed=1", 64)
}

func BenchmarkH3LargeResponses(b *testing.B) {
	b.SetBytes(1 << 20)
	benchH3(b, fmt.Sprintf("_spdylab/bytes?n=%d&seed=2", 1<<20), 4)
}

func benchH3(b *testing.B, path string, parallel int) {
	s, err := New(Config{HostNames: []string{"localhost"}})
	if err != nil {
		b.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.ServeH3(pc)
	defer s.Close()
	addr := pc.LocalAddr().(*net.UDPAddr)
	cpc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := h3.Dial(ctx, cpc, addr, h3.Config{
		TLS:     &tls.Config{ServerName: "localhost", InsecureSkipVerify: true},
		Counter: &h3.Counter{},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchRoundTrips(b, c.RoundTrip, "https://localhost:"+strconv.Itoa(addr.Port)+"/"+path, parallel)
}
