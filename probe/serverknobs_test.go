package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every server knob at its default, given or not, stores nothing: the
// condition encodes (and so hashes) as it did before the knobs existed.
func TestServerKnobDefaultsStoreNothing(t *testing.T) {
	v := map[string]string{"page": "pageA", "protocol": ProtoSPDY31}
	plain, err := NewCondition(v)
	if err != nil {
		t.Fatal(err)
	}
	v["pacing"], v["notsent_lowat"], v["frame_size"], v["session_window"], v["hints"] = PacingOff, "0", "0", "0", HintsNone
	spelled, err := NewCondition(v)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(spelled)
	if string(a) != string(b) {
		t.Fatalf("spelled-out defaults change the stored condition:\n%s\n%s", a, b)
	}
	for _, key := range []string{"pacing", "notsent_lowat", "frame_size", "session_window", "hints"} {
		if strings.Contains(string(a), `"`+key+`"`) {
			t.Errorf("default condition stores %q: %s", key, a)
		}
	}
}

func TestServerKnobValues(t *testing.T) {
	f, _ := LookupField("pacing")
	for in, want := range map[string]string{"off": "off", "on": "on", "link": "link", "8Mbit": "8mbit", "1500kbit": "1.5mbit"} {
		if got, err := f.Canon(in); err != nil || got != want {
			t.Errorf("pacing %q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"fast", "unlimited", "", "-3mbit"} {
		if _, err := f.Canon(bad); err == nil {
			t.Errorf("pacing %q accepted", bad)
		}
	}
	fs, _ := LookupField("frame_size")
	for _, in := range []string{"0", "512", "16777215"} {
		if _, err := fs.Canon(in); err != nil {
			t.Errorf("frame_size %s: %v", in, err)
		}
	}
	for _, bad := range []string{"1", "511", "16777216", "-1"} {
		if _, err := fs.Canon(bad); err == nil || !strings.Contains(err.Error(), "512") {
			t.Errorf("frame_size %s: %v, want a range error naming 512", bad, err)
		}
	}
	sw, _ := LookupField("session_window")
	if _, err := sw.Canon("1000"); err == nil || !strings.Contains(err.Error(), "65536") {
		t.Errorf("session_window 1000: %v, want the 64 KiB minimum named", err)
	}
}

func TestServerKnobsSummary(t *testing.T) {
	if got := (Condition{}).ServerKnobs(); got != "" {
		t.Errorf("defaults: %q", got)
	}
	c := Condition{TCP: TCP{Pacing: PacingLink, NotSentLowat: 16384}, FrameSize: 4096, Hints: HintsDeps}
	if got, want := c.ServerKnobs(), "pacing link, notsent_lowat 16384, frame_size 4096, hints deps"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestPacingRates(t *testing.T) {
	link := Link{DownBps: 10e6}
	for pacing, want := range map[string]int64{"": 0, PacingOn: 1 << 50, PacingLink: 10e6, "2mbit": 2e6} {
		c := Condition{Link: link, TCP: TCP{Pacing: pacing}}
		if got := c.PacingBitsPerSecond(1 << 50); got != want {
			t.Errorf("pacing %q: %d bit/s, want %d", pacing, got, want)
		}
	}
}

// Each knob's values are checked with the reason and what to change;
// which protocols take it is its Scope's (TestScopedSettings).
func TestServerKnobRules(t *testing.T) {
	rate := Link{DownBps: 10e6}
	ok := []Condition{
		{Proto: ProtoHTTPS, TCP: TCP{Pacing: PacingOn, NotSentLowat: 16384}},
		{Proto: ProtoSPDY2, TCP: TCP{Pacing: PacingLink}, Link: rate},
		{Proto: ProtoH2, TCP: TCP{Pacing: "8mbit"}, SessionWindow: 1 << 20},
		{Proto: ProtoSPDY3, FrameSize: 4096, Hints: HintsDeps},
		{Proto: ProtoSPDY31, SessionWindow: 65536, Push: PushDeps},
		{Proto: ProtoSPDY31SCTP, TLS: TLSNone, SessionWindow: 1 << 24, FrameSize: 1024},
		{Proto: "", TCP: TCP{Pacing: PacingOn}, FrameSize: 2048, Hints: HintsDeps, SessionWindow: 1 << 20}, // a bench: checked per load
	}
	for _, c := range ok {
		c.Page = "pageA"
		if _, err := Normalize(c); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := []struct {
		c    Condition
		want string
	}{
		{Condition{Proto: ProtoSPDY31, TCP: TCP{Pacing: PacingLink}}, "downlink rate"},
		{Condition{Proto: ProtoSPDY31, TCP: TCP{Pacing: PacingLink}, Link: rate, NoLink: true}, "downlink rate"},
		{Condition{Proto: ProtoSPDY31, SessionWindow: 1000}, "64 KiB"},
		{Condition{Proto: ProtoSPDY31, FrameSize: 100}, "512"},
		{Condition{Proto: ProtoSPDY31, Hints: "all"}, "unknown hints"},
		{Condition{Proto: ProtoSPDY31, TCP: TCP{Pacing: "fast"}}, "pacing"},
		{Condition{Client: ClientChromium, SessionWindow: 1 << 20}, "session_window"},
	}
	for _, b := range bad {
		b.c.Page = "pageA"
		if _, err := Normalize(b.c); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: %v, want an error saying %q", b.c, err, b.want)
		}
	}
}
