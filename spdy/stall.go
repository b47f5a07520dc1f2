package spdy

import (
	"bufio"
	"net"
	"time"
)

// stallGuard bounds how long a frame that has begun to arrive may take to
// finish (slowloris: a peer that sends half a frame and waits). Waiting for
// the first byte of a frame is not bounded here; idleness is IdleTimeout's.
// The deadline is armed only when the rest is not already buffered, so a
// peer that sends whole frames costs no deadline system calls.
type stallGuard struct {
	br      *bufio.Reader
	conn    net.Conn
	timeout time.Duration
	armed   bool
}

// begin waits for the first byte of the next frame, then makes sure the
// 8-byte frame header arrives in time.
func (g *stallGuard) begin() error {
	if _, err := g.br.Peek(1); err != nil {
		return err
	}
	g.need(frameHeaderLen)
	return nil
}

// need arms the deadline unless n more bytes are already buffered.
func (g *stallGuard) need(n int) {
	if !g.armed && g.br.Buffered() < n {
		g.conn.SetReadDeadline(time.Now().Add(g.timeout))
		g.armed = true
	}
}

// end disarms the deadline after a whole frame was read.
func (g *stallGuard) end() {
	if g.armed {
		g.conn.SetReadDeadline(time.Time{})
		g.armed = false
	}
}
