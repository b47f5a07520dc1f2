package server

import (
	"fmt"
	"net"
	"slices"

	"github.com/spdylab/spdylab/spdy"
)

// Plaintext serving. Plain TCP has no ALPN, so a plain listener's protocol
// is fixed before the first byte, as a port's was in the no-SSL SPDY setups
// of 2012 (a server port that spoke exactly one SPDY version). HTTP/1.1 and
// h2c share a listener: net/http tells them apart by h2's connection
// preface ("PRI * HTTP/2.0", RFC 9113 §3.3, prior knowledge). SPDY gets a
// listener per version: its frames carry a version, but spdy/3 and
// spdy/3.1 both carry 3 and differ only in flow control, so their bytes
// cannot tell them apart.

// ServePlain accepts connections on l until Shutdown and serves proto on
// each over plain TCP without TLS: ProtoHTTP11 or ProtoH2 (the same
// listener: HTTP/1.1, and h2c for a client that opens with h2's preface),
// or one SPDY version. proto must be one of the configured Protocols.
func (s *Server) ServePlain(l net.Listener, proto string) error {
	if err := s.checkPlain(proto); err != nil {
		return err
	}
	return s.serve(l, proto)
}

func (s *Server) checkPlain(proto string) error {
	if !slices.Contains(s.cfg.Protocols, proto) {
		return fmt.Errorf("server: plain-TCP protocol %q is not one of %v", proto, s.cfg.Protocols)
	}
	return nil
}

// servePlainConn runs one plain-TCP connection to its end.
func (s *Server) servePlainConn(c net.Conn, proto string) {
	if slices.Contains(spdyVersions, proto) {
		defer s.untrack(c)
		defer c.Close()
		s.serveSPDY(spdyOpening(c, proto), proto)
		return
	}
	// HTTP/1.1 or h2c: net/http reads the first bytes (a request line, or
	// h2's preface), closes the connection itself and reports it to
	// ConnState, which forgets it. Garbage gets a 400 and a close.
	if !s.httpConn.deliver(c) {
		c.Close()
		s.untrack(c)
	}
}

// spdyOpening is c checking that it opens as a client of SPDY version
// proto does: with a control frame (SETTINGS or SYN_STREAM) of the
// version's wire number. Anything else (an HTTP request, h2's preface,
// another version, garbage) fails the session's first read, so the
// connection closes at once where a session would read it as a DATA frame
// and wait for its payload. The server still speaks first (its SETTINGS).
func spdyOpening(c net.Conn, proto string) net.Conn {
	v, _ := spdy.LookupVersion(proto)
	return &openingCheck{Conn: c, proto: proto, wire: v.Wire}
}

type openingCheck struct {
	net.Conn
	proto   string
	wire    uint16
	head    []byte // the first two bytes, until checked
	checked bool
}

func (c *openingCheck) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.checked {
		return n, err
	}
	c.head = append(c.head, p[:min(n, 2-len(c.head))]...)
	if len(c.head) < 2 {
		return n, err
	}
	c.checked = true
	if c.head[0]&0x80 == 0 || uint16(c.head[0]&0x7f)<<8|uint16(c.head[1]) != c.wire {
		return 0, fmt.Errorf("plain %s: the client opened with %q, not a SPDY version %d control frame", c.proto, c.head, c.wire)
	}
	return n, err
}

// NetConn lets tcpopt reach the TCP socket (TCP_INFO, TCP_NOTSENT_LOWAT).
func (c *openingCheck) NetConn() net.Conn { return c.Conn }
