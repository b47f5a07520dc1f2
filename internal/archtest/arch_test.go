// Package archtest checks the import rules DEVELOPERS.md states: the
// libraries know nothing of the lab, probe imports nothing of it, and the
// report reads stores without the runner, the harness or the study file
// format. A rule broken by a new import fails here, naming the path.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/spdylab/spdylab/"

// allDeps lists every package pkg imports, directly or not.
func allDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// deps lists the module's packages that pkg imports, directly or not.
func deps(t *testing.T, pkg string) []string {
	var own []string
	for _, p := range allDeps(t, pkg) {
		if strings.HasPrefix(p, module) && p != module+pkg {
			own = append(own, strings.TrimPrefix(p, module))
		}
	}
	return own
}

// TestReportReadsNoStudyFiles: stores keep the study model, so the report
// needs no TOML parser (old stores are parsed once by the command).
func TestReportReadsNoStudyFiles(t *testing.T) {
	for _, p := range allDeps(t, "report") {
		if strings.Contains(strings.ToLower(p), "toml") {
			t.Errorf("report imports %s", p)
		}
	}
}

func TestImportRules(t *testing.T) {
	for _, r := range []struct {
		pkg     string
		allowed func(dep string) bool // nil: no package of the module at all
		why     string
	}{
		{"spdy", nil, "a library: importable without the lab"},
		{"h3", nil, "a library: importable without the lab"},
		{"sctp", nil, "a library: importable without the lab"},
		{"netem/link", func(d string) bool { return d == "probe" || d == "internal/units" }, "the emulator core: packets in, packets out"},
		{"probe", func(d string) bool { return d == "internal/units" }, "every stage imports it"},
		{"har", func(d string) bool { return d == "probe" || d == "internal/units" }, "HAR is read by every client and the report"},
		{"report", func(d string) bool {
			return d != "study" && d != "harness" && d != "study/studyfile" && !strings.HasPrefix(d, "netem")
		}, "the report reads stores only"},
		{"critpath", func(d string) bool {
			return d == "probe" || d == "har" || d == "page" || strings.HasPrefix(d, "internal/")
		}, "pure analysis of what a load recorded"},
		{"study/spec", func(d string) bool { return d != "study/studyfile" && d != "study" && d != "harness" }, "the model knows no file format and runs nothing"},
		{"study/studyfile", func(d string) bool {
			return d != "study" && d != "harness" && !strings.HasPrefix(d, "netem")
		}, "a file parser: what this machine offers is the run's question (study.CheckHost)"},
		{"tune", func(d string) bool { return d != "report" }, "tune takes gains' verdicts from internal/stats and pairs by study/spec"},
	} {
		for _, d := range deps(t, r.pkg) {
			if r.allowed == nil || !r.allowed(d) {
				t.Errorf("%s imports %s (%s)", r.pkg, d, r.why)
			}
		}
	}
}
