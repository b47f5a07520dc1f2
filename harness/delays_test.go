package harness

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// TestLastPacketWaitIsTheDownlinksDelay: a repeat view waits for the
// closing packets as long as the emulator delays the downlink
// (probe.Link.OneWay), also when only the uplink's delay is given.
func TestLastPacketWaitIsTheDownlinksDelay(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		l    probe.Link
		down time.Duration
	}{
		{probe.Link{RTT: 100 * ms}, 50 * ms},
		{probe.Link{RTT: 100 * ms, DelayDown: 80 * ms}, 80 * ms},
		{probe.Link{RTT: 100 * ms, DelayUp: 80 * ms}, 20 * ms},
		{probe.Link{}, 0},
	} {
		if got, want := lastPacketWait(c.l), c.down+100*ms; got != want {
			t.Errorf("%+v: waits %v, want %v", c.l, got, want)
		}
	}
}
