package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
)

// clean without root says why and what to run instead: the same command
// line under sudo.
func TestCleanAsUserPointsToSudo(t *testing.T) {
	if got, want := cleanNeedsRoot([]string{"-n"}), "run sudo spdylab clean -n"; !strings.HasSuffix(got, want) || !strings.Contains(got, "needs root") {
		t.Errorf("message %q, want it to say needs root and end %q", got, want)
	}
	testutil.RequireRootTo(t, "switch to an unprivileged user for the test")
	src := spdylabBinary(t)
	dir, err := os.MkdirTemp("", "spdylab-clean")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "spdylab")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "clean", "-n")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stderr.String() != cleanNeedsRoot([]string{"-n"})+"\n" {
		t.Errorf("clean -n as nobody: %v, stderr %q", err, stderr.String())
	}
}
