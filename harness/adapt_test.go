package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// TestAdaptiveMechanismsActOnARealLossyLink: over an emulated link with
// random loss (2%, a deep queue the page cannot fill at cubic's lossy
// window), the servers' adaptive cc finds losses at the base RTT and
// moves connections to bbr (their TCP_INFO read at the end says bbr),
// adaptive lowat sets a low-water mark from the measured delivery rate,
// and the load's result says so. Without the knobs the servers record no
// adaptive outcome and every connection stays cubic.
func TestAdaptiveMechanismsActOnARealLossyLink(t *testing.T) {
	testutil.RequireRoot(t)
	link := probe.Link{DownBps: 10e6, UpBps: 2e6, RTT: 60 * time.Millisecond, LossDown: 0.02, QueuePkts: 100, Shared: true}
	for _, adaptive := range []bool{true, false} {
		c := probe.Condition{Page: "pageC", Shards: 1, Link: link, TCP: probe.TCP{CC: "cubic", AdaptiveCC: adaptive, AdaptiveLowat: adaptive}}
		b := openBench(t, c, Options{})
		r := b.Load(context.Background(), probe.ProtoSPDY31, 0)
		if r.Failed {
			t.Fatalf("adaptive %v: %s", adaptive, r.Error)
		}
		if r.ServerTCP == nil {
			t.Fatalf("adaptive %v: no server TCP_INFO", adaptive)
		}
		t.Logf("adaptive %v: PLT %.0f ms, %d server retransmits: %s", adaptive, r.PLTms, r.ServerTCP.Retransmits(), r.Adaptive)
		switched, lowat := 0, 0
		for _, ci := range r.ServerTCP.Conns {
			if ci.AdaptCC == probe.AdaptCCSwitched {
				switched++
				if ci.CongestionCC != "bbr" {
					t.Errorf("connection %s recorded a switch to bbr but runs %q", ci.Peer, ci.CongestionCC)
				}
			}
			if ci.AdaptLowat > 0 {
				lowat++
			}
			if !adaptive && (ci.AdaptCC != "" || ci.AdaptLowat != 0 || ci.CongestionCC != "cubic") {
				t.Errorf("without the knobs: connection %s adapt_cc %q, lowat %d, cc %q", ci.Peer, ci.AdaptCC, ci.AdaptLowat, ci.CongestionCC)
			}
		}
		if !adaptive {
			if r.Adaptive != "" {
				t.Errorf("without the knobs the result says %q", r.Adaptive)
			}
			b.Close()
			continue
		}
		if r.ServerTCP.Retransmits() == 0 {
			t.Fatalf("no server retransmits at 2%% loss: the test's link lost nothing")
		}
		if switched == 0 || lowat == 0 {
			t.Errorf("adaptive: %d connections switched to bbr, %d with a lowat, of %d; want both", switched, lowat, len(r.ServerTCP.Conns))
		}
		if !strings.Contains(r.Adaptive, "adaptive cc: bbr on") || !strings.Contains(r.Adaptive, "adaptive lowat: set on") {
			t.Errorf("result's note %q, want what both mechanisms did", r.Adaptive)
		}
		b.Close()
	}
}

// TestAdaptivePacingCapsASlowStartIntoAShallowQueue: two SPDY connections
// (page C on two servers) slow-starting into a 50-packet queue below the
// 83-packet BDP of 10 Mbit/s at 100 ms build a queue, so with adaptive
// pacing each server caps the connection that saw it: the cap is recorded,
// the socket carries a SO_MAX_PACING_RATE, and the load's note says so.
// The cap is a share, so the lowest one set is below the link's rate.
// Without the knob no connection is capped or paced.
func TestAdaptivePacingCapsASlowStartIntoAShallowQueue(t *testing.T) {
	testutil.RequireRoot(t)
	const linkBytes = 10e6 / 8
	for _, adaptive := range []bool{true, false} {
		r := loadPageCOnTwoShallowServers(t, probe.TCP{CC: "cubic", IW: 3, AdaptivePacing: adaptive}, adaptive)
		capped := 0
		for _, ci := range r.ServerTCP.Conns {
			if !adaptive && (ci.AdaptPaceLowest != 0 || ci.PacingCap != 0) {
				t.Errorf("without the knob: connection %s capped at %d, SO_MAX_PACING_RATE %d", ci.Peer, ci.AdaptPaceLowest, ci.PacingCap)
			}
			if ci.AdaptPaceLowest == 0 {
				continue
			}
			capped++
			if ci.AdaptPaceLowest >= linkBytes {
				t.Errorf("connection %s: lowest cap %d B/s, not below the link's %d B/s", ci.Peer, ci.AdaptPaceLowest, int(linkBytes))
			}
			if ci.PacingCap == 0 {
				t.Errorf("connection %s recorded a cap but its socket has no SO_MAX_PACING_RATE", ci.Peer)
			}
		}
		if adaptive && (capped == 0 || !strings.Contains(r.Adaptive, "adaptive pacing: capped")) {
			t.Errorf("adaptive: %d of %d connections capped, note %q", capped, len(r.ServerTCP.Conns), r.Adaptive)
		}
		if !adaptive && r.Adaptive != "" {
			t.Errorf("without the knob the result says %q", r.Adaptive)
		}
	}
}

// TestAdaptiveRegrowTakesTheRoomACutWindowLeaves: page C on two servers at
// 10/1 Mbit/s, 100 ms and a 50-packet queue, where the two SPDY
// connections' slow starts overflow the queue together and cut their
// windows. Once one connection has finished, the other sends full windows
// with its RTT back near the minimum: with adaptive regrowth its server
// moves it to bbr (recorded; its socket runs bbr at the end unless bbr's
// losses in the shallow queue sent it back, which is recorded as such),
// and the load's note says so. Without the knob every connection stays
// cubic.
func TestAdaptiveRegrowTakesTheRoomACutWindowLeaves(t *testing.T) {
	testutil.RequireRoot(t)
	for _, adaptive := range []bool{true, false} {
		r := loadPageCOnTwoShallowServers(t, probe.TCP{CC: "cubic", IW: 3, AdaptiveRegrow: adaptive}, adaptive)
		moved := 0
		for _, ci := range r.ServerTCP.Conns {
			if !adaptive && (ci.AdaptCC != "" || ci.CongestionCC != "cubic") {
				t.Errorf("without the knob: connection %s adapt_cc %q, cc %q", ci.Peer, ci.AdaptCC, ci.CongestionCC)
			}
			switch {
			case ci.AdaptCC == probe.AdaptCCRoom && ci.CongestionCC != "bbr":
				t.Errorf("connection %s recorded a move to bbr but runs %q", ci.Peer, ci.CongestionCC)
			case ci.AdaptCC == probe.AdaptCCBack && ci.CongestionCC != "cubic":
				t.Errorf("connection %s recorded a way back to cubic but runs %q", ci.Peer, ci.CongestionCC)
			}
			if ci.AdaptCC == probe.AdaptCCRoom || ci.AdaptCC == probe.AdaptCCBack {
				moved++
			}
		}
		if adaptive && (moved == 0 || !strings.Contains(r.Adaptive, "adaptive regrow: bbr on")) {
			t.Errorf("adaptive: %d of %d connections moved to bbr, note %q", moved, len(r.ServerTCP.Conns), r.Adaptive)
		}
		if !adaptive && r.Adaptive != "" {
			t.Errorf("without the knob the result says %q", r.Adaptive)
		}
	}
}

// loadPageCOnTwoShallowServers loads page C over SPDY on two servers at
// 10/1 Mbit/s, 100 ms and a 50-packet queue (below the 83-packet BDP), the
// servers' TCP as given, and returns the result with the servers' TCP_INFO.
func loadPageCOnTwoShallowServers(t *testing.T, tcp probe.TCP, adaptive bool) probe.Result {
	t.Helper()
	link := probe.Link{DownBps: 10e6, UpBps: 1e6, RTT: 100 * time.Millisecond, QueuePkts: 50, Shared: true}
	b := openBench(t, probe.Condition{Page: "pageC", Shards: 2, Link: link, TCP: tcp}, Options{})
	r := b.Load(context.Background(), probe.ProtoSPDY31, 0)
	b.Close()
	if r.Failed || r.ServerTCP == nil {
		t.Fatalf("adaptive %v: failed %v (%s), server TCP_INFO %v", adaptive, r.Failed, r.Error, r.ServerTCP != nil)
	}
	t.Logf("adaptive %v: PLT %.0f ms, %d server retransmits: %s", adaptive, r.PLTms, r.ServerTCP.Retransmits(), r.Adaptive)
	return r
}
