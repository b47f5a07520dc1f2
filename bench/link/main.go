// Command linkbench measures spdylab's emulated network: how closely a
// netem testbed driven by the netem/link emulator delivers the configured
// RTT, rate, loss and queue, its throughput ceiling, its CPU cost, that the
// initial congestion window knob reaches the wire, and its overhead over a
// plain veth. It needs root (it builds testbeds) and prints a Markdown
// report; bench/link/run.sh runs it with the settings BENCHMARKS.md quotes.
//
//	go run ./bench/link [-only rtt,rttproc,pump,goodput,ceiling,loss,cpu,queue,initcwnd,overhead,plt] [-reps N] [-quick]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "_tcp" {
		os.Exit(endpointMain(os.Args[2:]))
	}
	only := flag.String("only", "rtt,pump,goodput,ceiling,loss,cpu,queue,initcwnd,overhead,plt", "comma-separated scenarios to run")
	reps := flag.Int("reps", 3, "repetitions of each measurement (medians are reported)")
	quick := flag.Bool("quick", false, "shorter transfers (for trying the tool, not for BENCHMARKS.md)")
	busy := flag.Int("busy", 4, "rttproc: CPU-burning goroutines in this process for the busy rows")
	rates := flag.String("rates", "64kbit,1mbit,10mbit,20mbit,100mbit", "goodput: link rates to measure")
	flag.Parse()
	var rateList []int64
	for _, r := range strings.Split(*rates, ",") {
		bps, err := units.ParseRate(r)
		if err != nil || bps == 0 {
			fmt.Fprintf(os.Stderr, "linkbench: -rates: %v\n", err)
			os.Exit(2)
		}
		rateList = append(rateList, bps)
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "linkbench: needs root (it builds network namespaces and TUN devices)")
		os.Exit(1)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkbench:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := &bench{ctx: ctx, self: self, reps: *reps, quick: *quick, rates: rateList, busy: *busy}

	scenarios := map[string]func() error{
		"rtt": b.rtt, "goodput": b.goodput, "ceiling": b.ceiling, "loss": b.loss,
		"cpu": b.cpu, "queue": b.queue, "initcwnd": b.initcwnd, "overhead": b.overhead, "pump": b.pumpCompare, "plt": b.pltOverhead,
		"rttproc": b.rttProc,
	}
	fmt.Printf("# linkbench %s, %d CPUs, %s, load average at start: %s\n\n",
		time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runtime.Version(), loadavg())
	status := 0
	for _, name := range strings.Split(*only, ",") {
		run, ok := scenarios[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(os.Stderr, "linkbench: unknown scenario %q\n", name)
			os.Exit(2)
		}
		if err := run(); err != nil {
			fmt.Fprintf(os.Stderr, "linkbench: %s: %v\n", name, err)
			status = 1
		}
		if ctx.Err() != nil {
			break
		}
	}
	b.closeAll()
	fmt.Printf("\nload average at end: %s\n", loadavg())
	os.Exit(status)
}

type bench struct {
	ctx   context.Context
	self  string
	reps  int
	quick bool
	rates []int64
	busy  int

	mu   sync.Mutex
	beds []*netem.Testbed
}

// open builds a one-server testbed and remembers it so an interrupt still
// removes it.
func (b *bench) open(l probe.Link, tcp probe.TCP) (*netem.Testbed, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	l.Shared = true
	return b.openConfig(netem.Config{Shards: 1, Link: l, TCP: tcp})
}

// openConfig builds a testbed from cfg and remembers it.
func (b *bench) openConfig(cfg netem.Config) (*netem.Testbed, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	tb, err := netem.New(b.ctx, cfg)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.beds = append(b.beds, tb)
	b.mu.Unlock()
	return tb, nil
}

func (b *bench) close(tb *netem.Testbed) {
	tb.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.beds = slices.DeleteFunc(b.beds, func(x *netem.Testbed) bool { return x == tb })
}

func (b *bench) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, tb := range b.beds {
		tb.Close()
	}
	b.beds = nil
}

// tcpTransfer runs a bulk transfer between subprocess endpoints in the
// client and server namespaces. down: the server sends.
func (b *bench) tcpTransfer(tb *netem.Testbed, down bool, warm, dur time.Duration, cc string) (tcpResult, error) {
	srv := tb.Servers()[0]
	srvArgs := []string{"_tcp", "-listen", ":5001", "-warm", warm.String(), "-dur", dur.String(), "-cc", cc}
	cliArgs := []string{"_tcp", "-connect", srv.HostPort(5001), "-warm", warm.String(), "-dur", dur.String(), "-cc", cc}
	if down {
		srvArgs = append(srvArgs, "-send")
	} else {
		cliArgs = append(cliArgs, "-send")
	}
	return b.runPair(tb, srvArgs, cliArgs, !down) // the sender reports
}

func (b *bench) runPair(tb *netem.Testbed, srvArgs, cliArgs []string, clientReports bool) (tcpResult, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Minute)
	defer cancel()
	srvCmd := tb.Servers()[0].Command(ctx, b.self, srvArgs...)
	srvOut, err := srvCmd.StdoutPipe()
	if err != nil {
		return tcpResult{}, err
	}
	var srvErr strings.Builder
	srvCmd.Stderr = &srvErr
	if err := srvCmd.Start(); err != nil {
		return tcpResult{}, err
	}
	defer srvCmd.Wait()
	defer srvCmd.Process.Kill()
	rd := bufio.NewReader(srvOut)
	line, err := rd.ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		return tcpResult{}, fmt.Errorf("server endpoint did not start: %q %v %s", line, err, srvErr.String())
	}
	cliCmd := tb.Client().Command(ctx, b.self, cliArgs...)
	var cliErr strings.Builder
	cliCmd.Stderr = &cliErr
	cliOut, err := cliCmd.Output()
	if err != nil {
		return tcpResult{}, fmt.Errorf("client endpoint: %v: %s", err, cliErr.String())
	}
	out := cliOut
	if !clientReports {
		rest, _ := readAll(rd)
		out = rest
	}
	var r tcpResult
	if err := json.Unmarshal(out, &r); err != nil {
		return tcpResult{}, fmt.Errorf("endpoint result %q: %v (%s%s)", out, err, cliErr.String(), srvErr.String())
	}
	return r, nil
}

func readAll(r *bufio.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out, nil
		}
	}
}

// ---- scenarios ----

func (b *bench) rtt() error {
	fmt.Println("## RTT accuracy (ICMP echo, client -> server kernel, kernel receive timestamps)")
	fmt.Println()
	fmt.Println("| configured RTT | pings | mean error | p50 error | p99 error | max error |")
	fmt.Println("|---|---|---|---|---|---|")
	count := 300
	if b.quick {
		count = 50
	}
	for _, rtt := range []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond, 490 * time.Millisecond} {
		var errs []float64
		for rep := 0; rep < b.reps; rep++ {
			tb, err := b.open(probe.Link{RTT: rtt}, probe.TCP{})
			if err != nil {
				return err
			}
			rtts, err := icmpPing(tb.Client().Do, tb.Servers()[0].Addr, count, 10*time.Millisecond)
			b.close(tb)
			if err != nil {
				return err
			}
			for _, r := range rtts {
				errs = append(errs, msf(r-rtt))
			}
		}
		sort.Float64s(errs)
		fmt.Printf("| %v | %d | %+.3f ms | %+.3f ms | %+.3f ms | %+.3f ms |\n", rtt, len(errs), stats.Mean(errs),
			stats.QuantileSorted(errs, 0.5), stats.QuantileSorted(errs, 0.99), errs[len(errs)-1])
	}
	fmt.Println()
	return nil
}

// payloadCapacity is the TCP goodput a link of rate bit/s can carry with
// 1500-byte packets and 52 bytes of IP+TCP(+timestamps) headers.
func payloadCapacity(rate int64) float64 { return float64(rate) * 1448 / 1500 }

// queueFor is a droptail limit of twice the bandwidth-delay product (at
// least 20 packets), enough for CUBIC to keep the link busy.
func queueFor(rate int64, rtt time.Duration) int {
	bdp := float64(rate) * rtt.Seconds() / 8 / 1500
	return max(20, int(math.Ceil(2*bdp)))
}

func (b *bench) goodput() error {
	fmt.Println("## TCP goodput vs link payload capacity (CUBIC, RTT 40 ms, droptail 2xBDP; unlimited below 1 Mbit/s)")
	fmt.Println()
	fmt.Println("| rate | direction | goodput (median) | runs | % of payload capacity (median, min) | emulator queue drops | TUN drops |")
	fmt.Println("|---|---|---|---|---|---|---|")
	rtt := 40 * time.Millisecond
	for _, rate := range b.rates {
		warm, dur := 2*time.Second, 6*time.Second
		switch {
		case rate < 1_000_000:
			warm, dur = 6*time.Second, 30*time.Second
		case rate < 10_000_000:
			warm, dur = 3*time.Second, 10*time.Second
		}
		if b.quick {
			warm, dur = warm/2, dur/3
		}
		for _, down := range []bool{true, false} {
			var gps []float64
			var qdrops, tdrops []string
			for rep := 0; rep < b.reps; rep++ {
				q := queueFor(rate, rtt)
				if rate < 1_000_000 {
					// Below 1 Mbit/s twice the BDP is under one packet, and with
					// a small queue CUBIC's losses leave holes whose recovery
					// delivers a second of data at once: a window edge inside a
					// hole swings the count by ±10%. An unlimited queue keeps
					// the flow loss-free, which measures the link, not TCP.
					q = 0
				}
				tb, err := b.open(probe.Link{DownBps: rate, UpBps: rate, RTT: rtt, QueuePkts: q}, probe.TCP{CC: "cubic"})
				if err != nil {
					return err
				}
				r, err := b.tcpTransfer(tb, down, warm, dur, "cubic")
				ctr := tb.Counters()
				tun := tunDrops(tb)
				b.close(tb)
				if err != nil {
					return err
				}
				gps = append(gps, r.GoodputBps)
				dir := ctr.Up
				if down {
					dir = ctr.Down
				}
				qdrops = append(qdrops, fmt.Sprint(dir.PktsQueueDrop))
				tdrops = append(tdrops, fmt.Sprint(tun))
			}
			sort.Float64s(gps)
			capacity := payloadCapacity(rate)
			fmt.Printf("| %s | %s | %.4g Mbit/s | %s | %.1f%%, %.1f%% | %s | %s |\n", fmtRate(rate), dirName(down), stats.Median(gps)/1e6,
				joinf(gps, 1e6, "%.4g"), 100*stats.Median(gps)/capacity, 100*gps[0]/capacity,
				strings.Join(qdrops, ", "), strings.Join(tdrops, ", "))
		}
	}
	fmt.Println()
	return nil
}

func (b *bench) ceiling() error {
	fmt.Println("## Throughput ceiling (CUBIC bulk download, no rate limit, unlimited queue)")
	fmt.Println()
	fmt.Println("| link | goodput (median) | runs |")
	fmt.Println("|---|---|---|")
	warm, dur := 1*time.Second, 5*time.Second
	if b.quick {
		dur = 2 * time.Second
	}
	for _, c := range []struct {
		name string
		l    probe.Link
	}{
		{"unlimited, 0 ms", probe.Link{}},
		{"unlimited, 10 ms RTT", probe.Link{RTT: 10 * time.Millisecond}},
		{"1gbit, 0 ms", probe.Link{DownBps: 1e9, UpBps: 1e9}},
	} {
		var gps []float64
		for rep := 0; rep < b.reps; rep++ {
			tb, err := b.open(c.l, probe.TCP{CC: "cubic"})
			if err != nil {
				return err
			}
			r, err := b.tcpTransfer(tb, true, warm, dur, "cubic")
			b.close(tb)
			if err != nil {
				return err
			}
			gps = append(gps, r.GoodputBps)
		}
		sort.Float64s(gps)
		fmt.Printf("| %s | %.3f Gbit/s | %s |\n", c.name, stats.Median(gps)/1e9, joinf(gps, 1e9, "%.3f"))
	}
	fmt.Println()
	return nil
}

func (b *bench) loss() error {
	fmt.Println("## Random loss (UDP datagrams through a 0 ms unlimited link)")
	fmt.Println()
	fmt.Println("| direction | configured | sent | received | observed loss | 95% binomial interval | inside | emulator lost / offered |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	n := 20000
	if b.quick {
		n = 5000
	}
	for _, c := range []struct {
		down bool
		p    float64
	}{{false, 0.01}, {true, 0.05}, {false, 0.10}} {
		for rep := 0; rep < b.reps; rep++ {
			l := probe.Link{Seed: int64(rep + 1)}
			if c.down {
				l.LossDown = c.p
			} else {
				l.LossUp = c.p
			}
			tb, err := b.open(l, probe.TCP{})
			if err != nil {
				return err
			}
			recv, err := udpCount(tb, c.down, n)
			ctr := tb.Counters()
			b.close(tb)
			if err != nil {
				return err
			}
			dir := ctr.Up
			if c.down {
				dir = ctr.Down
			}
			obs := 1 - float64(recv)/float64(n)
			half := 1.96 * math.Sqrt(c.p*(1-c.p)/float64(n))
			inside := math.Abs(obs-c.p) <= half
			fmt.Printf("| %s | %.0f%% | %d | %d | %.3f%% | %.3f%%..%.3f%% | %v | %d / %d |\n", dirName(c.down), 100*c.p, n, recv,
				100*obs, 100*(c.p-half), 100*(c.p+half), inside, dir.PktsLost, dir.PktsOffered)
		}
	}
	fmt.Println()
	return nil
}

func (b *bench) cpu() error {
	fmt.Println("## Emulator CPU at 20 Mbit/s (CUBIC bulk download, RTT 40 ms; TCP endpoints in other processes)")
	fmt.Println()
	fmt.Println("| run | goodput | emulator CPU (user+sys) | CPU per Mbit/s |")
	fmt.Println("|---|---|---|---|")
	warm, dur := 2*time.Second, 10*time.Second
	if b.quick {
		dur = 4 * time.Second
	}
	rate := int64(20_000_000)
	rtt := 40 * time.Millisecond
	for rep := 0; rep < b.reps; rep++ {
		// In-process, so getrusage of this process counts the emulator.
		tb, err := b.openConfig(netem.Config{Shards: 1, InProcessEmulator: true, TCP: probe.TCP{CC: "cubic"},
			Link: probe.Link{DownBps: rate, UpBps: rate, RTT: rtt, QueuePkts: queueFor(rate, rtt), Shared: true}})
		if err != nil {
			return err
		}
		before, t0 := rusage(), time.Now()
		r, err := b.tcpTransfer(tb, true, warm, dur, "cubic")
		cpu, wall := rusage()-before, time.Since(t0)
		b.close(tb)
		if err != nil {
			return err
		}
		frac := cpu.Seconds() / wall.Seconds()
		fmt.Printf("| %d | %.2f Mbit/s | %.1f%% of one core | %.2f%% |\n", rep+1, r.GoodputBps/1e6, 100*frac, 100*frac/(r.GoodputBps/1e6))
	}
	fmt.Println()
	return nil
}

func (b *bench) queue() error {
	fmt.Println("## Droptail queue: 50 packets at 10 Mbit/s, RTT 40 ms, one CUBIC bulk download")
	fmt.Println()
	fmt.Println("| run | goodput | down offered | queue drops | qdelay p50 | p95 | p99 | max |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	warm, dur := 2*time.Second, 10*time.Second
	if b.quick {
		dur = 4 * time.Second
	}
	for rep := 0; rep < b.reps; rep++ {
		tb, err := b.open(probe.Link{DownBps: 10e6, UpBps: 10e6, RTT: 40 * time.Millisecond, QueuePkts: 50}, probe.TCP{CC: "cubic"})
		if err != nil {
			return err
		}
		tb.ResetCounters()
		r, err := b.tcpTransfer(tb, true, warm, dur, "cubic")
		c := tb.Counters().Down
		b.close(tb)
		if err != nil {
			return err
		}
		fmt.Printf("| %d | %.2f Mbit/s | %d | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms |\n", rep+1, r.GoodputBps/1e6,
			c.PktsOffered, c.PktsQueueDrop, c.QDelayP50ms, c.QDelayP95ms, c.QDelayP99ms, c.QDelayMaxms)
	}
	fmt.Println()
	return nil
}

func (b *bench) initcwnd() error {
	fmt.Println("## initcwnd on the wire (tcpdump in the server namespace, 100 KB response, RTT 100 ms)")
	fmt.Println()
	fmt.Println("| initcwnd | run | first flight (bytes) | first flight (1448-byte segments) | second flight (segments) |")
	fmt.Println("|---|---|---|---|---|")
	for _, iw := range []int{3, 10} {
		for rep := 0; rep < b.reps; rep++ {
			tb, err := b.open(probe.Link{RTT: 100 * time.Millisecond}, probe.TCP{IW: iw, CC: "cubic"})
			if err != nil {
				return err
			}
			flights, err := b.captureFlights(tb, 100_000, 100*time.Millisecond)
			b.close(tb)
			if err != nil {
				return err
			}
			second := 0
			if len(flights) > 1 {
				second = segs(flights[1])
			}
			fmt.Printf("| %d | %d | %d | %d | %d |\n", iw, rep+1, flights[0], segs(flights[0]), second)
		}
	}
	fmt.Println()
	return nil
}

func segs(bytes int) int { return (bytes + 1447) / 1448 }

// captureFlights runs tcpdump on the server's veth while the client fetches
// n bytes, and groups the server's data bytes into flights separated by
// gaps of more than half an RTT.
func (b *bench) captureFlights(tb *netem.Testbed, n int64, rtt time.Duration) ([]int, error) {
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	srv := tb.Servers()[0]
	dump := srv.Command(ctx, "tcpdump", "-i", "eth0", "-nn", "-tt", "-l", "-s", "128", "tcp and src port 5001")
	out, err := dump.StdoutPipe()
	if err != nil {
		return nil, err
	}
	dumpErr, err := dump.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := dump.Start(); err != nil {
		return nil, fmt.Errorf("tcpdump: %w", err)
	}
	// Wait until tcpdump says it is listening.
	sc := bufio.NewScanner(dumpErr)
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	var lines []string
	linesDone := make(chan struct{})
	go func() {
		defer close(linesDone)
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines = append(lines, s.Text())
		}
	}()
	_, err = b.runPair(tb,
		[]string{"_tcp", "-listen", ":5001", "-send", "-bytes", fmt.Sprint(n)},
		[]string{"_tcp", "-connect", srv.HostPort(5001), "-bytes", fmt.Sprint(n)}, true)
	time.Sleep(200 * time.Millisecond) // let tcpdump print the last packets
	dump.Process.Signal(os.Interrupt)
	<-linesDone
	dump.Wait()
	if err != nil {
		return nil, err
	}
	var flights []int
	var last float64
	for _, l := range lines {
		var ts float64
		if _, err := fmt.Sscanf(l, "%f", &ts); err != nil {
			continue
		}
		i := strings.LastIndex(l, "length ")
		if i < 0 {
			continue
		}
		var length int
		fmt.Sscanf(l[i+len("length "):], "%d", &length)
		if length == 0 {
			continue
		}
		if len(flights) == 0 || ts-last > rtt.Seconds()/2 {
			flights = append(flights, 0)
		}
		flights[len(flights)-1] += length
		last = ts
	}
	if len(flights) == 0 {
		return nil, errors.New("tcpdump saw no data from the server")
	}
	return flights, nil
}

func (b *bench) overhead() error {
	return overheadScenario(b)
}

// ---- helpers ----

// tunDrops is how many packets the kernel dropped at the testbed's TUN
// devices (client and router) because the emulator did not read them in
// time: losses the emulator neither caused nor counted.
func tunDrops(tb *netem.Testbed) uint64 {
	client := tb.Client().Namespace()
	router := strings.TrimSuffix(client, "-c") + "-r"
	var total uint64
	for _, ns := range []string{client, router} {
		out, err := exec.Command("ip", "-n", ns, "-s", "-j", "link", "show", "sl0").Output()
		if err != nil {
			continue
		}
		var links []struct {
			Stats64 struct {
				TX struct {
					Dropped uint64 `json:"dropped"`
				} `json:"tx"`
			} `json:"stats64"`
		}
		if json.Unmarshal(out, &links) == nil && len(links) == 1 {
			total += links[0].Stats64.TX.Dropped
		}
	}
	return total
}

func dirName(down bool) string {
	if down {
		return "down"
	}
	return "up"
}

func fmtRate(bps int64) string {
	switch {
	case bps >= 1e6:
		return fmt.Sprintf("%g Mbit/s", float64(bps)/1e6)
	default:
		return fmt.Sprintf("%g kbit/s", float64(bps)/1e3)
	}
}

func msf(d time.Duration) float64 { return float64(d) / 1e6 }

func joinf(v []float64, div float64, f string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(f, x/div)
	}
	return strings.Join(s, ", ")
}

func rusage() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
