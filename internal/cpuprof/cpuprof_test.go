package cpuprof

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestFromEnvWritesAProfileOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cpu.prof")

	t.Setenv(EnvVar, "")
	FromEnv("")()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("without %s a file was written: %v", EnvVar, entries)
	}

	t.Setenv(EnvVar, file)
	FromEnv("emu")()
	child := fmt.Sprintf("%s.emu.%d", file, os.Getpid())
	if st, err := os.Stat(child); err != nil || st.Size() == 0 {
		t.Errorf("profile with a suffix: %v (size %v), want a non-empty %s", err, st, child)
	}
	FromEnv("")()
	if st, err := os.Stat(file); err != nil || st.Size() == 0 {
		t.Errorf("profile: %v, want a non-empty %s", err, file)
	}
}
