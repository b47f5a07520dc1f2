package netem

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkTestbedNewClose measures building and tearing down a testbed
// (namespaces, TUN devices, veths, routes, sysctls, emulator, DNS server):
// the fixed cost the study runner pays per condition.
func BenchmarkTestbedNewClose(b *testing.B) {
	testutil.RequireRoot(b)
	for _, shards := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			cfg := Config{Shards: shards, DNS: true, Link: probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 1e6, QueuePkts: 50, Shared: true},
				TCP: probe.TCP{IW: 10, CC: "cubic"}}
			for b.Loop() {
				tb, err := New(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				if err := tb.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
