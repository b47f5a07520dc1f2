package har

import (
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// The httpVersion of an entry names its protocol. HAR 1.2 leaves the
// spelling open and recorders differ: Chrome DevTools writes "http/1.1",
// "http/2.0" and "h3", Firefox "HTTP/1.1", "HTTP/2" and "HTTP/3". spdylab
// writes one spelling per protocol, whichever client loaded the page:
// HTTP/1.1 and HTTP/2 as the spec's examples write versions ("HTTP/1.1",
// "HTTP/2.0", what the lab's stored HARs say), and every other protocol by
// its probe name, which is its ALPN token: "h3" as Chromium reports it in
// CDP's protocol and as the loader has always written it, and
// "spdy/3.1" etc., which have no HTTP/x form.

// Spellings of httpVersion for protocols whose lab name is not written.
const (
	HTTP11  = "HTTP/1.1"
	HTTP2   = "HTTP/2.0"
	Unknown = "unknown" // no response, so no protocol
)

// HTTPVersion is the httpVersion spdylab writes for proto, which is a lab
// protocol name (probe.ProtoH2) or a protocol as Chromium's DevTools
// protocol reports it ("http/1.1", "h2", "h3"). Anything else (a draft
// such as "h3-29", "http/1.0") is written as it came.
func HTTPVersion(proto string) string {
	switch strings.ToLower(proto) {
	case probe.ProtoHTTPS, "http/1.1":
		return HTTP11
	case probe.ProtoH2, "http/2.0":
		return HTTP2
	case probe.ProtoH3, "http/3":
		return probe.ProtoH3
	case "":
		return Unknown
	}
	return proto
}
