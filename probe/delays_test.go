package probe

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// TestOneWay: the one rule of how rtt, delay_down and delay_up combine.
func TestOneWay(t *testing.T) {
	for _, c := range []struct {
		l        Link
		down, up time.Duration
	}{
		{Link{RTT: 100 * ms}, 50 * ms, 50 * ms},
		{Link{RTT: 101 * ms}, 50500 * time.Microsecond, 50500 * time.Microsecond},
		{Link{RTT: 100 * ms, DelayDown: 80 * ms}, 80 * ms, 20 * ms},
		{Link{RTT: 100 * ms, DelayUp: 80 * ms}, 20 * ms, 80 * ms},
		{Link{RTT: 100 * ms, DelayDown: 60 * ms, DelayUp: 40 * ms}, 60 * ms, 40 * ms},
		{Link{DelayDown: 30 * ms, DelayUp: 20 * ms}, 30 * ms, 20 * ms},
		{Link{}, 0, 0},
	} {
		d, u := c.l.OneWay()
		if d != c.down || u != c.up || c.l.RoundTrip() != c.down+c.up {
			t.Errorf("%+v: %v/%v (round trip %v), want %v/%v", c.l, d, u, c.l.RoundTrip(), c.down, c.up)
		}
	}
}

// TestNormalizeRefusesConflictingDelays: an RTT given with both one-way
// delays must be their sum, or the emulator (which applies the delays)
// and every reader of the RTT disagree. The message names both sides.
func TestNormalizeRefusesConflictingDelays(t *testing.T) {
	bad := Condition{Page: "pageA", Link: Link{RTT: 100 * ms, DelayDown: 80 * ms, DelayUp: 80 * ms}}
	_, err := Normalize(bad)
	want := "rtt 100ms conflicts with delay_down 80ms + delay_up 80ms = 160ms: give rtt or the delays, or make them agree"
	if err == nil || err.Error() != want {
		t.Fatalf("Normalize(rtt 100ms, 80ms each way) = %v, want %q", err, want)
	}
	_, err = NewCondition(map[string]string{"page": "pageA", "rtt": "100ms", "delay_down": "80ms", "delay_up": "80ms"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the fields: %v, want %q", err, want)
	}
	_, err = BuildCondition(map[string]string{"page": "pageA", "rtt": "100ms", "delay_down": "80ms", "delay_up": "80ms"})
	if err = FlagError(err); err == nil || !strings.Contains(err.Error(), "--rtt 100ms conflicts with --delay-down 80ms + --delay-up 80ms") {
		t.Errorf("as flags: %v", err)
	}
	for _, bad := range []Link{
		{RTT: 100 * ms, DelayDown: 30 * ms, DelayUp: 30 * ms},
		{RTT: 10 * ms, DelayDown: 20 * ms},
		{RTT: 10 * ms, DelayUp: 20 * ms},
		{RTT: -1 * ms},
		{DelayDown: -1 * ms},
	} {
		if _, err := Normalize(Condition{Page: "pageA", Link: bad}); err == nil {
			t.Errorf("Normalize accepted %+v", bad)
		}
	}
	for _, good := range []Link{
		{RTT: 100 * ms, DelayDown: 60 * ms, DelayUp: 40 * ms},
		{RTT: 100 * ms, DelayDown: 100 * ms},
		{DelayDown: 80 * ms, DelayUp: 80 * ms}, // no rtt: the delays are the link
		{RTT: 100 * ms},
	} {
		if _, err := Normalize(Condition{Page: "pageA", Link: good}); err != nil {
			t.Errorf("Normalize refused %+v: %v", good, err)
		}
	}
	var fe *FieldError
	if _, err := Normalize(Condition{Page: "pageA", Link: Link{RTT: 10 * ms, DelayUp: 20 * ms}}); !errors.As(err, &fe) || fe.Field != "delay_up" {
		t.Errorf("delay_up beyond rtt: %v, want it named", err)
	}
}

// TestDelayFieldsKeepTheirStoredValues: the check only refuses; the
// values a valid condition stores (and so its hash) stay as they were.
func TestDelayFieldsKeepTheirStoredValues(t *testing.T) {
	for _, c := range []struct {
		v    map[string]string
		want Link
	}{
		{map[string]string{"rtt": "100ms"}, Link{RTT: 100 * ms}},
		{map[string]string{"rtt": "100ms", "delay_down": "80ms"}, Link{RTT: 100 * ms, DelayDown: 80 * ms}},
		{map[string]string{"delay_down": "80ms", "delay_up": "30ms"}, Link{RTT: 110 * ms, DelayDown: 80 * ms, DelayUp: 30 * ms}},
	} {
		c.v["page"] = "pageA"
		got, err := BuildCondition(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got.Link.RTT != c.want.RTT || got.Link.DelayDown != c.want.DelayDown || got.Link.DelayUp != c.want.DelayUp {
			t.Errorf("%v: %+v", c.v, got.Link)
		}
	}
}
