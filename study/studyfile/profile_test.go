package studyfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tunedProfile = `name = "tuned"
description = "a test profile"
protocols = ["spdy/3.1"]
[settings]
cc = "reno"
iw = 16
initial_window = 1048576
`

func TestProfileParsesAndRoundTrips(t *testing.T) {
	p, err := ParseProfile([]byte(tunedProfile))
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings["cc"] != "reno" || p.Settings["iw"] != "16" || p.Settings["initial_window"] != "1048576" {
		t.Fatalf("settings %v", p.Settings)
	}
	again, err := ParseProfile(FormatProfile(p))
	if err != nil {
		t.Fatalf("a written profile does not read back: %v\n%s", err, FormatProfile(p))
	}
	if again.Label() != p.Label() {
		t.Errorf("label %s after a round trip, want %s", again.Label(), p.Label())
	}
}

// A profile tune writes may pace at the link's rate: the profile itself
// has no link, and it is accepted (each condition it joins has one).
func TestProfileAcceptsPacingAtTheLinksRate(t *testing.T) {
	p, err := ParseProfile([]byte("name = \"paced\"\nprotocols = [\"spdy/3.1\"]\n[settings]\npacing = \"link\"\nsessions = 2\n"))
	if err != nil {
		t.Fatalf("pacing = link refused: %v", err)
	}
	if p.Settings["pacing"] != "link" {
		t.Errorf("settings %v", p.Settings)
	}
}

func TestProfileRefusesBadSettings(t *testing.T) {
	for _, c := range []struct{ settings, want string }{
		{`bogus = 1`, `unknown setting "bogus"`},
		{`rtt = "100ms"`, "describes the emulated link"},
		{`page = "pageB"`, "describes the experiment"},
		{`cc = "vegas2"`, "cc"}, // not an algorithm spdylab knows; whether the kernel offers a known one is asked at run time
		{`iw = "ten"`, "must be an integer"},
		{`scheduler = "fifo"` + "\n", ""}, // fine for spdy/3.1
	} {
		src := "name = \"x\"\nprotocols = [\"spdy/3.1\"]\n[settings]\n" + c.settings + "\n"
		_, err := ParseProfile([]byte(src))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.settings, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.settings, err, c.want)
		}
	}
	// A setting Normalize refuses for a protocol the profile names.
	_, err := ParseProfile([]byte("name = \"x\"\nprotocols = [\"https\"]\n[settings]\nscheduler = \"fifo\"\n"))
	if err == nil || !strings.Contains(err.Error(), "cannot configure https") {
		t.Errorf("scheduler for https: %v", err)
	}
	if _, err := ParseProfile([]byte("name = \"x\"\nprotocols = []\n")); err == nil {
		t.Error("a profile with no protocols was accepted")
	}
}

// TestProfileFactorAppliesToItsProtocolsOnly: a study's profile factor
// configures the conditions of the protocols the profile names; the
// others stay as they were (and are not duplicated).
func TestProfileFactorAppliesToItsProtocolsOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tuned.toml"), []byte(tunedProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "name = \"p\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = [\"https\", \"spdy/3.1\"]\nprofile = [\"\", \"tuned.toml\"]\n"
	s, err := Parse([]byte(src), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 3 {
		t.Fatalf("%d conditions, want 3 (https once, spdy/3.1 plain and tuned)", len(s.Conditions))
	}
	tuned := 0
	for _, c := range s.Conditions {
		if c.Profile != "" {
			tuned++
			if c.Proto != "spdy/3.1" || c.TCP.CC != "reno" || c.TCP.IW != 16 || c.InitialWindow != 1048576 || c.Values["profile"] != c.Profile {
				t.Errorf("tuned condition %+v values %v", c.Condition, c.Values)
			}
		} else if c.TCP.CC != "" || c.Values["profile"] != "" {
			t.Errorf("untuned condition %s got %q / %v", c.Proto, c.TCP.CC, c.Values["profile"])
		}
	}
	if tuned != 1 {
		t.Errorf("%d tuned conditions, want 1", tuned)
	}
	// The profile wins for its keys over the study's own values.
	s, err = Parse([]byte(src+"iw = 10\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Conditions {
		if want := map[bool]int{true: 16, false: 10}[c.Profile != ""]; c.TCP.IW != want {
			t.Errorf("%s profile %q: iw %d, want %d", c.Proto, c.Profile, c.TCP.IW, want)
		}
	}
}

func FuzzProfile(f *testing.F) {
	f.Add([]byte(tunedProfile))
	f.Add([]byte("name = \"x\"\nprotocols = [\"h2\"]\n[settings]\npush = \"manifest\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := ParseProfile(src)
		if err != nil {
			return
		}
		again, err := ParseProfile(FormatProfile(p))
		if err != nil || again.Label() != p.Label() {
			t.Fatalf("round trip: %v (%s)", err, FormatProfile(p))
		}
	})
}
