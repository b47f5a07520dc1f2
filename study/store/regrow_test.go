package store

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/studyfile"
)

// TestRegrowTakesAGrownStudyAndKeepsItsLoads: a store grown to a study
// with more conditions and runs (spdylab tune's next round) keeps the
// stored loads under their keys and takes the new study; a store of
// another study is refused.
func TestRegrowTakesAGrownStudyAndKeepsItsLoads(t *testing.T) {
	st, s := newStudyStore(t, "name = \"g\"\nruns = 1\nseed = 2\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\n", 0)
	dir := filepath.Dir(st.Path)
	if _, err := st.Put(Probe{CondHash: s.Conditions[0].Hash, Run: 0, Attempt: 1, Result: probe.Result{Condition: s.Conditions[0].Condition, PLTms: 10}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	grown, err := studyfile.Parse([]byte("name = \"g\"\nruns = 3\nseed = 2\n[factors]\nprotocol = [\"https\", \"h2\"]\npage = \"pageA\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckOut(dir, grown); !errors.Is(err, ErrOtherStudy) {
		t.Fatalf("before Regrow the grown study must be refused, got %v", err)
	}
	if err := Regrow(dir, grown); err != nil {
		t.Fatal(err)
	}
	st2, err := CreateStore(dir, grown)
	if err != nil {
		t.Fatalf("after Regrow: %v", err)
	}
	defer st2.Close()
	states, err := st2.States()
	if err != nil || !states[ProbeKey{CondHash: s.Conditions[0].Hash, Run: 0}].OK {
		t.Errorf("the stored load is gone after Regrow: %v %v", states, err)
	}
	other, _ := studyfile.Parse([]byte("name = \"h\"\nruns = 1\nseed = 2\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\n"), "")
	if err := Regrow(dir, other); !errors.Is(err, ErrOtherStudy) {
		t.Errorf("Regrow to another study: %v", err)
	}
}
