package studyfile

import (
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// A study varies the stack: its 2012 cells hold the pieces expanded, a
// piece the file names keeps its value, and the modern cells keep the
// hash they had before the factor existed.
func TestStackFactorExpandsWhatTheFileLeavesOut(t *testing.T) {
	src := "name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\nstack = [\"modern\", \"2012\"]\nnagle = false\n"
	s, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 2 {
		t.Fatalf("%d conditions", len(s.Conditions))
	}
	modern, old := s.Conditions[0], s.Conditions[1]
	if modern.Hash != "1a5f1d88e6497aa9" {
		t.Errorf("stack modern moved the condition hash to %s", modern.Hash)
	}
	c := old.Condition
	if c.Stack != probe.Stack2012 || c.TCP.IW != 3 || c.TCP.Recovery != probe.Recovery2012 || !c.TCP.SlowStartAfterIdle ||
		c.TLS != probe.TLS10 || c.TLSKx != probe.KxRSA || !c.TLSResume {
		t.Errorf("stack 2012 condition %+v", c)
	}
	if c.Nagle {
		t.Error("nagle = false in the file was overridden by the stack")
	}
	if old.Values["iw"] != "0" {
		t.Errorf("values %v: they say what the file set, the condition what it runs", old.Values)
	}
}
