package main

import (
	"compress/gzip"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study/store"
)

// unpackOldStore copies testdata/oldstore's study and store into a fresh
// directory and returns the study file and the output directory.
func unpackOldStore(t *testing.T) (studyFile, out string) {
	t.Helper()
	dir := t.TempDir()
	studyFile, out = filepath.Join(dir, "study.toml"), filepath.Join(dir, "out")
	b, err := os.ReadFile("testdata/oldstore/study.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(studyFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/oldstore/results.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := os.Create(filepath.Join(out, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(db, zr); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return studyFile, out
}

// A store the runner wrote before it was split into three packages is read
// by the report and resumed: finished, nothing runs again; cut short (its
// last run of every condition removed, as a kill would leave it), exactly
// the missing loads run and every old row stays as it was.
func TestStoreTheOldRunnerWroteResumes(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	file, out := unpackOldStore(t)
	if n := storedAttempts(t, out); n != 8 {
		t.Fatalf("the old store holds %d attempts, want 8", n)
	}
	run := func(args ...string) {
		t.Helper()
		if res, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("spdylab %s: %v\n%s", strings.Join(args, " "), err, res)
		}
	}
	run("report", out)
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatalf("no report from the old store: %v", err)
	}
	run("run", file, "--out", out, "-q", "-j", "1", "--no-report")
	if n := storedAttempts(t, out); n != 8 {
		t.Fatalf("resuming the finished old store stored %d attempts, want the 8 it had", n)
	}
	cutLastRun(t, out)
	kept := oldRows(t, out)
	run("run", file, "--out", out, "-q", "-j", "1", "--no-report")
	if p, a := storedProbes(t, out), storedAttempts(t, out); p != 8 || a != 8 {
		t.Fatalf("resuming the cut old store: %d probes in %d attempts, want 8 in 8", p, a)
	}
	if after := oldRows(t, out); !strings.HasPrefix(after, kept) {
		t.Fatalf("the old store's rows changed when it was resumed:\nbefore %s\nafter  %s", kept, after)
	}
}

// cutLastRun deletes every condition's run 1 from the store in out.
func cutLastRun(t *testing.T, out string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(out, store.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`DELETE FROM probes WHERE run = 1`)
	if err != nil {
		t.Fatalf("cutting the old store short: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 4 {
		t.Fatalf("cut %d rows, want 4", n)
	}
}

// oldRows lists the store's (condition, run, PLT) rows in insertion order.
func oldRows(t *testing.T, out string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(out, store.DBName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT cond_hash, run, plt_ms FROM probes ORDER BY rowid`)
	if err != nil {
		t.Fatalf("listing the store's rows: %v", err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var h string
		var run int
		var plt float64
		if err := rows.Scan(&h, &run, &plt); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %.3f\n", h, run, plt)
	}
	return b.String()
}
