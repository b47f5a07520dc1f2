package loader

import (
	"context"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// The padding names add exactly the bytes asked for to the ALPN extension
// (a name costs its length and one length byte), each a valid ALPN name.
func TestHelloPadProtocolsSize(t *testing.T) {
	minCost := len(helloPadPrefix) + 2
	for n := 0; n <= 1200; n++ {
		cost := 0
		for _, p := range helloPadProtocols(n) {
			if len(p) == 0 || len(p) > 255 || !strings.HasPrefix(p, helloPadPrefix) {
				t.Fatalf("n=%d: bad ALPN name %q (%d bytes)", n, p, len(p))
			}
			cost += len(p) + 1
		}
		want := n
		if n < minCost {
			want = 0
		}
		if cost != want {
			t.Fatalf("n=%d: the names add %d bytes", n, cost)
		}
	}
}

// A padded load sends exactly HelloPadding bytes more per connection, and
// the servers still negotiate the load's protocol.
func TestHelloPaddingOnTheWire(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=2k,depth=1", 1)
	for _, proto := range []string{probe.ProtoH2, probe.ProtoHTTPS} {
		target := labServer(t, st, "none")
		var out [2]int64
		var conns int
		for i, pad := range []int{0, ChromiumHelloPadding} {
			// One connection per host, so both loads open the same number.
			res, err := Load(context.Background(), target, Options{Proto: proto, TLSVersion: "1.3", HelloPadding: pad, MaxConnsPerHost: 1})
			if err != nil {
				t.Fatalf("%s, padding %d: %v", proto, pad, err)
			}
			checkAgainstManifest(t, st, res)
			out[i], conns = res.BytesWireOut, res.Connections
		}
		if got := out[1] - out[0]; got != int64(ChromiumHelloPadding*conns) {
			t.Errorf("%s: padding added %d bytes over %d connections, want %d", proto, got, conns, ChromiumHelloPadding*conns)
		}
	}
	if _, err := Load(context.Background(), labServer(t, st, "none"), Options{Proto: probe.ProtoH2, HelloPadding: -1}); err == nil || !strings.Contains(err.Error(), "hello padding") {
		t.Errorf("negative padding: %v", err)
	}
}
