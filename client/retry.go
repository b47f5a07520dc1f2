package client

import (
	"errors"

	"github.com/spdylab/spdylab/spdy"
)

// ErrNotProcessed marks an HTTP/2 request the server did not process: it
// was refused (REFUSED_STREAM), lies above a GOAWAY's last stream id, or the
// connection was going away before it was sent. Such a request is safe to
// send again on a new connection (RFC 9113 section 8.7).
var ErrNotProcessed = errors.New("request not processed by the server")

// NotProcessed reports whether err says the request was never processed by
// the server, for HTTP/2 (ErrNotProcessed) and SPDY (spdy.ErrNotProcessed).
func NotProcessed(err error) bool {
	return errors.Is(err, ErrNotProcessed) || errors.Is(err, spdy.ErrNotProcessed)
}
