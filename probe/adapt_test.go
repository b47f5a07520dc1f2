package probe

import (
	"strings"
	"testing"
)

// TestAdaptiveNote: the load's note counts what each mechanism did over
// the servers' connections, says the static setting held when none
// carried a signal, and is empty when the knobs are off or the protocol
// ignores them.
func TestAdaptiveNote(t *testing.T) {
	on := Condition{TCP: TCP{CC: "cubic", AdaptiveCC: true, AdaptiveLowat: true, AdaptivePacing: true}}
	conns := []TCPInfo{
		{AdaptCC: AdaptCCSwitched, AdaptLowat: 20000},
		{AdaptCC: AdaptCCSwitched, AdaptLowat: 60000, AdaptPaceLowest: 500_000},
		{AdaptCC: AdaptCCQueue, AdaptPaceLowest: 625_000},
	}
	got := AdaptiveNote(on, ProtoSPDY31, conns, nil, nil)
	for _, want := range []string{"adaptive cc: bbr on 2 of 3 connections (1 kept:queue)", "adaptive lowat: set on 2 of 3 connections (20000..60000 bytes)",
		"adaptive pacing: capped 2 of 3 connections (lowest cap 4.00 Mbit/s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q, want %q in it", got, want)
		}
	}
	got = AdaptiveNote(on, ProtoHTTPS, nil, nil, nil)
	if !strings.Contains(got, "no signal") || !strings.Contains(got, "static cc (cubic) held") || !strings.Contains(got, "kernel's default held") ||
		!strings.Contains(got, "adaptive pacing: no signal") {
		t.Errorf("no connections: note %q, want the fallback named", got)
	}
	if got := AdaptiveNote(on, ProtoH3, nil, nil, nil); got != "" {
		t.Errorf("h3 (ignores both): note %q", got)
	}
	if got := AdaptiveNote(Condition{}, ProtoSPDY31, conns, nil, nil); got != "" {
		t.Errorf("knobs off: note %q", got)
	}
}

// TestAdaptiveWindowNote: the client-side window's line counts the
// sessions whose window fell, says the static window held when no PING
// came back, and is left out where the protocol ignores the knob.
func TestAdaptiveWindowNote(t *testing.T) {
	on := Condition{AdaptiveWindow: true}
	var sum RecvWindowSum
	sum.Add(true, 90000)
	sum.Add(true, 0)
	sum.Add(true, 70000)
	for _, tc := range []struct {
		proto string
		win   *RecvWindowSum
		want  string
	}{
		{ProtoSPDY31, &sum, "adaptive window: fell on 2 of 3 sessions (lowest 68 KiB)"},
		{ProtoSPDY31, &RecvWindowSum{Sessions: 2, Sampled: 2}, "adaptive window: no session's PINGs showed a queue: none of 2 fell"},
		{ProtoSPDY31, &RecvWindowSum{Sessions: 1}, "adaptive window: no signal (no PING echo on any session): the static window held"},
		{ProtoSPDY3, &sum, ""},
		{ProtoHTTPS, nil, ""},
	} {
		if got := AdaptiveNote(on, tc.proto, nil, tc.win, nil); got != tc.want {
			t.Errorf("%s: note %q, want %q", tc.proto, got, tc.want)
		}
	}
}

// TestAdaptiveKnobsRules: the knobs apply to TCP protocols only (one
// rule, applies.go), refuse a fixed notsent_lowat beside adaptive_lowat
// and cc bbr beside adaptive_cc, and adaptive_cc needs bbr in the kernel.
func TestAdaptiveKnobsRules(t *testing.T) {
	c, err := BuildCondition(map[string]string{"page": "pageA", "adaptive_cc": "true", "adaptive_lowat": "true", "rate": "10mbit"})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckApplies(c, []string{ProtoH3}); err == nil || !strings.Contains(err.Error(), "adaptive_cc") {
		t.Errorf("adaptive_cc on h3 alone: %v, want it refused", err)
	}
	if err := CheckApplies(c, []string{ProtoH3, ProtoSPDY31}); err != nil {
		t.Errorf("beside spdy/3.1: %v", err)
	}
	for _, v := range []map[string]string{
		{"adaptive_lowat": "true", "notsent_lowat": "16384"},
		{"adaptive_cc": "true", "cc": "bbr"},
		{"adaptive_regrow": "true", "cc": "bbr"},
		{"adaptive_pacing": "true", "pacing": "on"},
	} {
		v["page"] = "pageA"
		c, err := BuildCondition(v)
		if err == nil {
			_, err = Normalize(c)
		}
		if err == nil {
			t.Errorf("%v accepted", v)
		}
	}
	if got := c.TCP.CongestionControls(); len(got) != 2 || got[1] != "bbr" {
		t.Errorf("congestion controls %v, want bbr among them", got)
	}
	if got := (TCP{CC: "cubic", AdaptiveRegrow: true}).CongestionControls(); len(got) != 2 || got[1] != "bbr" {
		t.Errorf("adaptive_regrow: congestion controls %v, want bbr among them", got)
	}
}
