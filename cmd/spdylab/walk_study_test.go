package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
)

// walkStudyFile is a two-step walk on pageA over a fast link: from IW 3
// at 10 ms to IW 10 at 40 ms.
const walkStudyFile = `name = "walk-e2e"
runs = 2
seed = 1
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
rate = "50mbit/10mbit"
[presets.near]
iw = 3
rtt = "10ms"
[presets.far]
iw = 10
rtt = "40ms"
[[walk]]
from = "near"
to = "far"
steps = ["iw", "rtt"]
`

// TestWalkStudyRuns runs a study with a walk through the real pipeline
// (namespaces, emulated link, servers, loader, store) and checks that
// the report has the walk: in walks.csv and in spdylab report's text.
func TestWalkStudyRuns(t *testing.T) {
	testutil.RequireRoot(t)
	if testing.Short() {
		t.Skip("runs real page loads over an emulated link")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "walk.toml")
	if err := os.WriteFile(file, []byte(walkStudyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var code int
	msg := captureStderr(t, func(stderr io.Writer) {
		code = runCmd([]string{file, "-j", "2", "-q", "--out", out}, io.Discard, stderr)
	})
	if code != 0 {
		t.Fatalf("spdylab run: exit %d\n%s", code, msg)
	}
	f, err := os.Open(filepath.Join(out, "walks.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 1+3 {
		t.Fatalf("walks.csv: %v, %d rows, want a header and 3 steps", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for i, r := range recs[1:] {
		if r[col["gain"]] == "" {
			t.Errorf("step %d has no gain: %v", i, r)
		}
	}
	if recs[2][col["factor"]] != "iw" || recs[3][col["factor"]] != "rtt" || recs[3][col["factor_to"]] != "40ms" {
		t.Errorf("steps %v", recs[1:])
	}
	var stdout bytes.Buffer
	if code := reportCmd([]string{out}, &stdout, io.Discard); code != 0 {
		t.Fatalf("spdylab report: exit %d", code)
	}
	for _, want := range []string{"walk near → far  (page=pageA)", "iw 3 → 10", "rtt 10ms → 40ms", "the gain changes by"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("spdylab report's text lacks %q:\n%s", want, stdout.String())
		}
	}
}
