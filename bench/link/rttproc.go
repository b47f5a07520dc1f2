package main

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

// rttProc compares the RTT error with the emulator in this process
// (netem.Config.InProcessEmulator) and in its own child process (netem's
// default), at 20 and 100 ms, once with this process idle and once while
// b.busy goroutines burn CPU and allocate (so GC runs) in it, the way a
// page loader and TLS servers keep the harness's Ps busy. Testbeds of the
// two kinds alternate, so machine load drifts hit both alike.
func (b *bench) rttProc() error {
	fmt.Printf("## RTT error: emulator in-process vs own process (ICMP echo, kernel receive timestamps; busy = %d CPU+allocation goroutines in the bench process, GOMAXPROCS %d)\n\n",
		b.busy, runtime.GOMAXPROCS(0))
	fmt.Println("| this process | configured RTT | emulator | pings | mean error | p50 error | p99 error | max error |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	count := 300
	if b.quick {
		count = 50
	}
	for _, busy := range []int{0, b.busy} {
		load := "idle"
		if busy > 0 {
			load = fmt.Sprintf("busy (%d burners)", busy)
		}
		for _, rtt := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond} {
			errs := map[bool][]float64{}
			for rep := 0; rep < b.reps; rep++ {
				for _, inProc := range []bool{rep%2 == 0, rep%2 != 0} {
					tb, err := b.openConfig(netem.Config{Shards: 1, InProcessEmulator: inProc, Link: probe.Link{RTT: rtt, Shared: true}})
					if err != nil {
						return err
					}
					stop := startBurners(busy)
					rtts, err := icmpPing(tb.Client().Do, tb.Servers()[0].Addr, count, 10*time.Millisecond)
					stop()
					b.close(tb)
					if err != nil {
						return err
					}
					for _, r := range rtts {
						errs[inProc] = append(errs[inProc], msf(r-rtt))
					}
				}
			}
			for _, inProc := range []bool{true, false} {
				e := errs[inProc]
				sort.Float64s(e)
				where := "own process"
				if inProc {
					where = "in-process"
				}
				if len(e) == 0 {
					fmt.Printf("| %s | %v | %s | 0 | | | | |\n", load, rtt, where)
					continue
				}
				fmt.Printf("| %s | %v | %s | %d | %+.3f ms | %+.3f ms | %+.3f ms | %+.3f ms |\n", load, rtt, where, len(e),
					stats.Mean(e), stats.QuantileSorted(e, 0.5), stats.QuantileSorted(e, 0.99), e[len(e)-1])
			}
		}
	}
	fmt.Println()
	return nil
}

var burnSink []byte

// startBurners runs n goroutines that spin and allocate until stop.
func startBurners(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				buf := make([]byte, 32<<10)
				for i := range buf {
					buf[i] = byte(i * 7)
				}
				mu.Lock()
				burnSink = buf
				mu.Unlock()
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}
