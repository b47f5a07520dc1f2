package server

import (
	"net"
	"sync"
	"time"
)

// This file keeps Go's TLS 1.0 record splitting from turning Config.Nagle
// into a Nagle/delayed-ACK stall that 2012 servers did not have.
//
// Go's crypto/tls counters BEAST on TLS 1.0 CBC suites by 1/n-1 record
// splitting: each Write becomes a 1-byte record and a record of the rest,
// written to the socket in two calls. With Nagle on, the first leaves as a
// tiny segment and the rest's tail waits for its (delayed) ACK, a stall per
// response. OpenSSL (node.js, Apache mod_ssl in 2012) built its BEAST
// countermeasure (an empty fragment before the record) in one buffer and
// wrote it in one call. splitJoiner does the same for Go: a lone small
// application-data record is held and written together with the record
// that follows it.

// maxSplitRecord bounds the 1-byte record of a split: 5 header bytes + 1
// plaintext byte + a MAC (up to SHA-384's 48) + CBC padding (up to a 16-byte
// block), well under any record a real write makes.
const maxSplitRecord = 5 + 1 + 48 + 16

// splitFlushAfter writes a held record that no record followed (a genuine
// 1-byte write, which crypto/tls does not split), so nothing waits longer.
const splitFlushAfter = time.Millisecond

// splitJoiner is the server's side of a TLS connection with Nagle on.
type splitJoiner struct {
	net.Conn
	mu    sync.Mutex
	held  []byte
	timer *time.Timer
}

func (c *splitJoiner) NetConn() net.Conn { return c.Conn }

func (c *splitJoiner) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil && isLoneSmallAppRecord(p) {
		c.held = append([]byte(nil), p...)
		c.timer = time.AfterFunc(splitFlushAfter, c.flush)
		return len(p), nil
	}
	if c.held == nil {
		return c.Conn.Write(p)
	}
	c.timer.Stop()
	buf := append(c.held, p...)
	c.held = nil
	n, err := c.Conn.Write(buf)
	return max(0, n-(len(buf)-len(p))), err
}

// flush writes a held record nothing followed.
func (c *splitJoiner) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		c.Conn.Write(c.held) // an error shows on the next Write or Read
		c.held = nil
	}
}

// isLoneSmallAppRecord tells whether p is exactly one TLS 1.0 application
// data record small enough to be the first half of a 1/n-1 split.
func isLoneSmallAppRecord(p []byte) bool {
	if len(p) < 5 || len(p) > maxSplitRecord {
		return false
	}
	const applicationData = 23
	n := int(p[3])<<8 | int(p[4])
	return p[0] == applicationData && p[1] == 3 && p[2] == 1 && 5+n == len(p)
}
