package probe

import (
	"fmt"
	"time"
)

// OneWay is the delay the link adds in each direction, the one rule every
// reader of rtt, delay_down and delay_up follows (the emulator, the link
// check, the lower bound and load model, the critical path, the harness):
// both delays given, they are the link; one given, the other direction
// takes the rest of the RTT; none, the RTT is split evenly. CheckDelays
// refuses the combinations where the RTT would then say otherwise.
func (l Link) OneWay() (down, up time.Duration) {
	switch {
	case l.DelayDown > 0 && l.DelayUp > 0:
		return l.DelayDown, l.DelayUp
	case l.DelayDown > 0:
		return l.DelayDown, max(l.RTT-l.DelayDown, 0)
	case l.DelayUp > 0:
		return max(l.RTT-l.DelayUp, 0), l.DelayUp
	}
	return l.RTT / 2, l.RTT - l.RTT/2
}

// RoundTrip is the round trip the link adds: the sum of OneWay. On a link
// CheckDelays accepts it is the RTT, when one is given.
func (l Link) RoundTrip() time.Duration {
	down, up := l.OneWay()
	return down + up
}

// CheckDelays refuses delays the link cannot apply as given: a negative
// one, a one-way delay longer than the RTT, and an RTT that disagrees with
// the two one-way delays it is given with (rtt 100ms with 80ms each way
// would apply 160ms while everything reading the RTT assumes 100ms). An
// RTT of 0 with one-way delays is no conflict: the delays are the link.
func (l Link) CheckDelays() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"rtt", l.RTT}, {"delay_down", l.DelayDown}, {"delay_up", l.DelayUp}} {
		if d.v < 0 {
			return &FieldError{Field: d.name, Value: d.v.String(), Err: fmt.Errorf("negative delay")}
		}
	}
	if l.RTT == 0 {
		return nil
	}
	if l.DelayDown > 0 && l.DelayUp > 0 {
		if sum := l.DelayDown + l.DelayUp; sum != l.RTT {
			return &DelayConflictError{RTT: l.RTT, Down: l.DelayDown, Up: l.DelayUp}
		}
		return nil
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"delay_down", l.DelayDown}, {"delay_up", l.DelayUp}} {
		if d.v > l.RTT {
			return &FieldError{Field: d.name, Value: d.v.String(), Err: fmt.Errorf("exceeds rtt %v", l.RTT)}
		}
	}
	return nil
}

// DelayConflictError is an RTT given with both one-way delays whose sum
// is not it. Names are the settings' spellings (flags under FlagError).
type DelayConflictError struct {
	RTT, Down, Up time.Duration
	// Names spell rtt, delay_down and delay_up; empty: the field names.
	Names [3]string
}

func (e *DelayConflictError) Error() string {
	n := e.Names
	if n == ([3]string{}) {
		n = [3]string{"rtt", "delay_down", "delay_up"}
	}
	return fmt.Sprintf("%s %v conflicts with %s %v + %s %v = %v: give %s or the delays, or make them agree",
		n[0], e.RTT, n[1], e.Down, n[2], e.Up, e.Down+e.Up, n[0])
}
