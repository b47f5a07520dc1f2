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
		count[c.Role+" "+c.ClientName()+"/"+c.BrowserProfileName()]++
		// The validation cells are off the calibration grid: another
		// RTT, and another rate, loss rate or page.
		if onGrid := c.Values["rtt"] != "60ms"; onGrid != (c.Role == spec.RoleCalibration) {
			t.Errorf("%s: role %q at RTT %s", c.Describe(), c.Role, c.Values["rtt"])
		}
	}
	// Calibration: 4 pages x 2 shard counts x 2 RTTs x 2 losses x 3
	// protocols = 96 cells. Validation: 2 pages x 2 losses x 3 protocols
	// at 5/1 Mbit/s, and 2 pages x 3 protocols at 10/1, both at 60 ms = 18.
	for _, k := range []string{"chromium/chrome16", "loader/chrome16", "loader/chromium-modern"} {
		if count[spec.RoleCalibration+" "+k] != 96 || count[spec.RoleValidation+" "+k] != 18 {
			t.Errorf("%s: %d calibration and %d validation conditions, want 96 and 18 (%v)", k, count[spec.RoleCalibration+" "+k], count[spec.RoleValidation+" "+k], count)
		}
	}
	// The calibration grid is the study as it was before the validation
	// cells came: its conditions keep their hashes, so the study they
	// make has the grid's old fingerprint.
	grid := *s
	grid.Conditions = nil
	for _, c := range s.Conditions {
		if c.Role == spec.RoleCalibration {
			grid.Conditions = append(grid.Conditions, c)
		}
	}
	if got := grid.Fingerprint(); got != "54693f25356d85f8389e9fd3" {
		t.Errorf("the calibration grid's fingerprint is %s, want the 288-cell study's 54693f25356d85f8389e9fd3: a hash moved", got)
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
