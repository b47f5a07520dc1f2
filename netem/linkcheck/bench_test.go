package linkcheck

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkShortCheck is the per-probe self-check (Check(ctx, tb, false)) on
// an unlimited 20 ms link and at the studies' channels: study1's and
// study5's 10/1 Mbit/s, study4's slowest 1 Mbit/s / 256 kbit/s and
// study2-bandwidth's 64 kbit/s, the slowest link of any built-in study.
func BenchmarkShortCheck(b *testing.B) {
	testutil.RequireRoot(b)
	for _, c := range []struct {
		name string
		link probe.Link
	}{
		{"20ms", probe.Link{RTT: 20 * time.Millisecond}},
		{"10mbit-1mbit-20ms-50pkt", probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 1e6, QueuePkts: 50}},
		{"1mbit-256kbit-60ms-100pkt", probe.Link{RTT: 60 * time.Millisecond, DownBps: 1e6, UpBps: 256e3, QueuePkts: 100}},
		{"64kbit-150ms-256pkt", probe.Link{RTT: 150 * time.Millisecond, DownBps: 64e3, UpBps: 64e3, QueuePkts: 256}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.link.Shared = true
			tb, err := netem.New(context.Background(), netem.Config{Shards: 1, Link: c.link})
			if err != nil {
				b.Fatal(err)
			}
			defer tb.Close()
			for b.Loop() {
				lc, err := Check(context.Background(), tb, false)
				if err != nil {
					b.Fatal(err)
				}
				if !lc.OK {
					b.Fatalf("check failed: %s", lc.Problem)
				}
			}
		})
	}
}
