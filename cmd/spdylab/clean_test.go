package main

import (
	"bytes"
	"strings"
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
	cmd := asNobody(t, spdylabBinary(t), "clean", "-n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if !exitedWith(err, 1) || stderr.String() != cleanNeedsRoot([]string{"-n"})+"\n" {
		t.Errorf("clean -n as nobody: %v, stderr %q", err, stderr.String())
	}
}
