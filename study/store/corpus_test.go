package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/studyfile"
)

// TestStoredStudyReadsItsCorpusAgain: a study over a folder of pages,
// given relative to the study file and through --pages, re-reads from the
// store to the same conditions (the store keeps both folders).
func TestStoredStudyReadsItsCorpusAgain(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a", "b"} {
		m, err := page.Generate("pageA", 1, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WriteSite(filepath.Join(root, "corpus", name)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, "s.toml")
	src := "name = \"s\"\nruns = 1\n[factors]\nprotocol = \"https\"\n[[matrix]]\npages = \"dir:corpus\"\n[[matrix]]\npages = \"dir:$PAGES\"\nrtt = \"20ms\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := studyfile.LoadPages(file, filepath.Join(root, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 4 {
		t.Fatalf("%d conditions, want 2 pages x 2 blocks", len(s.Conditions))
	}
	st, err := CreateStore(filepath.Join(root, "out"), s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	back, err := st.Study()
	if err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint() != s.Fingerprint() || back.Pages != s.Pages || back.PagesOmitted != 0 {
		t.Errorf("stored study: fingerprint %s want %s, pages %q want %q", back.Fingerprint(), s.Fingerprint(), back.Pages, s.Pages)
	}
}
