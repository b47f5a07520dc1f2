package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A study file that does not exist (or a name no built-in study has) says
// so and where to look: spdylab studies, spdylab run -h (tune -h).
func TestRunMissingStudyPointsToHelp(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch.toml")
	for _, name := range []string{missing, "nosuch"} {
		var code int
		msg := captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{name}, io.Discard, stderr) })
		for _, want := range []string{name, "'spdylab studies'", "'spdylab run -h'"} {
			if code != 1 || !strings.Contains(msg, want) {
				t.Errorf("run %s: exit %d, stderr %q does not mention %s", name, code, msg, want)
			}
		}
	}
}

func TestTuneMissingStudyPointsToHelp(t *testing.T) {
	var errb strings.Builder
	code := tuneCmd([]string{"nosuch.toml", "--budget", "10"}, io.Discard, &errb)
	if code != 1 || !strings.Contains(errb.String(), "no study file nosuch.toml") || !strings.Contains(errb.String(), "'spdylab tune -h'") {
		t.Errorf("tune nosuch.toml: exit %d, stderr %q", code, errb.String())
	}
}
