package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/store"
)

// twoShards is a loopback study of two bench groups, one per shard of 2.
const twoShards = `
name = "two-shards"
runs = 1
seed = 1
[factors]
page = ["pageA", "pageB"]
protocol = "https"
no_link = true
`

// TestMergeIncompleteNamesMissingAndRerun merges a study of which only
// shard 0 of 2 ran: merge refuses, naming shard 1's missing load and the
// command that runs it; --partial merges what there is; after running that
// shard the merge goes through.
func TestMergeIncompleteNamesMissingAndRerun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two.toml")
	if err := os.WriteFile(file, []byte(twoShards), 0o644); err != nil {
		t.Fatal(err)
	}
	shard := func(i string) string { return filepath.Join(dir, "two.shard-"+i) }
	run := func(i string) {
		t.Helper()
		var code int
		msg := captureStderr(t, func(stderr io.Writer) {
			code = runCmd([]string{file, "--shard", i + "/2", "--out", shard(i), "-q", "--no-report"}, io.Discard, stderr)
		})
		if code != 0 {
			t.Fatalf("run shard %s: exit %d: %s", i, code, msg)
		}
	}
	merge := func(args ...string) (int, string) {
		var code int
		msg := captureStderr(t, func(stderr io.Writer) { code = mergeCmd(args, io.Discard, stderr) })
		return code, msg
	}
	run("0")

	out := filepath.Join(dir, "merged")
	code, msg := merge("--no-report", out, shard("0"))
	if code != 1 {
		t.Fatalf("merge of shard 0 alone: exit %d: %s", code, msg)
	}
	for _, want := range []string{
		"1 of 2 loads of two-shards are missing, in 1 of 2 shards",
		"shard 1/2 (no directory given): 1 loads of 1 conditions missing",
		"run: spdylab run " + file + " --shard 1/2 --out " + shard("1") + " -q --no-report",
		"SHARDS=2 sbatch --array=1 ",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("merge says:\n%s\nwant %q", msg, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("refused merge made %s", out)
	}

	if code, msg := merge("--no-report", "--partial", out, shard("0")); code != 0 {
		t.Fatalf("merge --partial: exit %d: %s", code, msg)
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	states, _ := st.States()
	st.Close()
	if len(states) != 1 {
		t.Errorf("partial merge holds %d loads, want 1", len(states))
	}

	run("1")
	if code, msg := merge("--no-report", filepath.Join(dir, "all"), shard("0"), shard("1")); code != 0 || strings.Contains(msg, "missing") {
		t.Errorf("merge of both shards: exit %d: %s", code, msg)
	}
}
