package linkcheck

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

// newTestbed builds a testbed and closes it when the test ends (netem's
// own tests check that nothing is left behind).
func newTestbed(t *testing.T, cfg netem.Config) *netem.Testbed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := netem.New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return tb
}

// parseFlags is the testbed configuration `spdylab link` builds from args.
func parseFlags(t *testing.T, args ...string) (netem.Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v := netem.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return netem.Config{}, err
	}
	return v.Config()
}

// A loopback testbed has no link to check: the check passes on what it
// measures, and the emulator's counters stay zero.
func TestLoopbackCheck(t *testing.T) {
	tb := netem.Loopback(3)
	defer tb.Close()
	lc, err := Check(context.Background(), tb, false)
	if err != nil || !lc.OK {
		t.Errorf("loopback check: %+v %v", lc, err)
	}
	if c := tb.Counters(); c != (probe.LinkCounters{}) {
		t.Errorf("loopback counters %+v, want zero", c)
	}
}

func TestShortCheckMeasuresTheRTT(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	const rtt = 40 * time.Millisecond
	tb := newTestbed(t, netem.Config{Shards: 2, DNS: true, Link: probe.Link{RTT: rtt, Shared: true}})
	lc, err := Check(context.Background(), tb, false)
	if err != nil {
		t.Fatal(err)
	}
	// Generous bounds: the emulator adds the delay; a loaded machine adds more.
	if lc.RTTms < 0.9*ms(rtt) || lc.RTTms > 3*ms(rtt) {
		t.Errorf("ping RTT %.1f ms with a configured %v", lc.RTTms, rtt)
	}
	if lc.RTTConfiguredms != ms(rtt) {
		t.Errorf("configured RTT %v", lc.RTTConfiguredms)
	}
}

func TestBulkTransferRate(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	var log bytes.Buffer // written through the testbed's serialising writer
	tb := newTestbed(t, netem.Config{Shards: 1, Link: probe.Link{RTT: 10 * time.Millisecond, DownBps: 8e6, UpBps: 4e6, QueuePkts: 50, Shared: true},
		TCP: probe.TCP{CC: "cubic", IW: 10}, PacketLog: &log})
	rep, err := Run(context.Background(), tb, Options{Pings: 3, Transfer: 1500 * time.Millisecond, SkipLoss: true, SkipDNS: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Measurements {
		if m.Name != "down" && m.Name != "up" {
			continue
		}
		// Generous: TCP goodput is a bit below the rate; more than the rate
		// means the emulator does not limit.
		if m.Measured < 0.6*m.Expected || m.Measured > 1.1*m.Expected {
			t.Errorf("%s goodput %.2f Mbit/s for a link of %.2f Mbit/s", m.Name, m.Measured, m.Configured)
		}
	}
	c := rep.Counters
	if c.Down.BytesDelivered == 0 || c.Down.PktsDelivered == 0 {
		t.Fatalf("no downlink traffic counted: %+v", c)
	}
	// TUN without offloads: every packet is at most one MTU, so a 50-packet
	// queue holds MTU packets. The packet log has each packet's size.
	if err := tb.Close(); err != nil { // flushes the log
		t.Fatal(err)
	}
	largest, lines := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("packet log line %q", line)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("packet log line %q: size %v", line, err)
		}
		largest = max(largest, size)
		lines++
	}
	if lines < 100 || largest != 1500 {
		t.Errorf("%d packets logged, largest %d bytes; want full 1500-byte packets and nothing larger", lines, largest)
	}
}

func TestTraceLink(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	// One 1500-byte opportunity every millisecond: 12 Mbit/s.
	var b strings.Builder
	for ms := 1; ms <= 100; ms++ {
		fmt.Fprintln(&b, ms)
	}
	trace := filepath.Join(t.TempDir(), "12mbit.trace")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := newTestbed(t, netem.Config{Shards: 1, Link: probe.Link{RTT: 10 * time.Millisecond, TraceDown: trace, UpBps: 10e6, QueuePkts: 100, Shared: true}})
	rep, err := Run(context.Background(), tb, Options{Pings: 3, Transfer: 1500 * time.Millisecond, SkipLoss: true, SkipDNS: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Measurements {
		if m.Name == "down" {
			if m.Configured != 12 {
				t.Errorf("trace rate %.3f Mbit/s, want 12", m.Configured)
			}
			if m.Measured < 0.6*12*tcpPayloadShare || m.Measured > 1.1*12*tcpPayloadShare {
				t.Errorf("goodput over a 12 Mbit/s trace: %.2f Mbit/s", m.Measured)
			}
		}
	}
}

// settledCounters waits until no packet is in flight on the link (every
// packet offered was delivered, lost or dropped) and returns the counters;
// after 5 s it returns them as they are, for the caller's checks to fail.
func settledCounters(tb *netem.Testbed) probe.LinkCounters {
	settled := func(d probe.LinkDir) bool { return d.PktsDelivered+d.PktsLost+d.PktsQueueDrop == d.PktsOffered }
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := tb.Counters()
		if (settled(c.Down) && settled(c.Up)) || time.Now().After(deadline) {
			return c
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLossCounters(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	const loss = 0.10
	tb := newTestbed(t, netem.Config{Shards: 1, DNS: false, Link: probe.Link{RTT: 4 * time.Millisecond, LossDown: loss, LossUp: loss, Shared: true, Seed: 3}})
	rep, err := Run(context.Background(), tb, Options{Pings: 1, LossProbes: 1000, SkipRate: true, SkipDNS: true})
	if err != nil {
		t.Fatal(err)
	}
	// Once nothing is in flight, every packet offered was delivered, lost
	// or dropped.
	c := settledCounters(tb)
	for _, d := range []struct {
		name string
		dir  probe.LinkDir
	}{{"down", c.Down}, {"up", c.Up}} {
		if d.dir.PktsDelivered+d.dir.PktsLost+d.dir.PktsQueueDrop != d.dir.PktsOffered {
			t.Errorf("%s: delivered %d + lost %d + dropped %d != offered %d", d.name,
				d.dir.PktsDelivered, d.dir.PktsLost, d.dir.PktsQueueDrop, d.dir.PktsOffered)
		}
		if d.dir.PktsOffered < 900 {
			t.Errorf("%s: only %d packets offered", d.name, d.dir.PktsOffered)
		}
		if r := float64(d.dir.PktsLost) / float64(d.dir.PktsOffered); r < 0.06 || r > 0.14 {
			t.Errorf("%s: emulator lost %.3f of packets, configured %.2f", d.name, r, loss)
		}
	}
	// The probe train's estimate agrees with the emulator's counters.
	for _, m := range rep.Measurements {
		if !strings.HasPrefix(m.Name, "loss_") {
			continue
		}
		if m.Measured < 5 || m.Measured > 15 {
			t.Errorf("%s measured %.1f%%, configured 10%%", m.Name, m.Measured)
		}
		if !m.Pass {
			t.Errorf("%s out of tolerance: %+v", m.Name, m)
		}
	}
}

func TestTwoTestbedsAtOnce(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	a := newTestbed(t, netem.Config{Shards: 1, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	b := newTestbed(t, netem.Config{Shards: 3, Link: probe.Link{RTT: 30 * time.Millisecond, Shared: true}})
	if a.ID() == b.ID() {
		t.Fatal("two testbeds share an id")
	}
	ca, err := Check(context.Background(), a, false)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Check(context.Background(), b, false)
	if err != nil {
		t.Fatal(err)
	}
	// Same addresses, separate namespaces: each sees its own link.
	if ca.RTTms >= cb.RTTms {
		t.Errorf("2 ms testbed pings %.1f ms, 30 ms testbed %.1f ms", ca.RTTms, cb.RTTms)
	}
	if a.Counters().Up.PktsOffered == 0 || b.Counters().Up.PktsOffered == 0 {
		t.Error("a testbed counted no traffic")
	}
	// The full check pings every server of b.
	rep, err := Run(context.Background(), b, Options{Pings: 3, SkipRate: true, SkipLoss: true, SkipDNS: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		seen[m.Name] = m.Measured > 0
	}
	for _, name := range []string{"rtt", "rtt_s2", "rtt_s3"} {
		if !seen[name] {
			t.Errorf("no %s measurement in %+v", name, rep.Measurements)
		}
	}
}

func TestGilbertElliottLossFromFlags(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	cfg, err := parseFlags(t, "--rtt", "4ms", "--ge-down", "p=5%,r=50%", "--no-dns", "--seed", "5")
	if err != nil {
		t.Fatal(err)
	}
	tb := newTestbed(t, cfg)
	rep, err := Run(context.Background(), tb, Options{Pings: 1, LossProbes: 1000, SkipRate: true, SkipDNS: true})
	if err != nil {
		t.Fatal(err)
	}
	c := settledCounters(tb)
	if c.Up.PktsLost != 0 {
		t.Errorf("uplink lost %d packets with no uplink loss configured", c.Up.PktsLost)
	}
	// Mean loss of the model: P/(P+R) of packets fall in the bad state,
	// where all are lost: 0.05/0.55 = 9.1%.
	if r := float64(c.Down.PktsLost) / float64(c.Down.PktsOffered); r < 0.03 || r > 0.2 {
		t.Errorf("downlink lost %.3f of %d packets, the model's mean is 0.091", r, c.Down.PktsOffered)
	}
	for _, m := range rep.Measurements {
		if m.Name == "loss_down" && (m.Configured < 9 || m.Configured > 9.2) {
			t.Errorf("check reports configured downlink loss %.2f%%, want the model's mean 9.09%%", m.Configured)
		}
	}
}
