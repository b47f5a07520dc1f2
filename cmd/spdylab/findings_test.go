package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/findings"
	"github.com/spdylab/spdylab/internal/pagedata"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
)

// findingsDir is the committed findings folder seen from this package.
const findingsDir = "../../findings"

// TestFindingsFilesCheck keeps the committed findings from rotting: every
// file's header reads, every study finding parses and passes the check of
// `spdylab studies --check` (each condition's page opened and its page
// factors applied) at loads enough for every cell's interval, and every
// driver finding names a folder of the
// repository. Findings over recordings are checked against the shared
// recordings when they are here, and skipped with a message otherwise.
func TestFindingsFilesCheck(t *testing.T) {
	names, err := findings.Names(findingsDir)
	if err != nil {
		t.Fatal(err)
	}
	pages, havePages := pagedata.Dir()
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			f, err := findings.Read(findingsDir, n)
			if err != nil {
				t.Fatal(err)
			}
			if f.Kind == findings.KindDriver {
				if _, err := os.Stat(filepath.Join("../..", f.Driver, "main.go")); err != nil {
					t.Fatalf("driver %s: %v", f.Driver, err)
				}
				return
			}
			s, err := f.Study("", 0)
			if err == findings.ErrNeedsPages {
				if !havePages {
					t.Skipf("%s runs on recordings and ../shared/pages is absent", n)
				}
				s, err = f.Study(filepath.Join(pages, "har"), 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Runs < stats.MinIntervalN {
				t.Errorf("%d loads per cell: a row's gains need %d for their 95%% intervals", s.Runs, stats.MinIntervalN)
			}
			if err := study.CheckHost(s); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			if !checkStudies([]*spec.Study{s}, &stderr) {
				t.Fatalf("spdylab studies --check: %s", stderr.String())
			}
		})
	}
}

// TestFindingsOneLoadSlice runs a one-load slice of the smallest finding
// end to end on the real testbed (namespaces, emulated link, servers,
// loader, store, report) into FINDINGS.md, then again with --no-run: the
// row is the same store's, marked current, with one load per cell.
func TestFindingsOneLoadSlice(t *testing.T) {
	testutil.RequireRoot(t)
	out := t.TempDir()
	args := []string{"--dir", findingsDir, "--only", "stack-2012", "--runs", "1", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := findingsCmd(args, &stdout, &stderr); code != 0 {
		t.Fatalf("spdylab findings: exit %d\n%s", code, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, findings.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	row := findingsRow(t, string(md), "stack-2012")
	for _, want := range []string{"spdy/2 vs https", "stack=modern", "stack=2012", "1 per cell", "commit ", "out-of-sample"} {
		if !strings.Contains(row, want) {
			t.Errorf("the row lacks %q:\n%s", want, row)
		}
	}
	if strings.Contains(row, "NOT RUN") || strings.Contains(row, "FAILED") || strings.Contains(row, "STALE") {
		t.Errorf("the row is not current:\n%s", row)
	}
	if _, err := os.Stat(filepath.Join(out, "stack-2012.runs1", "report.html")); err != nil {
		t.Errorf("the finding's report: %v", err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := findingsCmd(append(args, "--no-run"), &stdout, &stderr); code != 0 {
		t.Fatalf("spdylab findings --no-run: exit %d\n%s", code, stderr.String())
	}
	md2, err := os.ReadFile(filepath.Join(out, findings.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if row2 := findingsRow(t, string(md2), "stack-2012"); row2 != row {
		t.Errorf("--no-run showed another row than the run:\n%s\nvs\n%s", row2, row)
	}
}

// findingsRow is FINDINGS.md's table row of one finding.
func findingsRow(t *testing.T, md, name string) string {
	t.Helper()
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| "+name+" |") {
			return l
		}
	}
	t.Fatalf("FINDINGS.md has no row for %s:\n%s", name, md)
	return ""
}
