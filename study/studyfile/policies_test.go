package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
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

// A study sweeps the priority policy and the SPDY scheduler; a scheduler
// on h2 must be excluded, and the error says why and how.
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
	_, err := Parse([]byte(src), "")
	if err == nil || !strings.Contains(err.Error(), "net/http") || !strings.Contains(err.Error(), "exclude") {
		t.Fatalf("scheduler on h2: %v", err)
	}
	s, err := Parse([]byte(src+"[[exclude]]\nprotocol = \"h2\"\nscheduler = [\"roundrobin\", \"fifo\"]\n"), "")
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
