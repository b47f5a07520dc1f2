package main

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// captureStderr runs fn with a buffer for the command's stderr and
// returns what it wrote.
func captureStderr(t *testing.T, fn func(stderr io.Writer)) string {
	t.Helper()
	var b bytes.Buffer
	fn(&b)
	return b.String()
}

func TestRunBadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"-j", "0"},
		{"-j", "65"},
		{"-j", "many"},
		{"--shard", "3/3"},
		{"--shard", "x"},
		{"--runs", "-1"},
		{"--bogus"},
		{"quick", "study1-cablelabs"},
	} {
		var code int
		captureStderr(t, func(stderr io.Writer) { code = runCmd(args, io.Discard, stderr) })
		if code != 2 {
			t.Errorf("run %q: exit %d, want 2", args, code)
		}
	}
	for _, args := range [][]string{{"--bogus"}, {"only-out"}} {
		var code int
		captureStderr(t, func(stderr io.Writer) { code = mergeCmd(args, io.Discard, stderr) })
		if code != 2 {
			t.Errorf("merge %q: exit %d, want 2", args, code)
		}
	}
	var code int
	captureStderr(t, func(stderr io.Writer) { code = reportCmd([]string{"--waterfall", "-3", "x"}, io.Discard, stderr) })
	if code != 2 {
		t.Errorf("report --waterfall -3: exit %d, want 2", code)
	}
}

func TestRunJobsFlag(t *testing.T) {
	for args, want := range map[string]int{"": study.JobsAuto, "-j auto": study.JobsAuto, "-j 12": 12, "-j=1": 1} {
		f, status := parseRunFlags(strings.Fields(args), io.Discard)
		if status >= 0 || f.jobs != want {
			t.Errorf("%q: -j %d (status %d), want %d", args, f.jobs, status, want)
		}
	}
}

func TestRunBadStudyTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"bad\"\nruns = 2\n[factors]\npage = \"pageA\"\nprotocol = [\"https\", \"spdy/9\"]\n"), 0o644)
	out := filepath.Join(dir, "out")
	var code int
	msg := captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{bad, "--out", out}, io.Discard, stderr) })
	if code != 1 || !strings.Contains(msg, "line 5") || !strings.Contains(msg, `"spdy/9"`) {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a bad study created its output directory")
	}
	msg = captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{"no-such-study", "--out", out}, io.Discard, stderr) })
	if code != 1 || !strings.Contains(msg, "quick") {
		t.Errorf("unknown study: exit %d, stderr %q", code, msg)
	}
}

const tinyLoopback = `
name = "tiny-e2e"
description = "one page, two protocols, over loopback"
runs = 2
seed = 1
[factors]
page = "twitter"
protocol = ["https", "spdy/3.1"]
no_link = true
`

// TestRunEndToEnd runs a tiny study through the real harness (loopback:
// real servers, real TLS, real loader, no emulated link), then reruns it
// (nothing to do), then points another study at the same OUT (refused).
func TestRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.toml")
	os.WriteFile(file, []byte(tinyLoopback), 0o644)
	out := filepath.Join(dir, "out")
	var code int
	msg := captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{file, "--out", out, "-q"}, io.Discard, stderr) })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, f := range []string{"results.db", "report.html", "conditions.csv", "conditions.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s missing: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, ".work")); !os.IsNotExist(err) {
		t.Error("work directory left behind")
	}
	f, _ := os.Open(filepath.Join(out, "conditions.csv"))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 3 {
		t.Fatalf("conditions.csv: %v %d rows", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if r[col["successful"]] != "2" || r[col["plt_median_ms"]] == "" {
			t.Errorf("condition %s: %s successful loads, PLT %q", r[col["protocol"]], r[col["successful"]], r[col["plt_median_ms"]])
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(out, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	var n, withHAR int
	db.QueryRow(`SELECT COUNT(*), SUM(length(har) > 100) FROM probes WHERE failed = 0`).Scan(&n, &withHAR)
	var rev, kernel string
	db.QueryRow(`SELECT revision, kernel FROM sessions`).Scan(&rev, &kernel)
	db.Close()
	if n != 4 || withHAR != 4 || rev == "" || kernel == "" {
		t.Errorf("%d successful probes (%d with HAR), provenance %q %q", n, withHAR, rev, kernel)
	}
	// Again: resumes, nothing to do.
	msg = captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{file, "--out", out}, io.Discard, stderr) })
	if code != 0 || !strings.Contains(msg, "4 loads were already stored") {
		t.Errorf("rerun: exit %d: %s", code, msg)
	}
	// Another study into the same OUT: refused, nothing touched.
	before, _ := os.ReadFile(filepath.Join(out, "conditions.csv"))
	other := filepath.Join(dir, "other.toml")
	os.WriteFile(other, []byte(strings.Replace(tinyLoopback, "tiny-e2e", "other", 1)), 0o644)
	msg = captureStderr(t, func(stderr io.Writer) { code = runCmd([]string{other, "--out", out}, io.Discard, stderr) })
	if code != 1 || !strings.Contains(msg, `holds study "tiny-e2e"`) {
		t.Errorf("other study: exit %d: %s", code, msg)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "conditions.csv")); !bytes.Equal(before, after) {
		t.Error("refused run rewrote the report")
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	states, _ := st.States()
	st.Close()
	if len(states) != 4 {
		t.Errorf("%d keys after the refused run, want 4", len(states))
	}
	// The report command rebuilds from the store; a waterfall of probe 1.
	msg = captureStderr(t, func(stderr io.Writer) { code = reportCmd([]string{out, "--waterfall", "1"}, io.Discard, stderr) })
	if code != 0 {
		t.Errorf("report: exit %d: %s", code, msg)
	}
	if _, err := os.Stat(filepath.Join(out, "waterfall-1.html")); err != nil {
		t.Error(err)
	}
}

func TestStudiesListsBuiltins(t *testing.T) {
	var b bytes.Buffer
	code := studiesCmd(nil, &b, io.Discard)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, n := range studyfile.BuiltinNames() {
		if !strings.Contains(b.String(), n) {
			t.Errorf("studies output lacks %s:\n%s", n, b.String())
		}
	}
}

// An unknown study is an error naming the known ones,
// and nothing else: no table, empty or partial.
func TestStudiesUnknownIsAnErrorAlone(t *testing.T) {
	for _, args := range [][]string{{"nosuch"}, {"quick", "nosuch"}} {
		var out, errb bytes.Buffer
		code := studiesCmd(args, &out, &errb)
		if code == 0 {
			t.Errorf("studies %q: exit 0", args)
		}
		if out.Len() > 0 {
			t.Errorf("studies %q printed besides the error:\n%s", args, out.String())
		}
		if !strings.Contains(errb.String(), `"nosuch"`) {
			t.Errorf("studies %q: error %q does not name the study", args, errb.String())
		}
		for _, n := range studyfile.BuiltinNames() {
			if !strings.Contains(errb.String(), n) {
				t.Errorf("studies %q: error %q does not name the known study %s", args, errb.String(), n)
			}
		}
	}
}

// A factor that cannot apply to a page (host_rtt recorded on a
// page without recorded connect times) loads as a study but is refused by
// `studies --check`, naming each condition and the reason; the built-in
// quick study passes the same check.
func TestStudiesCheckNamesConditionsThatCannotRun(t *testing.T) {
	dir := t.TempDir()
	m, err := page.Open("pageA", 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteSite(filepath.Join(dir, "site")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "chk.toml")
	study := "name = \"chk\"\nruns = 1\n[factors]\npage = \"site\"\nhost_rtt = [\"uniform\", \"recorded\"]\nprotocol = [\"https\", \"spdy/3.1\"]\n[baseline]\nprotocol = \"https\"\n"
	if err := os.WriteFile(file, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := studiesCmd([]string{file}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("studies %s: exit %d, want 0 (the file itself is valid)", file, code)
	}
	var errb bytes.Buffer
	if code := studiesCmd([]string{"--check", file}, io.Discard, &errb); code != 1 {
		t.Fatalf("studies --check %s: exit %d, want 1:\n%s", file, code, errb.String())
	}
	msg := errb.String()
	if !strings.Contains(msg, "2 of 4 conditions cannot run") || !strings.Contains(msg, "host_rtt=recorded") || !strings.Contains(msg, "connect times") {
		t.Errorf("studies --check: message does not name the failing conditions and why:\n%s", msg)
	}
	if strings.Contains(msg, "host_rtt=uniform") {
		t.Errorf("studies --check named a condition that can run:\n%s", msg)
	}
	errb.Reset()
	if code := studiesCmd([]string{"--check", "quick"}, io.Discard, &errb); code != 0 {
		t.Errorf("studies --check quick: exit %d:\n%s", code, errb.String())
	}
}
