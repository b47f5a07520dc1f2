package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestWhyNeedsAStudyDirectory(t *testing.T) {
	var out, errb bytes.Buffer
	if code := whyCmd(nil, &out, &errb); code != 2 {
		t.Fatalf("no directory: exit %d, want 2", code)
	}
	errb.Reset()
	if code := whyCmd([]string{filepath.Join(t.TempDir(), "none")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "spdylab why:") {
		t.Fatalf("missing directory: exit %d, stderr %q", code, errb.String())
	}
}
