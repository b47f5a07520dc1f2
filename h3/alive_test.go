package h3_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/spdylab/spdylab/h3"
	"github.com/spdylab/spdylab/server"
)

// rejectingServer is a lab server on loopback that refuses 0-RTT.
func rejectingServer(t *testing.T) *net.UDPAddr {
	t.Helper()
	s, err := server.New(server.Config{HostNames: []string{"localhost"}, H3: server.H3Config{Reject0RTT: true}})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeH3(pc) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeH3: %v", err)
		}
	})
	return pc.LocalAddr().(*net.UDPAddr)
}

// dial opens a connection to addr, in 0-RTT when the cache holds a ticket.
func dial(t *testing.T, addr *net.UDPAddr, cache tls.ClientSessionCache) *h3.Conn {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := h3.Dial(ctx, pc, addr, h3.Config{
		TLS:       &tls.Config{ServerName: "localhost", InsecureSkipVerify: true, ClientSessionCache: cache},
		EarlyData: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get fetches n bytes from the lab server over c.
func get(t *testing.T, c *h3.Conn, addr *net.UDPAddr, n int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://localhost:"+strconv.Itoa(addr.Port)+"/_spdylab/bytes?n="+strconv.Itoa(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %d bytes: %v (handshake %+v)", n, err, c.Handshake())
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != n {
		t.Fatalf("GET %d bytes: %d read, %v", n, len(b), err)
	}
}

// A connection whose 0-RTT was rejected and which then died in the switch
// to 1-RTT (as http3's control-stream goroutine kills it when it loses a
// race) is still alive to the loader's pool: its next request dials again
// on the same Conn, and no second connection to the host is opened.
func TestAliveThroughARedialAfterRejection(t *testing.T) {
	addr := rejectingServer(t)
	cache := tls.NewLRUClientSessionCache(4)
	first := dial(t, addr, cache)
	get(t, first, addr, 100)
	first.Close()

	c := dial(t, addr, cache)
	get(t, c, addr, 1000)
	<-c.HandshakeDone()
	if hs := c.Handshake(); !hs.EarlyData || !hs.EarlyRejected {
		t.Fatalf("handshake %+v, want early data rejected", hs)
	}
	h3.KillInSwitch(c)
	if !c.Alive() {
		t.Fatal("a rejected connection that died in the switch reads as dead before it was dialled again")
	}
	get(t, c, addr, 2000)
	if !c.Handshake().Redialed {
		t.Errorf("handshake %+v, want redialled", c.Handshake())
	}
	if !c.Alive() {
		t.Error("the redialled connection reads as dead")
	}
	c.Close()
	if c.Alive() {
		t.Error("a closed connection reads as alive")
	}
}
