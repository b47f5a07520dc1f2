package main

import (
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/studyfile"
)

// A study file can say "no Gilbert-Elliott loss" and "no trace": "none"
// (or "") is a value of ge_down, ge_up, trace_down and trace_up, and the
// condition it gives is, hash and all, the one that leaves them out.
func TestStudyFileNoneForGEAndTraces(t *testing.T) {
	const head = "name = \"none\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\nrtt = \"40ms\"\n"
	s, err := studyfile.Parse([]byte(head+"ge_down = [\"none\", \"p=1%,r=30%\"]\nge_up = \"\"\ntrace_down = \"none\"\ntrace_up = \"\"\n"), t.TempDir())
	if err != nil {
		t.Fatalf("study with none: %v", err)
	}
	plain, err := studyfile.Parse([]byte(head), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 2 || len(plain.Conditions) != 1 {
		t.Fatalf("%d and %d conditions, want 2 and 1", len(s.Conditions), len(plain.Conditions))
	}
	none, ge := s.Conditions[0], s.Conditions[1]
	if none.Link.GEDown != (probe.GilbertElliott{}) || none.Link.TraceDown != "" || none.Link.TraceUp != "" {
		t.Errorf("none gave a model or a trace: %+v", none.Link)
	}
	if none.Hash != plain.Conditions[0].Hash {
		t.Errorf("none's condition hash %s differs from the study without the factors' %s", none.Hash, plain.Conditions[0].Hash)
	}
	if ge.Link.GEDown.P != 0.01 {
		t.Errorf("ge_down p=1%%: %+v", ge.Link.GEDown)
	}
}
