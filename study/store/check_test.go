package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file cut short is refused, unless a write-ahead log beside it may
// hold the pages it lacks (a run writing it, or killed while it did).
func TestCheckFileTruncatedUnlessAWALHoldsTheRest(t *testing.T) {
	st, _ := newStudyStore(t, "name = \"c\"\nruns = 1\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\n", 0)
	st.Close()
	path := st.Path
	good, _ := os.ReadFile(path)
	if err := checkFile(path); err != nil {
		t.Fatalf("a good store: %v", err)
	}
	os.WriteFile(path, good[:len(good)-4096], 0o644)
	if err := checkFile(path); err == nil || !strings.Contains(err.Error(), "is truncated") {
		t.Errorf("a store cut by a page: %v", err)
	}
	os.WriteFile(path+"-wal", []byte("frames"), 0o644)
	if err := checkFile(path); err != nil {
		t.Errorf("a short store beside a write-ahead log: %v", err)
	}
}

// checkFile reads the header of whatever file it is given: it never
// panics, and what it accepts is at least SQLite's magic.
func FuzzCheckFile(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(sqliteMagic + "\x10\x00\x01\x01"))
	f.Add(make([]byte, 100))
	path := filepath.Join(f.TempDir(), DBName)
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if checkFile(path) == nil && !strings.HasPrefix(string(b), sqliteMagic) {
			t.Errorf("accepted %q", b)
		}
	})
}
