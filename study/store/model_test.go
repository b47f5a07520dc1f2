package store

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

// The store keeps the study model: reading it back needs no study file
// parser, and gives the study that was stored.
func TestStoreKeepsTheStudyModel(t *testing.T) {
	st, s := newStudyStore(t, "name = \"m\"\nruns = 2\n[factors]\nprotocol = [\"https\", \"h2\"]\npage = \"pageA\"\nge_down = \"p=1%,r=30%\"\n", 1)
	defer UseStudyParser(studyParser)
	UseStudyParser(nil)
	got, err := st.Study()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("stored study differs:\n got %+v\nwant %+v", got, s)
	}
}

// A store written before the model was stored holds only the study file:
// it reads with the injected parser, and keeps the model from then on.
func TestOldStoreReadsWithTheParser(t *testing.T) {
	st, s := newStudyStore(t, "name = \"old\"\nruns = 1\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\n", 0)
	if _, err := st.db.Exec(`DELETE FROM meta WHERE key = ?`, metaModel); err != nil {
		t.Fatal(err)
	}
	defer UseStudyParser(studyParser)
	UseStudyParser(nil)
	if _, err := st.Study(); err == nil || !strings.Contains(err.Error(), "parser") {
		t.Errorf("old store without a parser: %v", err)
	}
	UseStudyParser(studyfile.ParsePages)
	got, err := st.Study()
	if err != nil || got.Fingerprint() != s.Fingerprint() {
		t.Fatalf("old store with the parser: %v", err)
	}
	UseStudyParser(nil)
	if _, err := st.Study(); err != nil {
		t.Errorf("the model was not kept after the one parse: %v", err)
	}
}

// newStudyStore parses a study file (with runs overridden when > 0) and
// creates its store in a temporary folder, closed when the test ends.
func newStudyStore(t *testing.T, src string, runs int) (*Store, *spec.Study) {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Override(runs, false); err != nil {
		t.Fatal(err)
	}
	st, err := CreateStore(filepath.Join(t.TempDir(), "out"), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, s
}
