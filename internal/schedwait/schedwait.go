// Package schedwait measures how long this process's goroutines waited
// for a CPU between two moments, from the Go runtime's own histogram of
// the time goroutines spend runnable before they run
// (runtime/metrics "/sched/latencies:seconds").
//
// A testbed's loader and servers run as goroutines of one process, so this
// is the wait of the endpoints themselves: the link emulator, which runs in
// a process of its own and keeps its own time, cannot see it. When more
// testbeds run than the cores carry, every handshake and every response
// waits here, and the PLTs measure the machine.
package schedwait

import (
	"math"
	"runtime/metrics"
	"time"
)

const metricName = "/sched/latencies:seconds"

// Snapshot is the runtime's cumulative histogram at one moment.
type Snapshot struct {
	counts  []uint64
	buckets []float64 // len(counts)+1 boundaries in seconds; may start at -Inf and end at +Inf
}

// Take reads the histogram now. A runtime without the metric gives an
// empty snapshot, and Since then reports no samples.
func Take() Snapshot {
	s := []metrics.Sample{{Name: metricName}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return Snapshot{}
	}
	h := s[0].Value.Float64Histogram()
	return Snapshot{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// Wait is the goroutines' wait for a CPU over an interval: quantiles of
// the sampled waits (the runtime samples a fraction of them) in
// milliseconds, and how many samples there were.
type Wait struct {
	P50ms, P99ms float64
	Samples      uint64
}

// Since is the wait between s and now.
func Since(s Snapshot) Wait { return Between(s, Take()) }

// Between is the wait between two snapshots, from bucket boundaries: a
// quantile is the upper boundary of the bucket that holds it (the lower
// one for the last, unbounded bucket), so it errs high by at most one
// bucket's width (the runtime's buckets are an eighth of a power of two
// wide, or finer). Snapshots of different shapes give no samples.
func Between(a, b Snapshot) Wait {
	if len(a.counts) != len(b.counts) || len(b.counts) == 0 || len(b.buckets) != len(b.counts)+1 {
		return Wait{}
	}
	delta := make([]uint64, len(b.counts))
	var n uint64
	for i := range b.counts {
		if b.counts[i] >= a.counts[i] {
			delta[i] = b.counts[i] - a.counts[i]
			n += delta[i]
		}
	}
	if n == 0 {
		return Wait{}
	}
	return Wait{P50ms: quantileMs(delta, b.buckets, n, 0.5), P99ms: quantileMs(delta, b.buckets, n, 0.99), Samples: n}
}

// quantileMs is the q-quantile of a histogram of n samples in ms.
func quantileMs(counts []uint64, buckets []float64, n uint64, q float64) float64 {
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= max(rank, 1) {
			v := buckets[i+1]
			if math.IsInf(v, 1) {
				v = buckets[i]
			}
			return max(v, 0) * float64(time.Second/time.Millisecond)
		}
	}
	return 0
}
