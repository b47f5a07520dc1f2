package critpath

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// TestRoundTripIsTheEmulators: the round trip the attribution charges is
// the one the emulator applies (probe.Link.OneWay), also for a link given
// by one one-way delay, or by both and an RTT that disagrees (a store
// written before such links were refused: the emulator applied the sum).
func TestRoundTripIsTheEmulators(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		l    probe.Link
		want float64
	}{
		{probe.Link{RTT: 100 * ms}, 100},
		{probe.Link{RTT: 100 * ms, DelayDown: 80 * ms}, 100},
		{probe.Link{DelayDown: 30 * ms}, 30},
		{probe.Link{DelayDown: 30 * ms, DelayUp: 20 * ms}, 50},
		{probe.Link{RTT: 100 * ms, DelayDown: 80 * ms, DelayUp: 80 * ms}, 160},
	} {
		down, up := c.l.OneWay()
		ev := newEvidence(&probe.Result{Condition: probe.Condition{Proto: "https", Link: c.l}})
		if ev.rttMs != c.want || ev.rttMs != ms64(down+up) {
			t.Errorf("%+v: round trip %v ms, want %v (OneWay %v/%v)", c.l, ev.rttMs, c.want, down, up)
		}
	}
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
