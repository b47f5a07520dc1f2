package loader

import (
	"slices"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// probe may import nothing of spdylab, so probe.Protocols spells the SPDY
// versions itself; this keeps its facts those of spdy.Versions, which the
// server, the client and this loader speak.
func TestProbeSPDYProtocolsAreSPDYVersions(t *testing.T) {
	var overTCP []string
	for _, p := range probe.Protocols {
		if !p.SPDY() {
			if _, ok := spdy.LookupVersion(p.ALPN); ok {
				t.Errorf("%s offers SPDY's ALPN %q but has no SPDY version", p.Name, p.ALPN)
			}
			continue
		}
		v, ok := spdy.LookupVersion(p.ALPN)
		if !ok || v.Draft != p.SPDYVersion {
			t.Errorf("%s: ALPN %q, SPDY version %q; spdy.Versions has %+v", p.Name, p.ALPN, p.SPDYVersion, v)
		}
		if p.Transport == probe.TransportTCP {
			if p.Name != v.Proto {
				t.Errorf("%s over TCP is named unlike its version %s", p.Name, v.Proto)
			}
			overTCP = append(overTCP, p.Name)
		}
	}
	if !slices.Equal(overTCP, spdy.VersionNames()) {
		t.Errorf("probe's SPDY protocols over TCP %v, spdy.Versions %v", overTCP, spdy.VersionNames())
	}
}
