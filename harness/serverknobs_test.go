package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// Pacing at the link's rate reaches the servers' sockets for HTTPS and
// SPDY alike: each server connection's TCP_INFO shows the cap and a
// pacing rate at or below it; without the knob no cap is recorded.
func TestPacingAtTheLinkRateReachesEveryServerConnection(t *testing.T) {
	testutil.RequireRoot(t)
	link := probe.Link{DownBps: 10e6, UpBps: 5e6, RTT: 40 * time.Millisecond, QueuePkts: 20, Shared: true}
	const capBytes = 10e6 / 8
	for _, pacing := range []string{"", probe.PacingLink} {
		c := probe.Condition{Page: "pageA", Shards: 1, Link: link, TCP: probe.TCP{Pacing: pacing}}
		b := openBench(t, c, Options{})
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

// The deps policy pushes the document's direct children through a whole
// bench (the loader uses them), fewer than manifest's everything-below;
// the other SPDY-side knobs load the page intact.
func TestDepsPushAndSPDYKnobsThroughTheBench(t *testing.T) {
	c := probe.Condition{Page: "youtube", Push: probe.PushDeps, Hints: probe.HintsDeps, FrameSize: 2048,
		SessionWindow: 1 << 20, TCP: probe.TCP{NotSentLowat: 16384, Pacing: probe.PacingOn}, NoLink: true}
	b := openBench(t, c, Options{})
	m := b.Manifest()
	children := len(m.DependencyMap()[m.Root().Path])
	if below := len(m.PushMap()[m.Root().Path]); children == 0 || below <= children {
		t.Fatalf("youtube: %d direct children, %d below the root; the test needs grandchildren", children, below)
	}
	for _, proto := range []string{probe.ProtoSPDY31} { // spdy/2 and 3 would ignore the session window
		r := b.Load(context.Background(), proto, 0)
		if r.Failed || r.Resources != len(m.Resources) {
			t.Fatalf("%s: failed=%v %q, %d of %d resources", proto, r.Failed, r.Error, r.Resources, len(m.Resources))
		}
		if r.Pushed != children {
			t.Errorf("%s: %d pushed, want the root's %d direct children", proto, r.Pushed, children)
		}
	}
	// h2 in the same bench ignores the SPDY-only knobs (probe.IgnoredBy);
	// its stored condition keeps them.
	if r := b.Load(context.Background(), probe.ProtoH2, 0); r.Failed || r.Resources != len(m.Resources) || r.Condition.FrameSize != 2048 ||
		strings.Join(probe.IgnoredBy(r.Condition, probe.ProtoH2), " ") != "frame_size hints" {
		t.Errorf("h2 beside frame_size and hints: failed=%v %q, %d resources, ignores %v", r.Failed, r.Error, r.Resources, probe.IgnoredBy(r.Condition, probe.ProtoH2))
	}
	h2 := openBench(t, probe.Condition{Page: "youtube", SessionWindow: 1 << 20, TCP: probe.TCP{Pacing: probe.PacingOn}, NoLink: true}, Options{})
	if r := h2.Load(context.Background(), probe.ProtoH2, 0); r.Failed || r.Resources != len(m.Resources) {
		t.Errorf("h2 with session_window and pacing: failed=%v %q, %d resources", r.Failed, r.Error, r.Resources)
	}
	if r := h2.Load(context.Background(), probe.ProtoH3, 0); r.Failed || r.Resources != len(m.Resources) ||
		strings.Join(probe.IgnoredBy(r.Condition, probe.ProtoH3), " ") != "pacing session_window" {
		t.Errorf("h3 beside pacing and session_window: failed=%v %q, %d resources, ignores %v", r.Failed, r.Error, r.Resources, probe.IgnoredBy(r.Condition, probe.ProtoH3))
	}
}
