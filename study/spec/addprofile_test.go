package spec

import (
	"slices"
	"strings"
	"testing"
)

// twoProtocolStudy is a 2-cell study of https and spdy/3.1, built as a
// study file's matrix would build it.
func twoProtocolStudy(t *testing.T) *Study {
	t.Helper()
	s := &Study{Name: "two", Runs: 1, Varied: []string{"loss", "protocol"}}
	for _, loss := range []string{"0%", "1%"} {
		for _, proto := range []string{"https", "spdy/3.1"} {
			v := map[string]string{"page": "pageA", "protocol": proto, "loss": loss, "rtt": "20ms"}
			c, err := BuildCondition(v, 0)
			if err != nil {
				t.Fatal(err)
			}
			cond := Cond{Condition: c, Values: v}
			cond.Hash = HashCondition(c)
			s.Conditions = append(s.Conditions, cond)
		}
	}
	return s
}

// `spdylab run --profile`: the profile's protocol gets a twin of each of
// its conditions with the settings applied and the label stored; the
// baseline's conditions and the original ones stay as they were.
func TestAddProfilePutsTheProfileBesideTheDefaults(t *testing.T) {
	s := twoProtocolStudy(t)
	before := make([]string, len(s.Conditions))
	for i, c := range s.Conditions {
		before[i] = c.Hash
	}
	p := &Profile{Name: "tuned", Protocols: []string{"spdy/3.1"}, Settings: map[string]string{"sessions": "3", "cc": "bbr"}}
	p.SetHash()
	if err := s.AddProfile(p); err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 6 {
		t.Fatalf("%d conditions, want the 4 of the study and 2 tuned twins", len(s.Conditions))
	}
	for i, h := range before {
		if s.Conditions[i].Hash != h {
			t.Errorf("condition %d changed its hash", i)
		}
	}
	for _, c := range s.Conditions[4:] {
		if c.Proto != "spdy/3.1" || c.Sessions != 3 || c.TCP.CC != "bbr" || c.Profile != p.Label() || c.Values["profile"] != p.Label() {
			t.Errorf("twin %s: proto %s sessions %d cc %q profile %q, want spdy/3.1 with the profile", c.Describe(), c.Proto, c.Sessions, c.TCP.CC, c.Profile)
		}
	}
	for _, want := range []string{"profile", "sessions", "cc"} {
		if !slices.Contains(s.Varied, want) {
			t.Errorf("varied factors %v lack %s", s.Varied, want)
		}
	}
}

// A profile of a protocol the study does not load is refused, naming both.
func TestAddProfileRefusesAProtocolTheStudyLacks(t *testing.T) {
	s := twoProtocolStudy(t)
	p := &Profile{Name: "h2tuned", Protocols: []string{"h2"}, Settings: map[string]string{"sessions": "2"}}
	p.SetHash()
	err := s.AddProfile(p)
	if err == nil || !strings.Contains(err.Error(), "h2") || !strings.Contains(err.Error(), "two") {
		t.Fatalf("AddProfile: %v, want a refusal naming h2 and the study", err)
	}
}
