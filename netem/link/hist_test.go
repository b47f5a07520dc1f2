package link

import (
	"math"
	"testing"
	"time"
)

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	// 1..1000 ms, one sample each.
	for i := 1; i <= 1000; i++ {
		h.record(int64(i) * int64(time.Millisecond))
	}
	for _, c := range []struct {
		q    float64
		want float64 // ms
	}{{0.5, 500}, {0.95, 950}, {0.99, 990}, {1, 1000}} {
		got := ms(h.quantile(c.q))
		if math.Abs(got-c.want) > c.want/64+0.001 {
			t.Errorf("q%.2f = %.3f ms, want %.0f within 1/64", c.q, got, c.want)
		}
	}
	if time.Duration(h.max) != time.Second {
		t.Errorf("max %v, want 1s exactly", time.Duration(h.max))
	}
	h.reset()
	if h.quantile(0.5) != 0 || h.total != 0 {
		t.Error("reset histogram is not empty")
	}
}

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	// Each value falls in a bucket whose range contains it, and buckets are
	// ordered, across small, large and out-of-range values.
	prev := -1
	for _, v := range []int64{0, 1, 63, 64, 65, 127, 128, 1000, 1 << 20, 123456789, 1<<40 - 1} {
		i := histIndex(v)
		if i < prev || i >= histBuckets {
			t.Fatalf("index of %d is %d (previous %d)", v, i, prev)
		}
		prev = i
		lo := histLow(i)
		hi := int64(math.MaxInt64)
		if i+1 < histBuckets {
			hi = histLow(i + 1)
		}
		if v < lo || v >= hi {
			t.Errorf("value %d in bucket %d covering [%d,%d)", v, i, lo, hi)
		}
	}
	if histIndex(1<<50) != histBuckets-1 || histIndex(-5) != 0 {
		t.Error("out-of-range values must clamp to the end buckets")
	}
}

func TestHistogramSmallSamples(t *testing.T) {
	var h histogram
	h.record(int64(60 * time.Millisecond))
	if got := h.quantile(0.5); got > 60*time.Millisecond || got < 59*time.Millisecond {
		t.Errorf("single sample median %v", got)
	}
}
