package spec

import (
	"path/filepath"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// A stored condition says which page rule applied: explicit for a
// recording (the fallback all where it has no onload), empty for a
// generated page.
func TestBuildConditionStoresThePagesMethodRules(t *testing.T) {
	rec, _ := filepath.Abs("../../page/testdata/onload.har")
	none, _ := filepath.Abs("../../page/testdata/no-onload.har")
	for _, tc := range []struct{ page, until, redirects string }{
		{"pageC", "", ""},
		{"har:" + rec, probe.UntilOnload, probe.RedirectsReplay},
		{"har:" + none, probe.UntilAll, probe.RedirectsReplay},
	} {
		c, err := BuildCondition(map[string]string{"page": tc.page, "protocol": probe.ProtoHTTPS}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Until != tc.until || c.Redirects != tc.redirects {
			t.Errorf("%s: until %q redirects %q, want %q and %q", tc.page, c.Until, c.Redirects, tc.until, tc.redirects)
		}
	}
	if _, err := BuildCondition(map[string]string{"page": "har:" + none, "protocol": probe.ProtoHTTPS, "until": probe.UntilOnload}, 0); err == nil {
		t.Error("until onload on a recording without one was accepted")
	}
}
