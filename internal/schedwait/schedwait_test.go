package schedwait

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestBetweenQuantilesFromBuckets(t *testing.T) {
	buckets := []float64{math.Inf(-1), 0, 0.001, 0.002, 0.004, math.Inf(1)}
	for _, tc := range []struct {
		name     string
		a, b     []uint64
		p50, p99 float64
		samples  uint64
	}{
		{"no samples between", []uint64{0, 5, 5, 0, 0}, []uint64{0, 5, 5, 0, 0}, 0, 0, 0},
		{"all under a millisecond", []uint64{0, 0, 0, 0, 0}, []uint64{0, 100, 0, 0, 0}, 1, 1, 100},
		{"a tail in the last bounded bucket", []uint64{0, 0, 0, 0, 0}, []uint64{0, 90, 8, 2, 0}, 1, 4, 100},
		{"only the difference counts", []uint64{0, 0, 0, 50, 0}, []uint64{0, 100, 0, 50, 0}, 1, 1, 100},
		{"the unbounded bucket reads as its lower edge", []uint64{0, 0, 0, 0, 0}, []uint64{0, 50, 0, 0, 50}, 1, 4, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Between(Snapshot{tc.a, buckets}, Snapshot{tc.b, buckets})
			if w.P50ms != tc.p50 || w.P99ms != tc.p99 || w.Samples != tc.samples {
				t.Errorf("got %+v, want p50 %v p99 %v samples %d", w, tc.p50, tc.p99, tc.samples)
			}
		})
	}
}

func TestBetweenMismatchedSnapshotsGiveNothing(t *testing.T) {
	b := []float64{0, 0.001, 0.002}
	if w := Between(Snapshot{[]uint64{1}, b[:2]}, Snapshot{[]uint64{1, 2}, b}); w != (Wait{}) {
		t.Errorf("got %+v from snapshots of different shapes", w)
	}
	if w := Between(Snapshot{}, Snapshot{}); w != (Wait{}) {
		t.Errorf("got %+v from empty snapshots", w)
	}
}

// TestSinceSeesCPUContention runs more busy goroutines than GOMAXPROCS
// beside goroutines that sleep and wake: the wakers must wait for a CPU,
// which Since must show well above what the wakers alone show.
func TestSinceSeesCPUContention(t *testing.T) {
	wakeLoop := func(stop <-chan struct{}) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}
	measure := func(spinners int) Wait {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); wakeLoop(stop) }()
		}
		for i := 0; i < spinners; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						spin()
					}
				}
			}()
		}
		s := Take()
		time.Sleep(300 * time.Millisecond)
		w := Since(s)
		close(stop)
		wg.Wait()
		return w
	}
	idle := measure(0)
	busy := measure(4 * runtime.GOMAXPROCS(0))
	if busy.Samples == 0 || idle.Samples == 0 {
		t.Fatalf("no samples: idle %+v busy %+v", idle, busy)
	}
	// Busy goroutines run until preempted (about 10 ms each), so a woken
	// goroutine queued behind them waits milliseconds; alone it waits
	// microseconds.
	if busy.P99ms < 1 || busy.P99ms <= idle.P99ms {
		t.Errorf("p99 wait idle %.3f ms, beside %d spinners %.3f ms: contention not seen", idle.P99ms, 4*runtime.GOMAXPROCS(0), busy.P99ms)
	}
}

//go:noinline
func spin() {
	x := 0
	for i := 0; i < 1e5; i++ {
		x += i
	}
	sink = x
}

var sink int
