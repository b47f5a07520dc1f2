package spec

import (
	"strings"
	"testing"
)

// A study cell that asks a study page for first parties, or for recorded
// host round trips, is refused with the reason and how to leave it out.
func TestBuildConditionRefusesHostMethodsOnStudyPages(t *testing.T) {
	for _, v := range []map[string]string{
		{"page": "pageA", "protocol": "https", "hosts": "first-party"},
		{"page": "pageC", "protocol": "https", "host_rtt": "recorded"},
	} {
		_, err := BuildCondition(v, 0)
		if err == nil || !strings.Contains(err.Error(), "cannot apply to page") || !strings.Contains(err.Error(), "[[exclude]]") {
			t.Errorf("%v: %v, want a refusal naming the page and [[exclude]]", v, err)
		}
	}
	if _, err := BuildCondition(map[string]string{"page": "pageA", "protocol": "https", "hosts": "one"}, 0); err != nil {
		t.Errorf("hosts one on a one-shard study page: %v", err)
	}
	// deploy first-party on a study page: every shard is the site's own,
	// and the stored condition says so.
	c, err := BuildCondition(map[string]string{"page": "pageB", "protocol": "https", "deploy": "first-party"}, 0)
	if err != nil || c.FirstParty != "spdylab.test" {
		t.Errorf("deploy first-party on pageB: first_party %q, %v; want the lab's domain written in", c.FirstParty, err)
	}
}
