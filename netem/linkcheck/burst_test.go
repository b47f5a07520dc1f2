package linkcheck

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

func TestDispersionRate(t *testing.T) {
	// 31 packets of 1500 B back to back at 10 Mbit/s: 30 gaps of 1.2 ms.
	if got := dispersionRate(31, 1500, 36*time.Millisecond); math.Abs(got-10e6) > 1 {
		t.Errorf("31 x 1500 B over 36 ms: %v bit/s, want 10e6", got)
	}
	if got := dispersionRate(11, 200, 250*time.Millisecond); math.Abs(got-64e3) > 1e-6 {
		t.Errorf("11 x 200 B over 250 ms: %v bit/s, want 64e3", got)
	}
	for _, c := range []struct {
		delivered int
		span      time.Duration
	}{{0, time.Second}, {1, time.Second}, {5, 0}} {
		if got := dispersionRate(c.delivered, 1500, c.span); got != 0 {
			t.Errorf("%d packets over %v: %v, want 0 (nothing to time)", c.delivered, c.span, got)
		}
	}
}

func TestQueueFromBurst(t *testing.T) {
	for _, c := range []struct{ delivered, drained, want int }{
		{31, 0, 30},      // 30 waiting + 1 in service
		{11, 0, 10},      // a 10-packet queue
		{1084, 76, 1007}, // 100 Mbit/s: 7.7 ms of writing drained 76 packets
		{1, 0, 0},
		{0, 0, 0},
		{3, 5, 0}, // never negative
	} {
		if got := queueFromBurst(c.delivered, c.drained); got != c.want {
			t.Errorf("queueFromBurst(%d, %d) = %d, want %d", c.delivered, c.drained, got, c.want)
		}
	}
	// At 100 Mbit/s a 1248-byte probe takes 99.84 us: 7.67 ms of writing
	// let the link finish 76 of them.
	if got := drainedWhileSent(7670*time.Microsecond, 1248, 100e6); got != 76 {
		t.Errorf("drained while sent: %d, want 76", got)
	}
	// A 200-byte probe takes 1.6 ms at 1 Mbit/s: a burst written in 1 ms
	// is all in the queue before the first one leaves.
	if got := drainedWhileSent(time.Millisecond, 200, 1e6); got != 0 {
		t.Errorf("1 ms of writing at 1 Mbit/s drained %d packets, want 0", got)
	}
}

func TestPlanBurst(t *testing.T) {
	ge := &link.GilbertElliott{P: 0.01, R: 0.5, LossBad: 0.5}
	for _, c := range []struct {
		name          string
		d             link.DirConfig
		wire, n, q    int
		fills         bool
		informational string
		queueNote     string
	}{
		// Fast enough for full-size probes: the queue fills in 61 ms.
		{name: "10mbit 50pkt", d: link.DirConfig{RateBps: 10e6, QueuePkts: 50}, wire: 1500, n: 61, q: 50, fills: true},
		// study1's uplink: probes shrink so 51 of them drain in 100 ms.
		{name: "1mbit 50pkt", d: link.DirConfig{RateBps: 1e6, QueuePkts: 50}, wire: 245, n: 61, q: 50, fills: true},
		{name: "2mbit 30pkt", d: link.DirConfig{RateBps: 2e6, QueuePkts: 30}, wire: 806, n: 41, q: 30, fills: true},
		// study4's slowest uplink: the 200 B floor, 0.63 s.
		{name: "256kbit 100pkt", d: link.DirConfig{RateBps: 256e3, QueuePkts: 100}, wire: 200, n: 121, q: 100, fills: true},
		// study2's 256-packet queue at 64 kbit/s would take 6.4 s: rate only.
		{name: "64kbit 256pkt", d: link.DirConfig{RateBps: 64e3, QueuePkts: 256}, wire: 200, n: 10, queueNote: "not checked"},
		{name: "100mbit 1000pkt", d: link.DirConfig{RateBps: 100e6, QueuePkts: 1000}, wire: 1248, n: 1201, q: 1000, fills: true},
		{name: "100mbit 2000pkt", d: link.DirConfig{RateBps: 100e6, QueuePkts: 2000}, wire: 1500, n: 30, queueNote: "would need"},
		// A byte limit: probes that resolve it to ~30 packets.
		{name: "64000B", d: link.DirConfig{RateBps: 10e6, QueueBytes: 64000}, wire: 1500, n: 53, q: 42, fills: true, queueNote: "64000 B = 42 probes"},
		{name: "15000B", d: link.DirConfig{RateBps: 2e6, QueueBytes: 15000}, wire: 500, n: 41, q: 30, fills: true, queueNote: "15000 B = 30 probes of 500 B"},
		// Both limits: the tighter one counts.
		{name: "50pkt 30000B", d: link.DirConfig{RateBps: 10e6, QueuePkts: 50, QueueBytes: 30000}, wire: 1500, n: 31, q: 20, fills: true, queueNote: "30000 B = 20 probes"},
		// Unlimited queues: a short rate-only train.
		{name: "10mbit unlimited", d: link.DirConfig{RateBps: 10e6}, wire: 1500, n: 30},
		{name: "64kbit unlimited", d: link.DirConfig{RateBps: 64e3}, wire: 200, n: 10},
		{name: "loss", d: link.DirConfig{RateBps: 10e6, QueuePkts: 30, Loss: 0.01}, wire: 1500, n: 41, q: 30, fills: true, informational: "random loss"},
		{name: "GE", d: link.DirConfig{RateBps: 10e6, QueuePkts: 30, GE: ge}, wire: 1500, n: 41, q: 30, fills: true, informational: "random loss"},
	} {
		p, ok := planBurst("down", c.d)
		if !ok {
			t.Errorf("%s: no train", c.name)
			continue
		}
		if p.wire != c.wire || p.n != c.n || p.fills != c.fills || (c.fills && p.queue != c.q) || p.informational != c.informational {
			t.Errorf("%s: wire %d n %d fills %v queue %d informational %q; want %d %d %v %d %q",
				c.name, p.wire, p.n, p.fills, p.queue, p.informational, c.wire, c.n, c.fills, c.q, c.informational)
		}
		if !strings.Contains(p.queueNote, c.queueNote) || (c.queueNote == "") != (p.queueNote == "") {
			t.Errorf("%s: queue note %q, want one with %q", c.name, p.queueNote, c.queueNote)
		}
		// Cheap: what the train puts through drains within a second.
		through := p.n
		if p.fills {
			through = p.queue + 1
		}
		if d := drainTime(through, p.wire, p.rateBps); d > burstMaxDrain {
			t.Errorf("%s: the train takes %v to drain", c.name, d)
		}
	}
	if _, ok := planBurst("up", link.DirConfig{QueuePkts: 50}); ok {
		t.Error("a train planned on a link without a rate limit")
	}
	trace, err := link.NewTrace("12mbit", []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := planBurst("down", link.DirConfig{Trace: trace, QueuePkts: 50}); !ok || p.informational != "trace link" || p.rateBps != 12e6 {
		t.Errorf("trace link: %+v %v", p, ok)
	}
}

func TestBurstMeasurements(t *testing.T) {
	plan, _ := planBurst("down", link.DirConfig{RateBps: 10e6, QueuePkts: 30}) // 41 x 1500 B
	good := burstResult{sent: 41, delivered: 31, span: 36 * time.Millisecond, kernel: true, sendSpan: 300 * time.Microsecond,
		link: probe.LinkDir{PktsOffered: 41, PktsDelivered: 31, PktsQueueDrop: 10}}
	ms := burstMeasurements(plan, good)
	if len(ms) != 2 || ms[0].Name != "rate_down" || ms[1].Name != "queue_down" {
		t.Fatalf("measurements %+v", ms)
	}
	for _, m := range ms {
		if !m.Checked || !m.Pass {
			t.Errorf("%s not judged or failed: %+v", m.Name, m)
		}
	}
	if ms[1].Measured != 30 || !strings.Contains(ms[1].Note, "10 dropped at the queue") {
		t.Errorf("queue %+v", ms[1])
	}

	// A queue of 45 where 30 were configured, and a link at 8 Mbit/s.
	bad := good
	bad.delivered, bad.span = 46, 67500*time.Microsecond
	ms = burstMeasurements(plan, bad)
	if ms[0].Pass || ms[1].Pass {
		t.Errorf("out-of-tolerance values passed: %+v", ms)
	}
	rep := Report{Measurements: ms, Bursts: []BurstTrain{bad.train(plan)}}
	var lc probe.LinkCheck
	fillLinkCheck(&lc, &rep)
	if lc.QueueDownPkts != 45 || math.Abs(lc.DownMbps-8) > 1e-9 || !strings.Contains(lc.Note, "queue 45 pkts (configured 30)") {
		t.Errorf("link check %+v", lc)
	}

	// Random loss: the same values are reported, not judged.
	lossy, _ := planBurst("down", link.DirConfig{RateBps: 10e6, QueuePkts: 30, Loss: 0.01})
	for _, m := range burstMeasurements(lossy, bad) {
		if m.Checked || !m.Pass || !strings.Contains(m.Note, "informational") {
			t.Errorf("lossy link: %+v", m)
		}
	}

	// Other traffic in the queue widens the tolerance by its packets.
	shared := good
	shared.delivered, shared.others, shared.link.PktsOffered = 28, 2, 43
	if ms := burstMeasurements(plan, shared); !ms[1].Pass || ms[1].Low != 25 {
		t.Errorf("queue with 2 other packets: %+v", ms[1])
	}
}

// newBurstTestbed is a testbed with one server and a shared link.
// newBurstTestbed lets netem name the testbed: a fixed name collides with
// the same test of another suite running on the machine.
func newBurstTestbed(t *testing.T, l probe.Link, adjust func(*netem.Config)) *netem.Testbed {
	t.Helper()
	l.Shared = true
	cfg := netem.Config{Shards: 1, Link: l}
	if adjust != nil {
		adjust(&cfg)
	}
	return newTestbed(t, cfg)
}

func shortCheck(t *testing.T, tb *netem.Testbed) probe.LinkCheck {
	t.Helper()
	lc, err := Check(context.Background(), tb, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %+v", netem.Describe(tb.Config()), lc)
	return lc
}

func TestShortCheckRatesAndQueues(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newBurstTestbed(t, probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 2e6, QueuePkts: 30}, nil)
	lc := shortCheck(t, tb)
	if !lc.OK {
		t.Errorf("check failed: %s", lc.Problem)
	}
	if lc.DownMbps < 8 || lc.DownMbps > 11 || lc.UpMbps < 1.6 || lc.UpMbps > 2.2 {
		t.Errorf("rates %.3f / %.3f Mbit/s for a 10/2 Mbit/s link", lc.DownMbps, lc.UpMbps)
	}
	for dir, q := range map[string]int{"down": lc.QueueDownPkts, "up": lc.QueueUpPkts} {
		if q < 27 || q > 33 {
			t.Errorf("%s queue measured %d packets, configured 30", dir, q)
		}
	}
	// The emulator's counters back the receiver's count.
	if !strings.Contains(lc.Note, "dropped at the queue") || strings.Contains(lc.Note, " 0 dropped") {
		t.Errorf("note %q does not show the queue's drops", lc.Note)
	}
}

func TestShortCheckSmallAndByteQueues(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	// Downlink: 10 packets; uplink: 15000 bytes, which the check's 500 B
	// probes see as 30 packets.
	tb := newBurstTestbed(t, probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 2e6}, func(c *netem.Config) {
		c.Link.QueueDown, c.Link.QueueUp = netem.Queue{Pkts: 10}, netem.Queue{Bytes: 15000}
	})
	lc := shortCheck(t, tb)
	if !lc.OK {
		t.Errorf("check failed: %s", lc.Problem)
	}
	if lc.QueueDownPkts < 7 || lc.QueueDownPkts > 13 {
		t.Errorf("downlink queue measured %d packets, configured 10", lc.QueueDownPkts)
	}
	if lc.QueueUpPkts < 27 || lc.QueueUpPkts > 33 || !strings.Contains(lc.Note, "15000 B = 30 probes of 500 B") {
		t.Errorf("uplink byte queue measured %d probes (want ~30): %s", lc.QueueUpPkts, lc.Note)
	}
}

func TestShortCheckUnlimitedQueue(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newBurstTestbed(t, probe.Link{RTT: 10 * time.Millisecond, DownBps: 10e6, UpBps: 2e6}, nil)
	rep, err := Run(context.Background(), tb, Options{Pings: 3, SkipRate: true, SkipLoss: true, SkipDNS: true, OnlyS1: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range rep.Measurements {
		names = append(names, m.Name)
		if strings.HasPrefix(m.Name, "rate_") && (!m.Checked || !m.Pass) {
			t.Errorf("%s not judged or failed: %+v", m.Name, m)
		}
	}
	if got := strings.Join(names, ","); got != "rtt,rate_down,rate_up" {
		t.Errorf("measurements %s, want rtt and the rates only (no queue check)", got)
	}
	for _, b := range rep.Bursts {
		if b.Sent != burstRatePkts || b.Delivered != b.Sent || b.QueueDrops != 0 {
			t.Errorf("rate-only train %+v", b)
		}
	}
	if !rep.OK {
		t.Errorf("check failed: %+v", rep.Failed())
	}
}

func TestShortCheckRandomLossIsInformational(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newBurstTestbed(t, probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 2e6, QueuePkts: 30,
		LossDown: 0.05, LossUp: 0.05, Seed: 5}, nil)
	rep, err := Run(context.Background(), tb, Options{Pings: 5, SkipRate: true, SkipLoss: true, SkipDNS: true, OnlyS1: true})
	if err != nil {
		t.Fatal(err)
	}
	bursts := 0
	for _, m := range rep.Measurements {
		if m.Name == "rtt" {
			continue
		}
		bursts++
		if m.Checked || !strings.Contains(m.Note, "random loss: informational") {
			t.Errorf("%s judged on a lossy link: %+v", m.Name, m)
		}
	}
	if bursts != 4 {
		t.Errorf("%d burst measurements, want rate and queue each way", bursts)
	}
	// Loss is only noted. The RTT is still checked, and a host that
	// holds the emulator back (CPU steal) can put it out of tolerance:
	// that problem is the RTT's, not the loss's.
	lc := shortCheck(t, tb)
	if !strings.Contains(lc.Note, "(informational)") || !lc.OK && !strings.HasPrefix(lc.Problem, "rtt ") {
		t.Errorf("lossy link's check: %+v", lc)
	}
}
