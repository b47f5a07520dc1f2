package studyfile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// The TLS and priority factors at their defaults leave a condition's hash
// as it was before they existed (pinned: an https/1.2 condition of pageA),
// spelled out or not.
func TestPolicyFactorDefaultsKeepConditionHashes(t *testing.T) {
	base := "name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\n"
	spelled := base + "tls_resume = false\nearly_data = false\npriority = \"chrome\"\nscheduler = \"priority\"\n"
	for _, src := range []string{base, spelled} {
		s, err := Parse([]byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		c := s.Conditions[0]
		if c.Hash != "1a5f1d88e6497aa9" {
			t.Errorf("condition hash %s, want 1a5f1d88e6497aa9 (stored studies would lose their results)\n%s", c.Hash, src)
		}
		if c.Priority != "" || c.Scheduler != "" || c.Values["priority"] != probe.PriorityChrome || c.Values["scheduler"] != probe.SchedulerPriority {
			t.Errorf("defaults stored as %q/%q, values %v", c.Priority, c.Scheduler, c.Values)
		}
	}
}

// A study sweeps the priority policy and the SPDY scheduler: h2 beside
// spdy/3.1 ignores the scheduler (each of its conditions keeps the value,
// in the same bench as spdy/3.1's); an h2 alone with a scheduler is
// refused, saying why and how; an [[exclude]] table still leaves the h2
// duplicates out.
func TestPolicyFactorsSweep(t *testing.T) {
	src := `name = "prio"
runs = 1
[baseline]
priority = "chrome"
[factors]
page = "pageA"
protocol = ["spdy/3.1", "h2"]
priority = ["chrome", "none", "depth"]
scheduler = ["priority", "roundrobin", "fifo"]
`
	s, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatalf("h2 beside spdy/3.1: %v", err)
	}
	ignored := 0
	for _, c := range s.Conditions {
		if strings.Join(probe.IgnoredBy(c.Condition, c.Proto), " ") == "scheduler" {
			ignored++
		}
	}
	if len(s.Conditions) != 18 || ignored != 6 {
		t.Errorf("%d conditions, %d ignoring the scheduler; want 18 and h2's 6", len(s.Conditions), ignored)
	}
	alone := strings.Replace(src, `protocol = ["spdy/3.1", "h2"]`, `protocol = "h2"`, 1)
	_, err = Parse([]byte(alone), "")
	if err == nil || !strings.Contains(err.Error(), "net/http") || !strings.Contains(err.Error(), "spdy/3.1") || !strings.Contains(err.Error(), "exclude") {
		t.Fatalf("scheduler on h2 alone: %v", err)
	}
	s, err = Parse([]byte(src+"[[exclude]]\nprotocol = \"h2\"\nscheduler = [\"roundrobin\", \"fifo\"]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range s.Conditions {
		count[c.Proto+" "+c.PriorityPolicy()+" "+c.SchedulerName()]++
	}
	if len(s.Conditions) != 12 || count["spdy/3.1 depth fifo"] != 1 || count["h2 none priority"] != 1 || count["h2 none fifo"] != 0 {
		t.Errorf("%d conditions: %v", len(s.Conditions), count)
	}
	if strings.Join(s.Varied, " ") != "protocol priority scheduler" {
		t.Errorf("varied %v", s.Varied)
	}
}

// A study varying a SPDY-only knob with an https baseline runs: https
// keeps each value beside spdy/3.1 in its bench (the knob ignored, which
// its stored condition and IgnoredBy say), for every scoped knob alike.
func TestScopedFactorsBesideTheBaseline(t *testing.T) {
	for _, k := range []struct{ factor, values, takes, ignores string }{
		{"frame_size", "[4096, 65536]", "spdy/3.1", "https"},
		{"hints", `["none", "deps"]`, "spdy/3", "https"},
		{"session_window", "[1048576, 16777216]", "h2", "https"},
		{"scheduler", `["priority", "fifo"]`, "spdy/3.1", "https"},
		{"sessions", "[1, 3]", "spdy/3.1", "https"},
		{"pacing", `["off", "on"]`, "https", "h3"},
		{"notsent_lowat", "[0, 16384]", "spdy/3.1", "h3"},
	} {
		src := fmt.Sprintf("name = \"x\"\nruns = 1\n[baseline]\nprotocol = %q\n[factors]\npage = \"pageA\"\ntls = \"1.3\"\nprotocol = [%q, %q]\n%s = %s\n",
			k.ignores, k.ignores, k.takes, k.factor, k.values)
		s, err := Parse([]byte(src), "")
		if err != nil {
			t.Errorf("%s: %v", k.factor, err)
			continue
		}
		groups := spec.Groups(s)
		if len(s.Conditions) != 4 || len(groups) != 2 {
			t.Errorf("%s: %d conditions in %d benches, want 4 in 2 (the baseline beside each value)", k.factor, len(s.Conditions), len(groups))
			continue
		}
		for _, g := range groups {
			for _, c := range g.Conds {
				ig := probe.IgnoredBy(c.Condition, c.Proto)
				set := probe.IgnoredBy(c.Condition, k.ignores) != nil // the bench holds the knob away from its default
				if want := c.Proto == k.ignores && set; (len(ig) == 1 && ig[0] == k.factor) != want {
					t.Errorf("%s: %s %s ignores %v", k.factor, c.Proto, c.Values[k.factor], ig)
				}
			}
		}
		alone := strings.Replace(src, fmt.Sprintf("protocol = [%q, %q]", k.ignores, k.takes), fmt.Sprintf("protocol = %q", k.ignores), 1)
		if _, err := Parse([]byte(alone), ""); err == nil || !strings.Contains(err.Error(), k.factor+" has no effect on "+k.ignores) || !strings.Contains(err.Error(), k.takes) {
			t.Errorf("%s on %s alone: %v, want a refusal naming %s", k.factor, k.ignores, err, k.takes)
		}
	}
}

// tls_resume and early_data: 0-RTT needs TLS 1.3, resumption and h3, and
// the study says so naming the fix.
func TestTLSFactors(t *testing.T) {
	head := "name = \"tls\"\nruns = 1\n[factors]\npage = \"pageA\"\n"
	for src, want := range map[string]string{
		"protocol = \"h3\"\ntls = \"1.2\"\ntls_resume = true\nearly_data = true\n":    "needs tls 1.3",
		"protocol = \"h3\"\ntls = \"1.3\"\nearly_data = true\n":                       "needs tls_resume",
		"protocol = \"h2\"\ntls = \"1.3\"\ntls_resume = true\nearly_data = true\n":    "today h3",
		"protocol = \"https\"\ntls = \"none\"\ntls_resume = true\n":                   "no handshake to resume",
		"protocol = \"h3\"\ntls = \"1.3\"\ntls_resume = true\nearly_data = \"yes\"\n": "true or false",
	} {
		if _, err := Parse([]byte(head+src), ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", src, err, want)
		}
	}
	s, err := Parse([]byte(head+"protocol = [\"https\", \"h3\"]\ntls = \"1.3\"\ntls_resume = [false, true]\nearly_data = [false, true]\n[[exclude]]\nprotocol = \"https\"\nearly_data = true\n[[exclude]]\ntls_resume = false\nearly_data = true\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	var early int
	for _, c := range s.Conditions {
		if c.EarlyData {
			early++
			if c.Proto != probe.ProtoH3 || !c.TLSResume || c.Values["early_data"] != "true" {
				t.Errorf("early-data condition %+v", c.Condition)
			}
		}
	}
	if len(s.Conditions) != 5 || early != 1 {
		t.Errorf("%d conditions, %d with early data; want 5 and 1", len(s.Conditions), early)
	}
}
