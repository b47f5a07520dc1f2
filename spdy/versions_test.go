package spdy

import (
	"strings"
	"testing"
)

func TestVersionsAreTheConfigVersions(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range Versions {
		if seen[v.Proto] {
			t.Fatalf("%s listed twice", v.Proto)
		}
		seen[v.Proto] = true
		if got, ok := LookupVersion(v.Proto); !ok || got != v {
			t.Errorf("LookupVersion(%q) = %+v, %v", v.Proto, got, ok)
		}
		c := Config{Version: v.Proto}
		if err := c.validate(); err != nil {
			t.Errorf("%s: %v", v.Proto, err)
		}
		if c.wireVersion() != v.Wire || c.version31() != v.SessionWindow || c.flowControlled() != v.StreamWindows {
			t.Errorf("%s: config facts differ from %+v", v.Proto, v)
		}
		if !strings.HasSuffix(v.Proto, "/"+v.Draft) {
			t.Errorf("%s: draft %q", v.Proto, v.Draft)
		}
	}
	if d := (&Config{}).version(); d.Proto != ProtoSPDY31 {
		t.Errorf("default version %s, want %s", d.Proto, ProtoSPDY31)
	}
	if _, ok := LookupVersion(""); ok {
		t.Error(`LookupVersion("") found a version`)
	}
	err := (&Config{Version: "spdy/1"}).validate()
	if err == nil || !strings.Contains(err.Error(), `must be "spdy/3.1", "spdy/3" or "spdy/2", got "spdy/1"`) {
		t.Errorf("spdy/1: %v", err)
	}
	if c := (Config{Version: ProtoSPDY2, SPDY2StreamWindows: SPDY2WindowsOn}); !c.flowControlled() {
		t.Error("SPDY2StreamWindows does not turn stream windows on")
	}
}
