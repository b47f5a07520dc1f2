package link

import (
	"math/bits"
	"time"
)

// histogram records durations in fixed log-linear buckets (the HDR idea):
// each power-of-two range of nanoseconds is split into 64 equal buckets, so
// any recorded value is reported within 1/64 (1.6%) of itself while the
// memory stays a fixed ~16 KiB however long a run lasts. The maximum is kept
// exactly.
type histogram struct {
	counts [histBuckets]uint64
	total  uint64
	max    int64
}

const (
	histSubBits = 6 // 64 buckets per power of two
	histSub     = 1 << histSubBits
	histMaxBits = 40 // 2^40 ns ≈ 18 minutes; larger values land in the last bucket
	histBuckets = (histMaxBits - histSubBits + 1) * histSub
)

func histIndex(v int64) int {
	if v < histSub {
		if v < 0 {
			v = 0
		}
		return int(v)
	}
	exp := bits.Len64(uint64(v)) - 1 // v in [2^exp, 2^(exp+1))
	if exp >= histMaxBits {
		return histBuckets - 1
	}
	shift := exp - histSubBits
	return (shift+1)*histSub + int(uint64(v)>>shift) - histSub
}

// histLow is the smallest value that falls into bucket i.
func histLow(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	shift := i/histSub - 1
	return int64(i%histSub+histSub) << shift
}

func (h *histogram) record(d int64) {
	if d < 0 {
		d = 0
	}
	h.counts[histIndex(d)]++
	h.total++
	if d > h.max {
		h.max = d
	}
}

func (h *histogram) reset() { *h = histogram{} }

// quantile returns the value below which a fraction q of the recorded values
// lie: the middle of the bucket holding that rank, capped at the maximum.
func (h *histogram) quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(q*float64(h.total) + 0.5)
	if rank < 1 {
		rank = 1
	}
	if rank > h.total {
		rank = h.total
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo := histLow(i)
			hi := lo
			if i+1 < histBuckets {
				hi = histLow(i+1) - 1
			}
			mid := lo + (hi-lo)/2
			if mid > h.max {
				mid = h.max
			}
			return time.Duration(mid)
		}
	}
	return time.Duration(h.max)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
