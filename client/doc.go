// Package client is the client side of every protocol spdylab speaks, shared
// by the page loader and `spdylab get`: one HTTP/1.1 connection type (H1Conn),
// one HTTP/2 connection type built on golang.org/x/net/http2's Framer and
// HPACK (H2Conn), and the SPDY client of package spdy, each with a trace hook
// (FrameEvent / spdy.Config.Trace / H1Conn.Trace) for `spdylab get -v`.
//
// Connections here do not dial: the caller dials and negotiates ALPN (the
// loader must time and count that itself), then hands over the net.Conn.
//
// Request priority travels in the request's context (WithPriority) so that
// one RoundTrip signature serves every protocol. NotProcessed reports
// whether a failed request was never processed by the server (REFUSED_STREAM,
// above a GOAWAY's last stream id, a session going away) and so is safe to
// send again, for every protocol.
package client
