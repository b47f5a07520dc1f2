package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalizeSessions(t *testing.T) {
	base := Condition{Page: "pageA", Proto: ProtoSPDY31}
	for _, c := range []struct {
		name  string
		set   func(*Condition)
		error string // "" = accepted
	}{
		{"three by priority", func(c *Condition) { c.Sessions, c.SessionPolicy = 3, SessionPriority }, ""},
		{"h2 six large-apart", func(c *Condition) { c.Proto, c.Sessions, c.SessionPolicy = ProtoH2, 6, SessionLargeApart }, ""},
		{"https keeps its pool", func(c *Condition) { c.Proto, c.Sessions = ProtoHTTPS, 3 }, ""},
		{"no protocol yet (a bench)", func(c *Condition) { c.Proto, c.Sessions = "", 4 }, ""},
		{"seven", func(c *Condition) { c.Sessions = 7 }, "sessions 7 out of range 1..6"},
		{"negative", func(c *Condition) { c.Sessions = -1 }, "out of range"},
		{"unknown policy", func(c *Condition) { c.Sessions, c.SessionPolicy = 2, "random" }, `unknown session policy "random" (want roundrobin, priority, large-apart or demand)`},
		{"policy without sessions", func(c *Condition) { c.SessionPolicy = SessionPriority }, "session_policy priority needs sessions > 1"},
		{"chromium", func(c *Condition) { c.Proto, c.Client, c.Sessions, c.TLS = ProtoH2, ClientChromium, 2, TLS13 },
			"client chromium pools one SPDY/h2 session per host"},
		// A bench's h3 or SCTP load ignores sessions (the Scope's rule: applies_test.go).
		{"h3", func(c *Condition) { c.Proto, c.TLS, c.Sessions = ProtoH3, TLS13, 2 }, ""},
		{"sctp", func(c *Condition) { c.Proto, c.TLS, c.Sessions = ProtoSPDY31SCTP, TLSNone, 2 }, ""},
	} {
		cond := base
		c.set(&cond)
		_, err := Normalize(cond)
		switch {
		case c.error == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.error != "" && (err == nil || !strings.Contains(err.Error(), c.error)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.error)
		}
	}
}

// The defaults are stored empty, so conditions hashed before the fields
// existed keep their JSON, and spelled out by the accessors.
func TestSessionDefaultsStoredEmpty(t *testing.T) {
	c, err := Normalize(Condition{Page: "pageA", Proto: ProtoSPDY3, Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	if strings.Contains(string(b), "session") {
		t.Errorf("default sessions stored: %s", b)
	}
	if c.SessionCount() != 1 || c.SessionPolicyName() != SessionRoundRobin {
		t.Errorf("defaults read as %d, %s", c.SessionCount(), c.SessionPolicyName())
	}
	c, _ = Normalize(Condition{Page: "pageA", Proto: ProtoSPDY3, Sessions: 3, SessionPolicy: SessionRoundRobin})
	if c.Sessions != 3 || c.SessionPolicy != "" {
		t.Errorf("sessions 3 roundrobin stored as %d %q", c.Sessions, c.SessionPolicy)
	}
}

// sessions and session_policy are factors and load flags like every field.
func TestSessionFields(t *testing.T) {
	c, err := BuildCondition(map[string]string{"page": "pageB", "protocol": ProtoH2, "sessions": "4", "session_policy": "large-apart"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Sessions != 4 || c.SessionPolicy != SessionLargeApart {
		t.Errorf("built %d %q", c.Sessions, c.SessionPolicy)
	}
	f, _ := LookupField("sessions")
	if _, err := f.Canon("0"); err == nil {
		t.Error("sessions 0 accepted as a value")
	}
}
