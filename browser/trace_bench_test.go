package browser

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkMainThreadTraceWaits is what the main-thread trace adds to a
// Chromium load, measured where the noise of a shared machine reaches it
// least: pageA on two hosts over loopback (h2, TLS 1.3), traced and
// untraced loads alternated (the order flipped every pair). Besides each
// side's wall time and Chromium's CPU seconds per load it logs the only
// waits the trace puts on a load's path: navigation waiting for
// Tracing.start beyond the tab's set-up, and the end waiting for the
// trace's last batches beyond the TCP_INFO read. Run with
//
//	go test ./browser -run '^$' -bench MainThreadTraceWaits -benchtime 1x -v
//
// SPDYLAB_TRACE_RUNS sets the loads per side (default 10).
func BenchmarkMainThreadTraceWaits(b *testing.B) {
	runs := benchRuns("SPDYLAB_TRACE_RUNS", 10)
	sb := newSidesBench(b)
	var startWaits, flushWaits []float64
	traceWaitHook = func(start, flush time.Duration) {
		startWaits = append(startWaits, start.Seconds()*1000)
		flushWaits = append(flushWaits, flush.Seconds()*1000)
	}
	defer func() { traceWaitHook = nil }()
	for b.Loop() {
		l := sb.load(b, runs, 2, func(side int, o *Options) { o.TraceMainThread = side == 1 }, func(side, run int, res probe.Result) {
			if side == 1 && len(res.MainThread) == 0 {
				b.Fatalf("traced load %d has no main-thread intervals", run)
			}
		})
		wall, cpus := l.wall, l.cpu
		pairs := make([]float64, runs)
		for i := range pairs {
			pairs[i] = wall[1][i] / wall[0][i]
		}
		w, c := stats.MedianRatio(wall[1], wall[0]), stats.MedianRatio(cpus[1], cpus[0])
		b.Logf("wall per load: untraced %.2f s, traced %.2f s: ratio %.3f [%.3f, %.3f], median of the pairs' ratios %.3f",
			stats.Median(wall[0]), stats.Median(wall[1]), w.Ratio, w.Lo, w.Hi, stats.Median(pairs))
		b.Logf("Chromium CPU per load: untraced %.2f s, traced %.2f s: ratio %.3f [%.3f, %.3f]",
			stats.Median(cpus[0]), stats.Median(cpus[1]), c.Ratio, c.Lo, c.Hi)
		b.Logf("the trace's waits per load (median, max): Tracing.start %.0f, %.0f ms; last batches %.0f, %.0f ms; together %.1f%% of an untraced load's wall time",
			stats.Median(startWaits), maxOf(startWaits), stats.Median(flushWaits), maxOf(flushWaits),
			100*(stats.Median(startWaits)+stats.Median(flushWaits))/1000/stats.Median(wall[0]))
	}
}
