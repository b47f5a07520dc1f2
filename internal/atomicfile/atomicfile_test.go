package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte("old contents"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("got %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteIntoMissingDirectoryFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "no-such-dir", "x"), []byte("x")); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestCreateAppearsOnlyOnCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pcap")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("part 1 "))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file is visible before Commit: %v", err)
	}
	f.Write([]byte("part 2"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "part 1 part 2" {
		t.Errorf("got %q", got)
	}
	g, err := Create(filepath.Join(dir, "y.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("half"))
	g.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("want only x.pcap, found %v", entries)
	}
}
