package main

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// logFailedProbes prints why loads failed, from the store.
func logFailedProbes(t *testing.T, out string) {
	t.Helper()
	st, err := store.OpenStore(out)
	if err != nil {
		t.Log(err)
		return
	}
	defer st.Close()
	probes, err := st.Probes(false)
	if err != nil {
		t.Log(err)
		return
	}
	for _, p := range probes {
		if p.Result.Failed {
			c := p.Result.Condition
			t.Logf("probe %d (%s, %s, iw %d, attempt %d) failed after %v: %s", p.ID, c.Proto, c.Page, c.TCP.IW, p.Attempt, p.Duration, p.Result.Error)
		}
	}
}

// TestEveryBuiltinStudyRuns runs a deterministic slice of every built-in
// study, one load per condition, through the real pipeline: emulated links
// in namespaces, real servers and loader, the store and the report. It is
// the "every study family runs" check with the run counts reduced for CI;
// the full studies are in BENCHMARKS.md.
func TestEveryBuiltinStudyRuns(t *testing.T) {
	testutil.RequireRoot(t)
	if testing.Short() {
		t.Skip("runs real page loads over emulated links for a few minutes")
	}
	// The slice of each study: big matrices get thinner slices so the whole
	// test stays within a few minutes on 2 cores.
	slices := map[string]string{
		"quick":               "0/4",
		"study1-cablelabs":    "0/24",
		"study2-delay":        "0/6",
		"study2-bandwidth":    "0/6",
		"study2-iw":           "0/6",
		"study2-loss":         "0/6",
		"study2-shards":       "0/6",
		"study2-streams":      "0/6",
		"study3-sctp":         "0/24",
		"study4-google":       "0/12",
		"study5-multiplexing": "0/40",
		"fidelity":            "0/72",
		"study6-reconcile":    "0/42",
	}
	for _, name := range studyfile.BuiltinNames() {
		shard, ok := slices[name]
		if !ok {
			t.Errorf("built-in study %s has no slice in this test: add one", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var code int
			msg := captureStderr(t, func(stderr io.Writer) {
				code = runCmd([]string{name, "--runs", "1", "--shard", shard, "-j", "4", "-q", "--out", out}, io.Discard, stderr)
			})
			if code != 0 {
				t.Fatalf("spdylab run %s --shard %s: exit %d\n%s", name, shard, code, msg)
			}
			if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
				t.Errorf("no report: %v", err)
			}
			f, err := os.Open(filepath.Join(out, "conditions.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(recs) < 2 {
				t.Fatalf("conditions.csv: %v, %d rows", err, len(recs))
			}
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			failed, ran := 0, 0
			for _, r := range recs[1:] {
				// The report lists the whole study; conditions outside this
				// shard have no loads. One load per condition, retried once
				// on failure: every condition that ran must end with a
				// successful load.
				if loads, _ := strconv.Atoi(r[col["loads"]]); loads == 0 {
					continue
				}
				ran++
				if n, _ := strconv.Atoi(r[col["successful"]]); n < 1 {
					t.Errorf("a condition has no successful load: %v", r)
					failed++
				}
			}
			if ran == 0 {
				t.Errorf("no condition of the slice ran")
			}
			if failed > 0 {
				logFailedProbes(t, out)
			}
		})
	}
}
