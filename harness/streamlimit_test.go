package harness

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// pageA on 4 hosts with servers allowing 4 streams. The servers'
// SETTINGS reach the client after its first requests (TLS 1.3) or
// race them (TLS 1.2); the loader keeps to the limit they advertise from
// the first request, so no request is refused and sent again.
func TestStreamLimitWithoutRefusedStreams(t *testing.T) {
	testutil.RequireRoot(t)
	for _, tls := range []string{"1.2", "1.3"} {
		t.Run("tls"+tls, func(t *testing.T) {
			c := probe.Condition{
				Page: "pageA", Shards: 4, TLS: tls, MaxStreams: 4, DNS: true,
				Link: probe.Link{DownBps: 10e6, UpBps: 1e6, RTT: 100 * time.Millisecond, QueuePkts: 50, Shared: true},
				TCP:  probe.TCP{IW: 10, CC: "cubic"},
			}
			b := openBench(t, c, Options{})
			for run, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2} {
				r := b.Load(context.Background(), proto, run)
				if r.Failed {
					t.Fatalf("%s: %s", proto, r.Error)
				}
				if r.Retries != 0 {
					t.Errorf("%s: %d requests refused and sent again", proto, r.Retries)
				}
			}
		})
	}
}
