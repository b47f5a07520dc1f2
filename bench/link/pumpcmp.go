package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/link"
)

// tunPair is two namespaces whose TUN devices this process joins through a
// pair of link pipes, without a netem testbed: the bench's own minimal wiring, used
// to compare ways of reading the TUN devices on identical wiring.
type tunPair struct {
	a, b   string
	fa, fb *os.File
}

func newTunPair() (*tunPair, error) {
	var r [3]byte
	rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	t := &tunPair{a: "sl-bench-" + id + "-a", b: "sl-bench-" + id + "-b"}
	run := func(args ...string) error {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	fail := func(err error) (*tunPair, error) { t.close(); return nil, err }
	for _, ns := range []struct {
		name        string
		local, peer string
		f           **os.File
	}{{t.a, "10.202.0.1", "10.202.0.2", &t.fa}, {t.b, "10.202.0.2", "10.202.0.1", &t.fb}} {
		if err := run("netns", "add", ns.name); err != nil {
			return fail(err)
		}
		if err := in(ns.name, func() (err error) { *ns.f, err = netem.OpenTUN("sl0"); return }); err != nil {
			return fail(err)
		}
		for _, c := range [][]string{
			{"-n", ns.name, "addr", "add", ns.local, "peer", ns.peer, "dev", "sl0"},
			{"-n", ns.name, "link", "set", "sl0", "up"}, {"-n", ns.name, "link", "set", "lo", "up"},
		} {
			if err := run(c...); err != nil {
				return fail(err)
			}
		}
	}
	return t, nil
}

func (t *tunPair) close() {
	for _, f := range []*os.File{t.fa, t.fb} {
		if f != nil {
			f.Close()
		}
	}
	exec.Command("ip", "netns", "del", t.a).Run()
	exec.Command("ip", "netns", "del", t.b).Run()
}

// pingThrough wires the pair with two pipes of rtt/2 each, reading the TUN
// devices either with link.Pump or with a goroutine per device reading the
// *os.File (Go's poller), and pings across.
func pingThrough(t *tunPair, rtt time.Duration, usePump bool, count int) ([]time.Duration, error) {
	mk := func(name string, to *os.File) (*link.Pipe, error) {
		p, err := link.NewPipe(name, link.DirConfig{Delay: rtt / 2}, func(pkt []byte) error { _, err := to.Write(pkt); return err })
		if err != nil {
			return nil, err
		}
		return p, p.Start()
	}
	up, err := mk("up", t.fb)
	if err != nil {
		return nil, err
	}
	defer up.Close()
	down, err := mk("down", t.fa)
	if err != nil {
		return nil, err
	}
	defer down.Close()
	if usePump {
		pa, err := link.StartPump(t.fa, func([]byte) *link.Pipe { return up })
		if err != nil {
			return nil, err
		}
		defer pa.Close()
		pb, err := link.StartPump(t.fb, func([]byte) *link.Pipe { return down })
		if err != nil {
			return nil, err
		}
		defer pb.Close()
	} else {
		// The goroutines end when close() closes the files.
		for _, x := range []struct {
			f *os.File
			p *link.Pipe
		}{{t.fa, up}, {t.fb, down}} {
			go func() {
				buf := make([]byte, 65535)
				for {
					n, err := x.f.Read(buf)
					if err != nil {
						return
					}
					x.p.Enqueue(buf[:n])
				}
			}()
		}
	}
	rtts, err := icmpPing(func(fn func() error) error { return in(t.a, fn) }, netip.MustParseAddr("10.202.0.2"), count, 10*time.Millisecond)
	for _, p := range []*link.Pipe{up, down} {
		tm := p.Timing()
		fmt.Fprintf(os.Stderr, "pump=%v %s: delay line rt=%v %s late p50 %v p99 %v max %v over %d packets\n",
			usePump, p.Name(), tm.RealTime, tm.RealTimeErr, tm.LateP50, tm.LateP99, tm.LateMax, tm.Packets)
	}
	return rtts, err
}

func (b *bench) pumpCompare() error {
	fmt.Println("## Reading the TUN devices: link.Pump (SCHED_FIFO thread, poll) vs a goroutine reading *os.File")
	fmt.Println()
	fmt.Println("Two namespaces, TUN in each, two link pipes of 10 ms (RTT 20 ms), no netem; ICMP echo, alternating modes.")
	fmt.Println()
	fmt.Println("| reader | pings | mean error | p50 | p99 | max |")
	fmt.Println("|---|---|---|---|---|---|")
	count := 300
	if b.quick {
		count = 60
	}
	rtt := 20 * time.Millisecond
	res := map[bool][]float64{}
	for rep := 0; rep < b.reps && b.ctx.Err() == nil; rep++ {
		for _, usePump := range []bool{true, false} {
			t, err := newTunPair()
			if err != nil {
				return err
			}
			rtts, err := pingThrough(t, rtt, usePump, count)
			t.close()
			if err != nil {
				return err
			}
			for _, r := range rtts {
				res[usePump] = append(res[usePump], msf(r-rtt))
			}
		}
	}
	for _, usePump := range []bool{true, false} {
		e := res[usePump]
		sort.Float64s(e)
		name := "goroutine + os.File"
		if usePump {
			name = "link.Pump"
		}
		fmt.Printf("| %s | %d | %+.3f ms | %+.3f ms | %+.3f ms | %+.3f ms |\n", name, len(e), stats.Mean(e), stats.QuantileSorted(e, 0.5), stats.QuantileSorted(e, 0.99), e[len(e)-1])
	}
	fmt.Println()
	return nil
}
