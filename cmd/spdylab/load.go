package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

func init() {
	register(command{
		name:    "load",
		summary: "load a page repeatedly over an emulated link and report PLT, ToW and phases",
		run: func(args []string) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The first Ctrl-C ends the load in progress and tears the bench
			// down in order (servers, then testbed); a second one falls back
			// to netem's default: close every testbed and exit.
			var signalled atomic.Bool
			remove := netem.OnSignal(func(os.Signal) bool { return !signalled.Swap(true) })
			defer remove()
			defer netem.ClosePanicking()
			return runLoad(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// loadSummary is what `spdylab load --json` prints per protocol.
type loadSummary struct {
	Page         string           `json:"page"`
	Proto        string           `json:"proto"`
	Runs         int              `json:"runs"`
	Failed       int              `json:"failed"`
	PLTMedianMs  float64          `json:"plt_median_ms"`
	PLTP25Ms     float64          `json:"plt_p25_ms"`
	PLTP75Ms     float64          `json:"plt_p75_ms"`
	ToWMedianMs  float64          `json:"tow_median_ms"`
	ToWP25Ms     float64          `json:"tow_p25_ms"`
	ToWP75Ms     float64          `json:"tow_p75_ms"`
	PhasesMedian probe.Phases     `json:"phases_median_ms"` // median over loads of each phase summed over the load's entries
	Resources    int              `json:"resources"`        // of the last successful load
	Pushed       float64          `json:"pushed_median"`
	Connections  float64          `json:"connections_median"`
	Retransmits  float64          `json:"client_retransmits_median"` // segments the client resent (TCP_INFO is read on the client)
	QueueDrops   float64          `json:"queue_drops_median"`        // both directions
	PLTms        []float64        `json:"plt_ms"`
	ToWms        []float64        `json:"tow_ms"`
	Errors       []string         `json:"errors,omitempty"`
	Condition    probe.Condition  `json:"condition"`
	LinkCheck    *probe.LinkCheck `json:"link_check,omitempty"` // before the first load (emulated links only)
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pageName := fs.String("page", "pageA", "page: a built-in name (spdylab page list), generic:..., or a manifest.json")
	shardMode := fs.String("shard-mode", page.ShardEqual, "how resources are spread over the shards: equal or roundrobin")
	protos := fs.String("proto", probe.ProtoSPDY31, "protocol(s), comma-separated: https, spdy/3.1, spdy/3, h2 (several are interleaved load by load)")
	tlsVer := fs.String("tls", "1.2", "TLS version: 1.2 (full 2-RTT handshake, as in the studies) or 1.3")
	maxStreams := fs.Int("max-streams", 0, "server's SPDY/h2 max concurrent streams (0 = 100)")
	initWin := fs.Int("initial-window", 0, "SPDY/h2 initial stream window in bytes for server and client (0 = 64 KiB)")
	push := fs.String("push", "none", "server push policy: none, manifest or preload")
	runs := fs.Int("runs", 20, "loads per protocol")
	harDir := fs.String("har", "", "write one HAR file per load into `dir`")
	asJSON := fs.Bool("json", false, "print a JSON summary per protocol instead of tables")
	noLink := fs.Bool("no-link", false, "no emulated link: servers on 127.0.0.x in this namespace (no root needed)")
	timeout := fs.Duration("timeout", 60*time.Second, "per-load timeout")
	workDir := fs.String("work-dir", "", "where generated pages are cached (default: $TMPDIR/spdylab-work)")
	serverLog := fs.String("server-log", "", "append the servers' connection and access log to `file`")
	link := netem.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "spdylab load: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q (flags only; the page goes in --page)", fs.Arg(0))
	}
	if *runs < 1 {
		return usageErr("--runs %d: need at least 1", *runs)
	}
	if *timeout <= 0 {
		return usageErr("--timeout %v: must be positive", *timeout)
	}
	var protoList []string
	for _, p := range strings.Split(*protos, ",") {
		p = strings.TrimSpace(p)
		switch p {
		case probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoSPDY3, probe.ProtoH2:
			protoList = append(protoList, p)
		default:
			return usageErr("--proto %q: unknown protocol (want https, spdy/3.1, spdy/3 or h2)", p)
		}
	}
	cfg, err := link.Config()
	if err != nil {
		return usageErr("%v", err)
	}
	shardsSet := false
	fs.Visit(func(f *flag.Flag) { shardsSet = shardsSet || f.Name == "shards" })
	cond := probe.Condition{
		Page:          *pageName,
		Shards:        cfg.Shards,
		ShardMode:     *shardMode,
		TLS:           *tlsVer,
		MaxStreams:    *maxStreams,
		InitialWindow: *initWin,
		Push:          *push,
		DNS:           cfg.DNS && !*noLink,
		Link:          cfg.Link,
		TCP:           cfg.TCP,
		NoLink:        *noLink,
		Timeout:       *timeout,
	}
	if !shardsSet {
		cond.Shards = 0 // the page's own default (1, or its domain count)
	}
	// Check the page (and every other condition field) before building a
	// testbed, so a typo costs nothing and exits 2.
	if _, err := harness.Validate(cond, link.Seed); err != nil {
		return usageErr("%v", err)
	}
	opt := harness.Options{
		WorkDir: *workDir,
		Seed:    link.Seed,
		Timeout: *timeout,
		Testbed: func(c *netem.Config) {
			c.QueueDown, c.QueueUp, c.GEDown, c.GEUp = cfg.QueueDown, cfg.QueueUp, cfg.GEDown, cfg.GEUp
			c.PacketLog, c.PacketLogPath = cfg.PacketLog, cfg.PacketLogPath
		},
	}
	if *serverLog != "" {
		f, err := os.OpenFile(*serverLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "spdylab load: --server-log: %v\n", err)
			return 1
		}
		defer f.Close()
		opt.ServerLog = f
	}
	if *harDir != "" {
		if err := os.MkdirAll(*harDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "spdylab load: --har: %v\n", err)
			return 1
		}
	}
	bench, err := harness.Open(ctx, cond, opt)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab load: %v\n", err)
		return 1
	}
	defer bench.Close()
	cond = bench.Condition()
	if !*asJSON {
		where := "loopback (no link)"
		if !cond.NoLink {
			where = netem.Describe(cfg)
		}
		fmt.Fprintf(stdout, "page %s (%d resources, %d bytes) on %d host(s), %s\n",
			bench.Manifest().Name, len(bench.Manifest().Resources), bench.Manifest().TotalBytes(), cond.Shards, where)
	}
	// A short self-check before the first load: it tells the user whether
	// the link delivers what was asked for, and its pings resolve the
	// neighbours on the path so the first load does not pay for that.
	var check *probe.LinkCheck
	if !cond.NoLink {
		lc := bench.Check(ctx)
		check = &lc
		if !*asJSON || !lc.OK {
			status := "ok"
			if !lc.OK {
				status = "PROBLEM: " + lc.Problem
			}
			fmt.Fprintf(stderr, "link check: rtt %.1f ms (configured %.1f ms): %s\n", lc.RTTms, lc.RTTConfiguredms, status)
		}
	}
	results := map[string][]probe.Result{}
	for run := 0; run < *runs && ctx.Err() == nil; run++ {
		for _, p := range protoList {
			if ctx.Err() != nil {
				break
			}
			r := bench.Load(ctx, p, run)
			results[p] = append(results[p], r)
			if r.Failed {
				fmt.Fprintf(stderr, "run %d %s: failed: %s\n", run+1, p, r.Error)
			} else if !*asJSON {
				fmt.Fprintf(stderr, "run %d/%d %-8s PLT %8.1f ms  ToW %8.1f ms  conns %d\n", run+1, *runs, p, r.PLTms, r.ToWms, r.Connections)
			}
			if *harDir != "" && len(r.HAR) > 0 {
				name := fmt.Sprintf("%s-%s-run%03d.har", sanitizeFile(bench.Manifest().Name), sanitizeFile(p), run+1)
				if err := atomicfile.Write(filepath.Join(*harDir, name), r.HAR); err != nil {
					fmt.Fprintf(stderr, "spdylab load: --har: %v\n", err)
					return 1
				}
			}
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "spdylab load: interrupted; tearing the testbed down")
		if err := bench.Close(); err != nil {
			fmt.Fprintf(stderr, "spdylab load: cleanup: %v\n", err)
		}
		return 130
	}
	status := 0
	for _, p := range protoList {
		s := summarize(bench.Manifest().Name, p, cond, results[p])
		s.LinkCheck = check
		if s.Failed == s.Runs {
			status = 1
		}
		if *asJSON {
			b, _ := json.Marshal(s)
			fmt.Fprintln(stdout, string(b))
		} else {
			printSummary(stdout, s)
		}
	}
	if err := bench.Close(); err != nil {
		fmt.Fprintf(stderr, "spdylab load: cleanup: %v\n", err)
		status = 1
	}
	return status
}

func summarize(name, proto string, cond probe.Condition, rs []probe.Result) loadSummary {
	cond.Proto = proto
	s := loadSummary{Page: name, Proto: proto, Runs: len(rs), Condition: cond, PLTms: []float64{}, ToWms: []float64{}}
	var ph [7][]float64
	var pushed, conns, retrans, drops []float64
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Failed {
			s.Failed++
			if !seen[r.Error] {
				seen[r.Error] = true
				s.Errors = append(s.Errors, r.Error)
			}
			continue
		}
		s.PLTms = append(s.PLTms, r.PLTms)
		s.ToWms = append(s.ToWms, r.ToWms)
		p := r.Phases
		for i, v := range []float64{p.Blocked, p.DNS, p.Connect, p.SSL, p.Send, p.Wait, p.Receive} {
			ph[i] = append(ph[i], v)
		}
		s.Resources = r.Resources
		pushed = append(pushed, float64(r.Pushed))
		conns = append(conns, float64(r.Connections))
		var rt uint32
		for _, t := range r.TCP {
			rt += t.Retransmits
		}
		retrans = append(retrans, float64(rt))
		drops = append(drops, float64(r.Link.Down.PktsQueueDrop+r.Link.Up.PktsQueueDrop))
	}
	s.PLTMedianMs, s.PLTP25Ms, s.PLTP75Ms = quantile(s.PLTms, 0.5), quantile(s.PLTms, 0.25), quantile(s.PLTms, 0.75)
	s.ToWMedianMs, s.ToWP25Ms, s.ToWP75Ms = quantile(s.ToWms, 0.5), quantile(s.ToWms, 0.25), quantile(s.ToWms, 0.75)
	s.PhasesMedian = probe.Phases{
		Blocked: quantile(ph[0], 0.5), DNS: quantile(ph[1], 0.5), Connect: quantile(ph[2], 0.5), SSL: quantile(ph[3], 0.5),
		Send: quantile(ph[4], 0.5), Wait: quantile(ph[5], 0.5), Receive: quantile(ph[6], 0.5),
	}
	s.Pushed, s.Connections = quantile(pushed, 0.5), quantile(conns, 0.5)
	s.Retransmits, s.QueueDrops = quantile(retrans, 0.5), quantile(drops, 0.5)
	return s
}

// quantile is the linearly interpolated q-quantile (R type 7); 0 for no data.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (pos-float64(lo))*(s[hi]-s[lo])
}

func printSummary(w io.Writer, s loadSummary) {
	fmt.Fprintf(w, "\n%s: %d loads, %d failed\n", s.Proto, s.Runs, s.Failed)
	if s.Failed == s.Runs {
		for _, e := range s.Errors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
		return
	}
	fmt.Fprintf(w, "  %-4s %10s %10s %10s\n", "", "p25 ms", "median ms", "p75 ms")
	fmt.Fprintf(w, "  %-4s %10.1f %10.1f %10.1f\n", "PLT", s.PLTP25Ms, s.PLTMedianMs, s.PLTP75Ms)
	fmt.Fprintf(w, "  %-4s %10.1f %10.1f %10.1f\n", "ToW", s.ToWP25Ms, s.ToWMedianMs, s.ToWP75Ms)
	p := s.PhasesMedian
	fmt.Fprintf(w, "  phases (median over loads of the sum over requests, ms):\n")
	fmt.Fprintf(w, "  %9s %9s %9s %9s %9s %9s %9s\n", "blocked", "dns", "connect", "ssl", "send", "wait", "receive")
	fmt.Fprintf(w, "  %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", p.Blocked, p.DNS, p.Connect, p.SSL, p.Send, p.Wait, p.Receive)
	fmt.Fprintf(w, "  resources %d, pushed %.0f, connections %.0f, client retransmits %.0f, link queue drops %.0f (medians)\n",
		s.Resources, s.Pushed, s.Connections, s.Retransmits, s.QueueDrops)
	for _, e := range s.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

func sanitizeFile(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
