package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// Every protocol's connections are recorded, with what the server sent,
// and handed over once: open ones read at the take, closed ones as they
// were when they closed.
func TestTakeTCPInfoReportsEachConnectionOnce(t *testing.T) {
	s := startServer(t, Config{})
	const n = 300000
	s.TakeTCPInfo() // nothing before
	peers := map[string]string{}
	for _, proto := range []string{spdy.ProtoSPDY31, ProtoH2, ProtoHTTP11} {
		c := dial(t, s, proto, nil)
		if _, b := c.do(t, "GET", fmt.Sprintf("%s_spdylab/bytes?n=%d", s.URL(), n), nil); len(b) != n {
			t.Fatalf("%s: %d bytes", proto, len(b))
		}
		c.close()
	}
	// The server closes its side once it reads the client's close; the
	// last of them may still be open: then the take reads it.
	deadline := time.Now().Add(5 * time.Second)
	for s.liveConns() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := s.TakeTCPInfo()
	if len(got) != 3 {
		t.Fatalf("%d connections recorded, want 3: %+v", len(got), got)
	}
	for _, c := range got {
		if c.Info.BytesSent < n || c.Info.BytesAcked < n || c.Info.SegsOut == 0 || c.Peer == "" {
			t.Errorf("connection from %s: %+v; want at least %d bytes sent and acknowledged", c.Peer, c.Info, n)
		}
		peers[c.Peer] = c.Info.Congestion
	}
	if len(peers) != 3 {
		t.Errorf("peers %v: want three distinct connections", peers)
	}
	if again := s.TakeTCPInfo(); len(again) != 0 {
		t.Errorf("taken twice: %+v", again)
	}
}

func (s *Server) liveConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
