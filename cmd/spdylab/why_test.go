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

func TestWhyReportAndTuneRefuseAnUnknownMetric(t *testing.T) {
	dir := t.TempDir()
	for name, run := range map[string]func(args []string, stdout, stderr *bytes.Buffer) int{
		"why":    func(a []string, o, e *bytes.Buffer) int { return whyCmd(a, o, e) },
		"report": func(a []string, o, e *bytes.Buffer) int { return reportCmd(a, o, e) },
		"tune": func(a []string, o, e *bytes.Buffer) int {
			return tuneCmd(append([]string{"--budget", "100"}, a...), o, e)
		},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"--metric", "ttfb", dir}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), `--metric: metric "ttfb": want one of plt, tow, fcp, lcp, si`) {
			t.Errorf("%s --metric ttfb: exit %d, stderr %q", name, code, errb.String())
		}
	}
}
