package browser

import (
	"context"
	"crypto/x509"
	"os"
	"strconv"
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
	requireChromium(b)
	runs := 8
	if n, err := strconv.Atoi(os.Getenv("SPDYLAB_PAINT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	site := newLabSite(b, "pageA", 2)
	pageURL, resolve := site.serveLoopback(b, 0)
	var cpu float64
	cpuHook = func(s float64) { cpu = s }
	costs := map[string][]float64{}
	paintCostHook = func(what string, d time.Duration) { costs[what] = append(costs[what], d.Seconds()*1000) }
	defer func() { cpuHook, skipPaintHook, paintCostHook = nil, false, nil }()
	names := [3]string{"no paint metrics", "FCP and LCP", "FCP, LCP and Speed Index"}
	for b.Loop() {
		var wall, cpus, plt [3][]float64
		frames := 0
		for run := 0; run < runs; run++ {
			for k := range 3 {
				side := (run + k) % 3
				skipPaintHook = side == 0
				start := time.Now()
				res, err := Load(context.Background(), Options{URL: pageURL, Proto: probe.ProtoH2, TLSVersion: "1.3", Resolve: resolve,
					TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m, SpeedIndex: side == 2})
				if err != nil {
					b.Fatal(err)
				}
				if side == 2 {
					if res.Paint == nil || res.Paint.SpeedIndexMs == nil {
						b.Fatalf("load %d has no Speed Index: %+v", run, res.Paint)
					}
					frames += res.Paint.Frames
				}
				wall[side] = append(wall[side], time.Since(start).Seconds())
				cpus[side] = append(cpus[side], cpu)
				plt[side] = append(plt[side], res.PLTms)
			}
		}
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
