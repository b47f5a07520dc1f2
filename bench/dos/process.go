package main

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// The servers a class is played against, each a fresh process.
const (
	spdylabOn  = "spdylab limits on"
	spdylabOff = "spdylab limits off"
	nodeSPDY   = "node-spdy"
)

type procBench struct {
	bin, nodeDir string
	d            time.Duration
	capBytes     uint64
	servers      []string
	idle         map[string][]float64 // idle RSS (MiB) before each attack, per server
}

type row struct {
	class, server            string
	peak, cpu, during, after string
	ended                    string
}

func (r row) String() string {
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |", r.class, r.server, r.peak, r.cpu, r.during, r.after, r.ended)
}

const tableHeader = "| class | server | peak RSS MiB | CPU % | served during | served after | how the session ended |\n|---|---|---|---|---|---|---|"

// start runs the server for one attack: the limits' defaults, the flags
// that turn the class's limit off, or node-spdy.
func (b *procBench) start(a attack, server string) (*serverProc, targets, error) {
	switch server {
	case spdylabOn:
		p, err := startSpdylab(b.bin, nil)
		return p, spdylabTargets, err
	case spdylabOff:
		p, err := startSpdylab(b.bin, a.offFlags)
		return p, spdylabTargets, err
	case nodeSPDY:
		p, err := startNode(b.nodeDir)
		return p, nodeTargets, err
	}
	return nil, targets{}, fmt.Errorf("unknown server %q", server)
}

// run plays one class against one fresh server process and measures it.
func (b *procBench) run(a attack, server string) row {
	r := row{class: a.name, server: server, peak: "-", cpu: "-", during: "-", after: "-"}
	if server == spdylabOff && a.offFlags == nil {
		r.ended = "not measured: " + a.limit + " has no flag"
		return r
	}
	p, t, err := b.start(a, server)
	if err != nil {
		r.ended = "server did not start: " + err.Error()
		return r
	}
	defer p.stop()
	pid := p.pid()
	time.Sleep(500 * time.Millisecond) // let it settle
	if idle, err := rssBytes(pid); err == nil {
		b.idle[server] = append(b.idle[server], float64(idle)/(1<<20))
	}
	abort := make(chan struct{})
	var capped atomic.Bool
	smp := startSampler(pid, b.capBytes, func() { capped.Store(true); close(abort) })
	cpu0, err0 := cpuTime(pid)
	t0 := time.Now()
	stopProbes, during := make(chan struct{}), make(chan probes, 1)
	go func() { during <- probeDuring(p.addr, stopProbes) }()
	if a.conns > 0 {
		r.ended = attackConns(a, p.addr, b.d, abort)
	} else {
		r.ended = attackStream(a, t, p.addr, b.d, abort)
	}
	wall := time.Since(t0)
	cpu1, err1 := cpuTime(pid)
	close(stopProbes)
	r.during = (<-during).String()
	r.after = servedAfter(p.addr)
	peak := float64(smp.finish()) / (1 << 20)
	r.peak = fmt.Sprintf("%.1f", peak)
	if err0 == nil && err1 == nil {
		r.cpu = fmt.Sprintf("%.0f", 100*(cpu1-cpu0).Seconds()/wall.Seconds())
	}
	if capped.Load() {
		r.peak = fmt.Sprintf("> %.0f", float64(b.capBytes)/(1<<20))
		r.ended += fmt.Sprintf("; attack stopped at the RSS cap after %.1f s", wall.Seconds())
	}
	if !p.alive() {
		r.ended += "; server process exited: " + oneLine(p.stderr.String())
	}
	return r
}

// oneLine squeezes a process's stderr tail into a table cell.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = "..." + s[len(s)-160:]
	}
	return strings.ReplaceAll(s, "|", "/")
}

// main plays every class against each server and prints the table.
func (b *procBench) main(as []attack) {
	fmt.Println(tableHeader)
	for _, a := range as {
		for _, server := range b.servers {
			fmt.Fprintf(os.Stderr, "dos: %s against %s ...\n", a.name, server)
			r := b.run(a, server)
			fmt.Println(r)
			os.Stdout.Sync()
		}
	}
	fmt.Println()
	for _, server := range b.servers {
		if v := b.idle[server]; len(v) > 0 {
			lo, hi := v[0], v[0]
			for _, x := range v {
				lo, hi = min(lo, x), max(hi, x)
			}
			fmt.Printf("Idle RSS of %s before the attacks: %.1f-%.1f MiB.\n", server, lo, hi)
		}
	}
}
