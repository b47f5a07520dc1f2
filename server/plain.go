package server

import (
	"fmt"
	"net"
	"slices"
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

// spdyOpening is c checking that its client does not open with another
// protocol: an HTTP/1.x request line or h2's preface (read as a SPDY DATA
// frame its bytes would wait for megabytes of payload), or a TLS
// ClientHello on the plain port. Such an opening fails the session's first
// read, so the connection closes at once. Every SPDY frame passes, of any
// version and type: what a session does with a DATA frame for a stream
// never opened, or another version's SYN_STREAM, is the draft's rule and
// `spdylab conform`'s case, not the listener's. The server still speaks
// first (its SETTINGS).
func spdyOpening(c net.Conn, proto string) net.Conn {
	return &openingCheck{Conn: c, proto: proto}
}

type openingCheck struct {
	net.Conn
	proto   string
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
	if otherProtocolOpening(c.head) {
		return 0, fmt.Errorf("plain %s: the client opened with %q, another protocol's opening (HTTP/1.x, h2 or TLS), not SPDY", c.proto, c.head)
	}
	return n, err
}

// otherProtocolOpening tells the first two bytes of an HTTP/1.x request
// line or h2's preface (two capital letters: as the header of a SPDY DATA
// frame, a stream id above a billion on a session's first frame) or of a
// TLS record (0x16 0x03) from a SPDY frame's.
func otherProtocolOpening(b []byte) bool {
	capital := func(x byte) bool { return x >= 'A' && x <= 'Z' }
	return capital(b[0]) && capital(b[1]) || b[0] == 0x16 && b[1] == 0x03
}

// NetConn lets tcpopt reach the TCP socket (TCP_INFO, TCP_NOTSENT_LOWAT).
func (c *openingCheck) NetConn() net.Conn { return c.Conn }
