package eta

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/spec"

	"github.com/spdylab/spdylab/study/store"
)

// replayStoreDirs are the finished stores the replay reads: every output
// directory under $SPDYLAB_ETA_STORES (a colon-separated list of folders;
// by default the lab machine's /work/runs and the repository's out/) that holds a store
// and is not in use by a run (its run lock names a process).
func replayStoreDirs() []string {
	roots := filepath.SplitList(os.Getenv("SPDYLAB_ETA_STORES"))
	if len(roots) == 0 {
		roots = []string{"/work/runs", "../../out"}
	}
	var dirs []string
	for _, root := range roots {
		matches, _ := filepath.Glob(filepath.Join(root, "*", "results.db"))
		for _, m := range matches {
			dir := filepath.Dir(m)
			if lock, err := os.ReadFile(filepath.Join(dir, store.RunLockName)); err == nil && strings.TrimSpace(string(lock)) != "" {
				continue // being written, or its run was killed
			}
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// TestETAReplayStores replays every finished store found and reports the
// ETA's error at 5, 10, 25, 50 and 75% of each session's loads.
func TestETAReplayStores(t *testing.T) {
	dirs := replayStoreDirs()
	if len(dirs) == 0 {
		t.Skip("no finished study stores to replay (set SPDYLAB_ETA_STORES to folders of output directories)")
	}
	var b strings.Builder
	// The ETA weighs loads by the load model: stores it was fitted on
	// measure it in sample, the others out of sample.
	fmt.Fprintf(&b, "\n%-22s %-7s %6s %4s %8s", "session", "model", "loads", "j", "wall")
	for _, sh := range replayShares {
		fmt.Fprintf(&b, " %6.0f%%", 100*sh)
	}
	fmt.Fprintf(&b, " %8s\n", "worst")
	eachReplayedSession(t, dirs, func(dir string, s replaySession) {
		if len(s.loads) < 100 {
			return // too short for shares to mean anything
		}
		points, worst := replayETA(s, planReplay(s))
		j := fmt.Sprint(s.testbeds)
		if s.auto {
			j = "auto"
		}
		set := "other"
		if spec.LoadModelFittedOn(dir) {
			set = "fitted"
		}
		fmt.Fprintf(&b, "%-22s %-7s %6d %4s %8s", s.name, set, len(s.loads), j, replayWall(s).Round(time.Second))
		for _, p := range points {
			fmt.Fprintf(&b, " %+6.0f%%", 100*p.err)
		}
		fmt.Fprintf(&b, " %7.0f%%\n", 100*worst)
	})
	t.Log(b.String())
}

func replayWall(s replaySession) time.Duration {
	var end time.Time
	for _, l := range s.loads {
		if l.end.After(end) {
			end = l.end
		}
	}
	return end.Sub(s.begin)
}
