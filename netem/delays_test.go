package netem

import (
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// TestEmulatorAppliesTheLinksOneWayDelays: the delays each direction's
// emulator gets, and the link's description, are probe.Link.OneWay's; a
// testbed refuses an RTT that disagrees with both delays given with it
// (the emulator would apply their sum, everything else the RTT).
func TestEmulatorAppliesTheLinksOneWayDelays(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		l        probe.Link
		down, up time.Duration
	}{
		{probe.Link{RTT: 100 * ms}, 50 * ms, 50 * ms},
		{probe.Link{RTT: 100 * ms, DelayDown: 80 * ms}, 80 * ms, 20 * ms},
		{probe.Link{RTT: 100 * ms, DelayUp: 80 * ms}, 20 * ms, 80 * ms},
		{probe.Link{RTT: 100 * ms, DelayDown: 60 * ms, DelayUp: 40 * ms}, 60 * ms, 40 * ms},
		{probe.Link{DelayDown: 30 * ms, DelayUp: 20 * ms}, 30 * ms, 20 * ms},
	} {
		cfg := Config{Shards: 1, Link: c.l}
		d, err := buildDirs(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d.down.Delay != c.down || d.up.Delay != c.up {
			t.Errorf("%+v: emulator delays %v/%v, want %v/%v", c.l, d.down.Delay, d.up.Delay, c.down, c.up)
		}
		if want := "rtt " + (c.down + c.up).String() + " (down " + c.down.String() + ", up " + c.up.String() + ")"; !strings.Contains(Describe(cfg), want) {
			t.Errorf("%+v: described %q, want %q", c.l, Describe(cfg), want)
		}
	}
	cfg := Config{Shards: 1, Link: probe.Link{RTT: 100 * ms, DelayDown: 80 * ms, DelayUp: 80 * ms}}
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "rtt 100ms conflicts with delay_down 80ms + delay_up 80ms") {
		t.Errorf("rtt 100ms with 80ms each way: %v", err)
	}
}
