package eta

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/spec"
)

// TestLoadModelOnStores measures the per-load time model (spec.ModelledWall)
// on every finished store found: per session, the geometric mean of
// measured/modelled time (the machine's and -j's factor, which the ETA
// measures as it goes) and the spread of its logarithm (what the ETA
// cannot know ahead: the model's error between conditions). First
// attempts that succeeded only.
func TestLoadModelOnStores(t *testing.T) {
	dirs := replayStoreDirs()
	if len(dirs) == 0 {
		t.Skip("no finished study stores (set SPDYLAB_ETA_STORES to folders of output directories)")
	}
	var b strings.Builder
	fitted, other := spec.SplitByFit(dirs)
	for _, group := range []struct {
		title string
		dirs  []string
	}{{"stores the model was fitted on (in sample)", fitted}, {"other stores (out of sample)", other}} {
		fmt.Fprintf(&b, "\n%s: %d\n", group.title, len(group.dirs))
		modelErrorTable(t, &b, group.dirs)
	}
	t.Log(b.String())
}

// modelErrorTable writes one row per session of dirs with 100 or more
// loads: its loads, the geometric mean of measured/modelled and the spread.
func modelErrorTable(t *testing.T, b *strings.Builder, dirs []string) {
	fmt.Fprintf(b, "%-22s %6s %8s %8s\n", "session", "loads", "ratio", "spread")
	eachReplayedSession(t, dirs, func(_ string, s replaySession) {
		var logs []float64
		for _, l := range s.loads {
			if !l.retry && !l.failed && l.modelledMs > 0 {
				logs = append(logs, math.Log(float64(l.end.Sub(l.start))/float64(time.Millisecond)/l.modelledMs))
			}
		}
		if len(logs) < 100 {
			return
		}
		mean, sd := meanSD(logs)
		fmt.Fprintf(b, "%-22s %6d %8.2f %8.3f\n", s.name, len(logs), math.Exp(mean), sd)
	})
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}
