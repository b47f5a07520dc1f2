package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

// Pacing at the link's rate reaches the servers' sockets for HTTPS and
// SPDY alike: each server connection's TCP_INFO shows the cap and a
// pacing rate at or below it; without the knob no cap is recorded.
func TestPacingAtTheLinkRateReachesEveryServerConnection(t *testing.T) {
	testutil.RequireRoot(t)
	link := probe.Link{DownBps: 10e6, UpBps: 5e6, RTT: 40 * time.Millisecond, QueuePkts: 20, Shared: true}
	const capBytes = 10e6 / 8
	for i, pacing := range []string{"", probe.PacingLink} {
		c := probe.Condition{Page: "pageA", Shards: 1, Link: link, TCP: probe.TCP{Pacing: pacing}}
		name := []string{"pcpace0", "pcpace1"}[i]
		b := openBench(t, c, Options{Testbed: func(cfg *netem.Config) { cfg.Name = name }})
		for run, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
			r := b.Load(context.Background(), proto, run)
			if r.Failed {
				t.Fatalf("pacing %q, %s: %s", pacing, proto, r.Error)
			}
			if r.ServerTCP == nil {
				t.Fatalf("pacing %q, %s: no server TCP_INFO", pacing, proto)
			}
			t.Logf("pacing %q, %s: PLT %.0f ms, %d queue drops down, %d server retransmits", pacing, proto, r.PLTms, r.Link.Down.PktsQueueDrop, r.ServerTCP.Retransmits())
			for _, ci := range r.ServerTCP.Conns {
				switch {
				case pacing == "" && ci.PacingCap != 0:
					t.Errorf("no pacing, %s: server connection has a pacing cap %d", proto, ci.PacingCap)
				case pacing != "" && (ci.PacingCap != capBytes || ci.PacingRate == 0 || ci.PacingRate > capBytes):
					t.Errorf("pacing link, %s: server connection cap %d, rate %d; want cap %d and a rate up to it", proto, ci.PacingCap, ci.PacingRate, int(capBytes))
				}
			}
		}
		b.Close()
	}
}

// A congestion control the kernel lacks never reaches a load: Open
// refuses it, naming the value (probe's factor accepts only the lab's
// names, so the check is for a kernel without one of them).
func TestOpenRefusesACongestionControlTheKernelLacks(t *testing.T) {
	c := probe.Condition{Page: "pageA", NoLink: true, TCP: probe.TCP{CC: "no-such-cc"}}
	_, err := Open(context.Background(), c, Options{WorkDir: t.TempDir(), Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "no-such-cc") || !strings.Contains(err.Error(), "offers") {
		t.Errorf("cc no-such-cc: %v, want Open to refuse it naming what the kernel offers", err)
	}
}
