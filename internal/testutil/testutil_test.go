package testutil

import (
	"os"
	"testing"
)

// TestRequireRoot: as root the test goes on; otherwise it is skipped.
func TestRequireRoot(t *testing.T) {
	ran := false
	t.Run("inner", func(t *testing.T) {
		RequireRoot(t)
		ran = true
	})
	if want := os.Geteuid() == 0; ran != want {
		t.Errorf("ran past RequireRoot = %v, want %v (euid %d)", ran, want, os.Geteuid())
	}
}
