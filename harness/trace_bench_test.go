package harness

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkMainThreadTraceCost is what main_thread_trace costs a Chromium
// load: two benches of one condition (pageA over h2 at 10/2 Mbit/s, 40 ms,
// TLS 1.3), one traced and one not, their loads alternated (the order
// flipped every pair) so that both see the same machine. It logs each
// side's median wall time per load (Bench.Load, Chromium's start to its
// end) and PLT, their ratios, and how many traced loads have main-thread
// intervals. Run with
//
//	sudo go test ./harness -run '^$' -bench MainThreadTraceCost -benchtime 1x -v
//
// SPDYLAB_TRACE_RUNS sets the loads per side (default 6).
func BenchmarkMainThreadTraceCost(b *testing.B) {
	testutil.RequireRoot(b)
	if _, err := browser.FindBinary(""); err != nil {
		b.Skipf("no Chromium: %v", err)
	}
	runs := 6
	if n, err := strconv.Atoi(os.Getenv("SPDYLAB_TRACE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	c := probe.Condition{Page: "pageA", Shards: 1, Client: probe.ClientChromium, TLS: probe.TLS13,
		Link: probe.Link{DownBps: 10e6, UpBps: 2e6, RTT: 40 * time.Millisecond}}
	traced := c
	traced.MainThreadTrace = true
	ctx := context.Background()
	var benches [2]*Bench
	for i, cond := range []probe.Condition{c, traced} {
		bench, err := Open(ctx, cond, Options{WorkDir: b.TempDir(), Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer bench.Close()
		benches[i] = bench
	}
	for b.Loop() {
		var wall, plt [2][]float64
		withIntervals := 0
		for run := 0; run < runs; run++ {
			for k := range 2 {
				side := (run + k) % 2 // untraced first in even pairs, traced first in odd
				start := time.Now()
				r := benches[side].Load(ctx, probe.ProtoH2, run)
				if r.Failed {
					b.Fatalf("load %d (traced %v) failed: %s", run, side == 1, r.Error)
				}
				wall[side] = append(wall[side], time.Since(start).Seconds())
				plt[side] = append(plt[side], r.PLTms)
				if side == 1 && len(r.MainThread) > 0 {
					withIntervals++
				}
			}
		}
		// A pair's two loads saw nearly the same machine: the median of
		// the pairs' ratios leaves out most of a shared machine's drift.
		pairs := make([]float64, runs)
		for i := range pairs {
			pairs[i] = wall[1][i] / wall[0][i]
		}
		w, p := stats.MedianRatio(wall[1], wall[0]), stats.MedianRatio(plt[1], plt[0])
		b.Logf("wall per load: untraced %.2f s, traced %.2f s: ratio %.3f [%.3f, %.3f], median of the pairs' ratios %.3f; walls untraced %.2f, traced %.2f",
			stats.Median(wall[0]), stats.Median(wall[1]), w.Ratio, w.Lo, w.Hi, stats.Median(pairs), wall[0], wall[1])
		b.Logf("PLT: untraced %.0f ms, traced %.0f ms: ratio %.3f [%.3f, %.3f]; %d of %d traced loads have main-thread intervals",
			stats.Median(plt[0]), stats.Median(plt[1]), p.Ratio, p.Lo, p.Hi, withIntervals, runs)
	}
}
