package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// pltOverhead loads a page of small objects (Study 1 page A, 102 resources)
// through a 0 ms unlimited emulated testbed and through loopback with no
// emulator at all, alternating, and compares the median PLTs. Loopback is
// faster than any veth, so this bounds the emulator's overhead from above.
func (b *bench) pltOverhead() error {
	fmt.Println("## Overhead on a page load: 0 ms unlimited testbed vs loopback without emulator (pageA, cold loads)")
	fmt.Println()
	work, err := os.MkdirTemp("", "linkbench-plt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	cond := probe.Condition{Page: "pageA", Shards: 1, TLS: "1.3"}
	opt := harness.Options{WorkDir: work, Seed: 1}
	emu, err := harness.Open(b.ctx, cond, opt)
	if err != nil {
		return err
	}
	defer emu.Close()
	cond.NoLink = true
	lo, err := harness.Open(b.ctx, cond, opt)
	if err != nil {
		return err
	}
	defer lo.Close()

	runs := 40
	if b.quick {
		runs = 8
	}
	fmt.Println("| protocol | path | loads | median PLT | p90 PLT |")
	fmt.Println("|---|---|---|---|---|")
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
		plt := map[string][]float64{}
		for i := 0; i < runs && b.ctx.Err() == nil; i++ {
			for _, side := range []struct {
				name string
				h    *harness.Bench
			}{{"testbed", emu}, {"loopback", lo}} {
				r := side.h.Load(b.ctx, proto, i)
				if r.Failed {
					return fmt.Errorf("%s %s load %d: %s", proto, side.name, i, r.Error)
				}
				plt[side.name] = append(plt[side.name], r.PLTms)
			}
		}
		for _, name := range []string{"loopback", "testbed"} {
			v := plt[name]
			sort.Float64s(v)
			fmt.Printf("| %s | %s | %d | %.2f ms | %.2f ms |\n", proto, name, len(v), stats.QuantileSorted(v, 0.5), stats.QuantileSorted(v, 0.9))
		}
		d := stats.QuantileSorted(plt["testbed"], 0.5) - stats.QuantileSorted(plt["loopback"], 0.5)
		fmt.Printf("| %s | difference | | %+.2f ms (%+.1f%%) | |\n", proto, d, 100*d/stats.QuantileSorted(plt["loopback"], 0.5))
	}
	fmt.Println()
	return nil
}
