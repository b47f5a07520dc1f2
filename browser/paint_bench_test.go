package browser

import (
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkPaintCost is what paint metrics add to a Chromium load's wall
// time: pageA on two hosts over loopback (h2, TLS 1.3), loaded in turn
// without paint metrics, with FCP and LCP (the timeline read every load
// makes), and with Speed Index's frames too, the order rotated every
// round; it also logs the waits the paint metrics put on a load's end
// (the timeline's read; decoding the frames). Run with
//
//	go test ./browser -run '^$' -bench PaintCost -benchtime 1x -v
//
// SPDYLAB_PAINT_RUNS sets the loads per side (default 8).
func BenchmarkPaintCost(b *testing.B) {
	runs := benchRuns("SPDYLAB_PAINT_RUNS", 8)
	sb := newSidesBench(b)
	costs := map[string][]float64{}
	paintCostHook = func(what string, d time.Duration) { costs[what] = append(costs[what], d.Seconds()*1000) }
	defer func() { skipPaintHook, paintCostHook = false, nil }()
	names := [3]string{"no paint metrics", "FCP and LCP", "FCP, LCP and Speed Index"}
	for b.Loop() {
		frames := 0
		l := sb.load(b, runs, 3, func(side int, o *Options) {
			skipPaintHook = side == 0
			o.SpeedIndex = side == 2
		}, func(side, run int, res probe.Result) {
			if side == 2 {
				if res.Paint == nil || res.Paint.SpeedIndexMs == nil {
					b.Fatalf("load %d has no Speed Index: %+v", run, res.Paint)
				}
				frames += res.Paint.Frames
			}
		})
		wall, cpus, plt := l.wall, l.cpu, l.plt
		for side := range 3 {
			w := stats.MedianRatio(wall[side], wall[0])
			c := stats.MedianRatio(cpus[side], cpus[0])
			b.Logf("%-26s wall %.3f s (x%.3f [%.3f, %.3f]), Chromium CPU %.2f s (x%.3f [%.3f, %.3f]), PLT %.0f ms",
				names[side]+":", stats.Median(wall[side]), w.Ratio, w.Lo, w.Hi, stats.Median(cpus[side]), c.Ratio, c.Lo, c.Hi, stats.Median(plt[side]))
		}
		b.Logf("frames per load with Speed Index: %.1f", float64(frames)/float64(runs))
		b.Logf("the paint metrics' own waits per load (median, max): reading the timeline %.0f, %.0f ms; Speed Index from the frames %.0f, %.0f ms",
			stats.Median(costs["timeline"]), maxOf(costs["timeline"]), stats.Median(costs["frames"]), maxOf(costs["frames"]))
	}
}
