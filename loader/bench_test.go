package loader

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchTargets starts loopback servers for page B for every protocol.
func benchTargets(b *testing.B) (*site, map[string]Target) {
	st := newSite(b, "pageB", 1)
	h1, _ := goServers(b, st, []string{"http/1.1"}, nil)
	h2, _ := goServers(b, st, []string{"h2"}, nil)
	s31, _ := spdyServers(b, st, probe.ProtoSPDY31, 0, false)
	s3, _ := spdyServers(b, st, probe.ProtoSPDY3, 0, false)
	return st, map[string]Target{probe.ProtoHTTPS: h1, probe.ProtoH2: h2, probe.ProtoSPDY31: s31, probe.ProtoSPDY3: s3}
}

var benchProtos = []string{probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoSPDY3, probe.ProtoH2}

// BenchmarkLoadPageB is one cold load of Study 1's page B (101 resources,
// 1.4 MB) over loopback per iteration. cpu-ms/load is the whole process
// (loader and the in-process servers), so it is an upper bound of the
// loader's own cost; loads/s is sequential throughput.
func BenchmarkLoadPageB(b *testing.B) {
	_, targets := benchTargets(b)
	for _, proto := range benchProtos {
		b.Run(proto, func(b *testing.B) {
			cpu0, wall0 := cpuTime(), time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Load(context.Background(), targets[proto], Options{Proto: proto})
				if err != nil {
					b.Fatal(err)
				}
				_ = res
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/load")
			b.ReportMetric(float64(b.N)/time.Since(wall0).Seconds(), "loads/s")
		})
	}
}

// BenchmarkLoadPageBParallel runs independent cold loads concurrently to
// find the most loads per second the machine sustains on loopback.
func BenchmarkLoadPageBParallel(b *testing.B) {
	_, targets := benchTargets(b)
	for _, proto := range benchProtos {
		b.Run(proto, func(b *testing.B) {
			var failed atomic.Int64
			wall0 := time.Now()
			b.SetParallelism(2)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := Load(context.Background(), targets[proto], Options{Proto: proto}); err != nil {
						failed.Add(1)
					}
				}
			})
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d loads failed", n)
			}
			b.ReportMetric(float64(b.N)/time.Since(wall0).Seconds(), "loads/s")
		})
	}
}
