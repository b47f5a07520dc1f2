package server

import (
	"bytes"
	"net"
	"sync"
	"testing"
)

// recordingConn keeps each Write as the socket would see it (pure logic:
// what reaches the kernel in how many calls).
type recordingConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
	wrote  chan struct{}
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	c.mu.Unlock()
	c.wrote <- struct{}{}
	return len(p), nil
}

func record(typ byte, n int) []byte {
	return append([]byte{typ, 3, 1, byte(n >> 8), byte(n)}, make([]byte, n)...)
}

// TestSplitJoinerWritesASplitInOneCall: the 1-byte record of a TLS 1.0
// split and the record after it reach the socket in one write, as
// OpenSSL's servers wrote them; a lone small record still leaves.
func TestSplitJoinerWritesASplitInOneCall(t *testing.T) {
	rc := &recordingConn{wrote: make(chan struct{}, 4)}
	c := &splitJoiner{Conn: rc}
	first, rest := record(23, 37), record(23, 1400)
	if n, err := c.Write(first); n != len(first) || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	if n, err := c.Write(rest); n != len(rest) || err != nil {
		t.Fatalf("joined write: %d, %v", n, err)
	}
	<-rc.wrote
	if len(rc.writes) != 1 || !bytes.Equal(rc.writes[0], append(first, rest...)) {
		t.Fatalf("socket saw %d writes, want the two records in one", len(rc.writes))
	}
	c.Write(record(23, 37)) // nothing follows: the timer writes it
	<-rc.wrote
	if len(rc.writes) != 2 || len(rc.writes[1]) != 42 {
		t.Errorf("lone record: writes %d", len(rc.writes))
	}
	for _, p := range [][]byte{record(21, 2), record(23, 300), {23, 3, 3, 0, 1, 0}} {
		if isLoneSmallAppRecord(p) {
			t.Errorf("% x taken for a split record", p[:5])
		}
	}
}
