package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
)

func TestStudyRejectsChromiumSPDYNamingTheReason(t *testing.T) {
	src := `name = "x"
runs = 1
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
client = ["loader", "chromium"]
`
	_, err := Parse([]byte(src), "")
	if err == nil || !strings.Contains(err.Error(), "removed SPDY") || !strings.Contains(err.Error(), "exclude") {
		t.Fatalf("chromium x spdy/3.1: %v", err)
	}
	s, err := Parse([]byte(src+"[[exclude]]\nclient = \"chromium\"\nprotocol = \"spdy/3.1\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 3 {
		t.Fatalf("%d conditions, want 3 (loader https, loader spdy, chromium https)", len(s.Conditions))
	}
}

func TestDefaultClientKeepsConditionHashes(t *testing.T) {
	base := "name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\n"
	a, err := Parse([]byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(base+"client = \"loader\"\nbrowser_profile = \"chrome16\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Conditions[0].Hash != b.Conditions[0].Hash {
		t.Fatal("spelling out the default client changed the condition's hash")
	}
	if a.Conditions[0].Client != "" {
		t.Fatalf("default client stored as %q", a.Conditions[0].Client)
	}
}

func TestFidelityStudy(t *testing.T) {
	s, err := Builtin("fidelity")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range s.Conditions {
		count[c.ClientName()+"/"+c.BrowserProfileName()]++
	}
	// 4 pages x 2 shard counts x 2 RTTs x 2 losses x 3 protocols = 96 cells.
	for _, k := range []string{"chromium/chrome16", "loader/chrome16", "loader/chromium-modern"} {
		if count[k] != 96 {
			t.Errorf("%s: %d conditions, want 96 (%v)", k, count[k], count)
		}
	}
	if s.Runs != 20 {
		t.Errorf("runs %d, want 20", s.Runs)
	}
	for _, g := range spec.Groups(s) {
		for _, c := range g.Conds {
			if c.Client != g.Conds[0].Client {
				t.Fatal("a bench group mixes clients")
			}
		}
	}
}
