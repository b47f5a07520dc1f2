package studyfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedProfilesParse: every profile in profiles/ parses and
// passes the profile checks, and its header says what it was chosen on
// and how it did on held-out cells.
func TestShippedProfilesParse(t *testing.T) {
	files, err := filepath.Glob("../../profiles/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no profiles in profiles/ (%v)", err)
	}
	protos := map[string]bool{}
	for _, f := range files {
		p, err := ParseProfileFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, proto := range p.Protocols {
			protos[proto] = true
		}
		src, _ := os.ReadFile(f)
		for _, want := range []string{"# Chosen on", "# Held out"} {
			if !strings.Contains(string(src), want) {
				t.Errorf("%s: header lacks %q", f, want)
			}
		}
	}
	for _, want := range []string{"spdy/3.1", "h2"} {
		if !protos[want] {
			t.Errorf("no shipped profile for %s", want)
		}
	}
}
