package probe

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestScopedSettings is the one rule for settings that configure some
// protocols only, knob by knob: Normalize takes the setting with any
// protocol; beside a protocol that takes it, another protocol ignores it
// (IgnoredBy, and ForProtocol puts it back to its default); alone, such a
// protocol refuses it, naming the protocols it applies to.
func TestScopedSettings(t *testing.T) {
	for _, k := range []struct {
		name           string
		set            func(c *Condition)
		takes, ignores string
		applies        []string // the protocols the refusal names
		why            string   // and its reason
	}{
		{"pacing", func(c *Condition) { c.TCP.Pacing = PacingOn }, ProtoHTTPS, ProtoH3, []string{"https", "spdy/3.1", "h2"}, "TCP socket option"},
		{"notsent_lowat", func(c *Condition) { c.TCP.NotSentLowat = 16384 }, ProtoH2, ProtoSPDY31SCTP, []string{"https", "spdy/2"}, "TCP socket option"},
		{"frame_size", func(c *Condition) { c.FrameSize = 4096 }, ProtoSPDY3, ProtoHTTPS, []string{"spdy/3.1", "spdy/3", "spdy/2", "spdy/3.1+sctp"}, "net/http"},
		{"session_window", func(c *Condition) { c.SessionWindow = 1 << 20 }, ProtoH2, ProtoSPDY3, []string{"spdy/3.1", "h2", "spdy/3.1+sctp"}, "no session window"},
		{"hints", func(c *Condition) { c.Hints = HintsDeps }, ProtoSPDY2, ProtoH2, []string{"spdy/3.1", "spdy/2"}, "X-Associated-Content"},
		{"scheduler", func(c *Condition) { c.Scheduler = SchedulerFIFO }, ProtoSPDY31, ProtoH3, []string{"spdy/3", "spdy/3.1+sctp"}, "quic-go"},
		{"sessions", func(c *Condition) { c.Sessions = 3 }, ProtoSPDY31, ProtoHTTPS, []string{"spdy/3.1", "h2"}, "own pool"},
		{"session_policy", func(c *Condition) { c.Sessions, c.SessionPolicy = 2, SessionPriority }, ProtoH2, ProtoH3, []string{"h2"}, "one connection per host"},
	} {
		t.Run(k.name, func(t *testing.T) {
			c := Condition{Page: "pageA", TLS: TLS13}
			if k.takes == ProtoSPDY31SCTP || k.ignores == ProtoSPDY31SCTP {
				c.TLS = TLSNone
			}
			k.set(&c)
			for _, proto := range []string{k.takes, k.ignores} {
				pc := c
				pc.Proto = proto
				if _, err := Normalize(pc); err != nil {
					t.Errorf("Normalize with %s: %v", proto, err)
				}
			}
			if ig := IgnoredBy(c, k.ignores); !slices.Contains(ig, k.name) {
				t.Errorf("IgnoredBy(%s) = %v, want %s in it", k.ignores, ig, k.name)
			}
			if ig := IgnoredBy(c, k.takes); len(ig) != 0 {
				t.Errorf("IgnoredBy(%s) = %v, want nothing", k.takes, ig)
			}
			if err := CheckApplies(c, []string{k.ignores, k.takes}); err != nil {
				t.Errorf("beside %s: %v", k.takes, err)
			}
			err := CheckApplies(c, []string{k.ignores})
			if err == nil {
				t.Fatalf("%s alone accepted %s", k.ignores, k.name)
			}
			refused := k.name
			if k.name == "session_policy" {
				refused = "sessions" // a policy needs sessions > 1, refused first
			}
			for _, want := range append([]string{refused + " has no effect on " + k.ignores, k.why}, k.applies...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
			checkForProtocol(t, c, k.takes, k.ignores)
		})
	}
}

// checkForProtocol: the ignoring protocol's load sees the defaults (the
// condition of a load that never set the knob), the taking one the knob.
func checkForProtocol(t *testing.T, c Condition, takes, ignores string) {
	t.Helper()
	c.Proto = ignores
	want, _ := Normalize(Condition{Page: c.Page, TLS: c.TLS, Proto: ignores})
	got, _ := json.Marshal(ForProtocol(c))
	if w, _ := json.Marshal(want); string(got) != string(w) {
		t.Errorf("ForProtocol(%s) = %s, want %s", ignores, got, w)
	}
	c.Proto = takes
	if IgnoredBy(ForProtocol(c), takes) != nil || ForProtocol(c) != c {
		t.Errorf("ForProtocol(%s) changed the condition", takes)
	}
}

// Every scoped setting's help states the rule with the protocols it
// applies to, spelled from the protocol list.
func TestScopedSettingsHelp(t *testing.T) {
	n := 0
	for _, f := range Fields {
		if f.Scope == nil {
			continue
		}
		n++
		if !strings.Contains(f.Help, "applies to "+OneOf(f.Scope.Protocols())+" only") || !strings.Contains(f.Help, "the others ignore it; without one it is refused") {
			t.Errorf("%s: help %q does not state the rule", f.Name, f.Help)
		}
	}
	if n != 14 {
		t.Errorf("%d scoped settings, want 14 (adaptive_cc, adaptive_regrow, adaptive_lowat, adaptive_pacing, pacing, notsent_lowat, frame_size, frame_ramp, session_window, adaptive_window, hints, scheduler, sessions, session_policy)", n)
	}
}
