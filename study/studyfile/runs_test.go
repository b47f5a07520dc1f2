package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
)

const runsTestBody = "\n[factors]\npage = \"pageA\"\nprotocol = [\"https\", \"h2\"]\n"

func TestRunsAutoParses(t *testing.T) {
	s, err := Parse([]byte("name = \"x\"\nruns = \"auto\""+runsTestBody), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.RunsAuto == nil || *s.RunsAuto != spec.DefaultAutoRuns() || s.Runs != spec.DefaultAutoMin {
		t.Fatalf("runs auto read as %+v, runs %d", s.RunsAuto, s.Runs)
	}
	fixed, err := Parse([]byte("name = \"x\"\nruns = 5"+runsTestBody), "")
	if err != nil {
		t.Fatal(err)
	}
	if fixed.RunsAuto != nil || fixed.Runs != 5 {
		t.Fatalf("runs = 5 read as %+v, runs %d", fixed.RunsAuto, fixed.Runs)
	}
	// Same conditions, same stored hashes, but never the same store.
	if s.Fingerprint() == fixed.Fingerprint() {
		t.Error("automatic and fixed runs share a fingerprint")
	}
	if s.Conditions[0].Hash != fixed.Conditions[0].Hash {
		t.Error("automatic runs changed a condition's hash")
	}
}

func TestRunsBadValuesNameTheKey(t *testing.T) {
	for _, v := range []string{`"sometimes"`, "0", "1.5", "true"} {
		_, err := Parse([]byte("name = \"x\"\nruns = "+v+runsTestBody), "")
		if err == nil || !strings.Contains(err.Error(), "runs") || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("runs = %s: error %v, want one naming runs on line 2", v, err)
		}
	}
	_, err := Parse([]byte("name = \"x\"\nruns = \"sometimes\""+runsTestBody), "")
	if err == nil || !strings.Contains(err.Error(), `"auto"`) {
		t.Errorf("runs = \"sometimes\": %v, want the choices", err)
	}
}
