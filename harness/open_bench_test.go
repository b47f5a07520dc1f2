package harness

import (
	"context"
	"syscall"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// BenchmarkOpenManyResourcesOverLoopback is the CPU a study runner spends
// building and tearing down one bench of a large page on 8 servers (the
// page opened once and its site written once, as the runner does), without
// the emulated link, which needs root: the certificate authority, one
// certificate per host, the servers' view of the page and their listeners.
func BenchmarkOpenManyResourcesOverLoopback(b *testing.B) {
	const spec = "generic:n=800,domains=8"
	m, err := page.Open(spec, 8, 1, probe.ShardEqual)
	if err != nil {
		b.Fatal(err)
	}
	c := probe.Condition{Page: spec, Shards: 8, NoLink: true}
	opt := Options{WorkDir: b.TempDir(), Seed: 1, Page: m}
	ctx := context.Background()
	if bench, err := Open(ctx, c, opt); err != nil { // writes the site, once per run as in a study
		b.Fatal(err)
	} else {
		bench.Close()
	}
	cpu0 := processCPU(b)
	for b.Loop() {
		bench, err := Open(ctx, c, opt)
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the user and system CPU time this process has used, in ns:
// the machine may be shared, so the benchmark reports CPU, not wall time.
func processCPU(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
