package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

func init() {
	register(command{
		name:     "load",
		summary:  "load a page repeatedly over an emulated link and report PLT, ToW and phases",
		synopsis: loadSynopsis,
		examples: loadExamples,
		run: func(args []string, stdout, stderr io.Writer) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The first Ctrl-C ends the load in progress and tears the bench
			// down in order (servers, then testbed); a second one falls back
			// to netem's default: close every testbed and exit.
			var signalled atomic.Bool
			remove := netem.OnSignal(func(os.Signal) bool { return !signalled.Swap(true) })
			defer remove()
			defer netem.ClosePanicking()
			return runLoad(ctx, args, stdout, stderr)
		},
	})
}

// loadRequest is `spdylab load`'s parsed flags.
type loadRequest struct {
	cond      probe.Condition
	protos    []string
	benches   []loadBench // one, or two when a profile's settings would reach the others (spec.ProfileBench)
	runs      int
	harDir    string
	asJSON    bool
	serverLog string
	link      netem.Config
	opt       harness.Options
	spdy2Win  spdy2WindowsFlag
	metric    probe.Metric // what the gains, critical paths and answer are of (--metric)
}

// loadBench is one bench of a load: its condition, the protocols it
// loads, and each one's condition as loaded where it is not the bench's
// (a profile's baseline on the profiled bench loads as it is).
type loadBench struct {
	cond   probe.Condition
	protos []string
	own    map[string]probe.Condition
	bench  *harness.Bench
}

// condFor is the condition a load over proto on this bench has.
func (lb *loadBench) condFor(proto string) probe.Condition {
	if c, ok := lb.own[proto]; ok {
		return c
	}
	c := lb.cond
	c.Proto = proto
	return c
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	req, status := parseLoadFlags(args, stderr)
	if status >= 0 {
		return status
	}
	req.opt.SPDY2Windows = req.spdy2Win.mode
	if req.serverLog != "" {
		f, err := os.OpenFile(req.serverLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "spdylab load: --server-log: %v\n", err)
			return 1
		}
		defer f.Close()
		req.opt.ServerLog = f
	}
	if req.harDir != "" {
		if err := os.MkdirAll(req.harDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "spdylab load: --har: %v\n", err)
			return 1
		}
	}
	defer closeBenches(req.benches, stderr) // after a panic; a closed bench is not closed again
	for i := range req.benches {
		lb := &req.benches[i]
		bench, err := harness.Open(ctx, lb.cond, req.opt)
		if err != nil && ctx.Err() != nil {
			// Interrupted while the bench was built: Open has torn down what
			// it made; the exit status says why it stopped.
			fmt.Fprintln(stderr, "spdylab load: interrupted while building the testbed; nothing left behind")
			closeBenches(req.benches, stderr)
			return 130
		}
		if err != nil {
			fmt.Fprintf(stderr, "spdylab load: %v\n", err)
			closeBenches(req.benches, stderr)
			return 1
		}
		lb.bench = bench
	}
	checks := make([]*probe.LinkCheck, len(req.benches))
	for i := range req.benches {
		checks[i] = introduceBench(ctx, &req.benches[i], req, stdout, stderr)
	}
	results, err := loadAll(ctx, req, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab load: %v\n", err)
		closeBenches(req.benches, stderr)
		return 1
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "spdylab load: interrupted; tearing the testbed down")
		closeBenches(req.benches, stderr)
		return 130
	}
	status = printSummaries(req, results, checks, stdout)
	if !closeBenches(req.benches, stderr) {
		status = 1
	}
	return status
}

// closeBenches tears down the benches opened so far; false when one's
// cleanup failed.
func closeBenches(benches []loadBench, stderr io.Writer) bool {
	ok := true
	for i := range benches {
		if b := benches[i].bench; b != nil {
			benches[i].bench = nil
			if err := b.Close(); err != nil {
				fmt.Fprintf(stderr, "spdylab load: cleanup: %v\n", err)
				ok = false
			}
		}
	}
	return ok
}

// parseLoadFlags parses and checks the flags; status is -1 to go on, else
// the exit status. The condition's flags are generated from probe.Fields,
// the study factors' table, so `spdylab load` without flags loads what a
// one-cell study of the same page and protocol does.
func parseLoadFlags(args []string, stderr io.Writer) (req loadRequest, status int) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fields := probe.RegisterFieldFlags(fs, probe.FlagLoad, map[string]string{"page": "pageA"})
	protos := fs.String("proto", probe.ProtoSPDY31, probe.OneOf(probe.ProtocolNames())+"; several, comma-separated, are interleaved load by load ("+probe.AliasHelp()+")")
	fs.IntVar(&req.runs, "runs", 20, "loads per protocol")
	fs.StringVar(&req.harDir, "har", "", "write one HAR file per load into `dir`")
	fs.BoolVar(&req.asJSON, "json", false, "print a JSON summary per protocol instead of tables")
	metric := fs.String("metric", "", metricHelp)
	timeout := duration(fs, "timeout", 0, "s", "per-load timeout (0 = 60s)")
	workDir := fs.String("work-dir", "", "where generated pages are cached (default: $TMPDIR/spdylab-work)")
	fs.StringVar(&req.serverLog, "server-log", "", "append the servers' connection and access log to `file`")
	req.spdy2Win.register(fs)
	profileFile := fs.String("profile", "", "apply a profile `file` (spdylab tune writes one, profiles/ ships some) to the --proto it names, where its settings win over the flags; the other --proto load as they are, interleaved (on a bench of their own when the profile sets a knob they take too, e.g. iw)")
	pcapDir := fs.String("pcap", "", "write one pcap file per load into `dir` (<page>-<proto>-runNNN.pcap): the packets on the client's side of the emulated link")
	link := netem.RegisterFlags(fs)
	setShortHelp(fs, loadShort(), loadCommonFlags, loadAbout(), loadFlagGroups...)
	if err := parseFlags(fs, args); err != nil {
		return req, flagExit(err)
	}
	usageErr := func(format string, a ...any) (loadRequest, int) {
		return req, usageError(stderr, "load", format, a...)
	}
	switch {
	case fs.NArg() > 0:
		return usageErr("unexpected argument %q (flags only; the page goes in --page)", fs.Arg(0))
	case req.runs < 1:
		return usageErr("--runs %d: need at least 1", req.runs)
	case *timeout < 0:
		return usageErr("--timeout %v: must not be negative", *timeout)
	case *pcapDir != "" && fields.Given("no_link"):
		return usageErr("--pcap needs the emulated link; drop --no-link")
	}
	for _, p := range strings.Split(*protos, ",") {
		pr, err := probe.ParseProtocol(p)
		if err != nil {
			return usageErr("--proto %q: %v", strings.TrimSpace(p), err)
		}
		req.protos = append(req.protos, pr.Name)
	}
	var err error
	if req.metric, err = probe.LookupMetric(*metric); err != nil {
		return usageErr("--metric: %v", err)
	}
	if req.link, err = link.Config(); err != nil {
		return usageErr("%v", err)
	}
	if req.benches, err = loadBenches(fields, link, *profileFile, req.protos, *timeout); err != nil {
		return usageErr("%v", err)
	}
	req.cond = req.benches[0].cond
	if why := req.metric.Refuses(req.cond.ClientName()); why != "" {
		return usageErr("--metric %s: client %s cannot give it: %s", req.metric.Name, req.cond.ClientName(), why)
	}
	// Check the page (and every other condition field) before building a
	// testbed, so a typo costs nothing and exits 2.
	for _, lb := range req.benches {
		if _, err := harness.Validate(lb.cond, link.Seed); err != nil {
			return usageErr("%v", err)
		}
	}
	req.opt = harness.Options{WorkDir: *workDir, Seed: link.Seed, Timeout: *timeout, PcapDir: *pcapDir,
		Testbed: func(c *netem.Config) { c.PacketLog, c.PacketLogPath = req.link.PacketLog, req.link.PacketLogPath }}
	return req, -1
}

// loadCondition builds the condition from load's own and the link's flag
// values as a study builds a matrix point (probe.BuildCondition), with the
// defaults stored empty in their stored spelling (probe.Normalize). Its
// Link.Seed stays 0, as a study's: the load's seed (--seed) seeds the loss.
func loadCondition(fields *probe.FieldFlags, link *netem.FlagValues, vals map[string]string) (probe.Condition, error) {
	if vals == nil {
		var err error
		if vals, err = loadValues(fields, link); err != nil {
			return probe.Condition{}, err
		}
	}
	c, err := probe.BuildCondition(vals)
	if err != nil {
		return c, probe.FlagError(err)
	}
	// The page in a study's spelling (manifest and HAR paths absolute).
	pg, err := page.CheckSpec(c.Page, "")
	if err != nil {
		return c, &probe.FieldError{Field: "--page", Value: c.Page, Err: err}
	}
	c.Page = pg
	if !link.Fields.Given("shards") {
		c.Shards = spec.ShardsFor(c.Page, c.Shards)
	}
	if c, err = page.ResolveMethod(c); err != nil { // the page's rules, as a study stores them
		return c, &probe.FieldError{Field: "--until", Value: c.Until, Err: err}
	}
	return probe.Normalize(c)
}

// loadBenches builds the load's benches from the flags: one for every
// --proto, or with --profile the split spec.Profile.Bench gives (the
// profile's protocols profiled, the others as they are, on one bench
// when the profile changes nothing they take).
func loadBenches(fields *probe.FieldFlags, link *netem.FlagValues, profileFile string, protos []string, timeout time.Duration) ([]loadBench, error) {
	plain, err := loadCondition(fields, link, nil)
	if err != nil {
		return nil, err
	}
	plain.Timeout = timeout
	if profileFile == "" {
		return []loadBench{{cond: plain, protos: protos}}, checkEachProto(plain, protos)
	}
	prof, err := studyfile.ParseProfileFile(profileFile)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	vals, err := loadValues(fields, link)
	if err != nil {
		return nil, err
	}
	split, err := prof.Bench(vals, protos)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	profiled, err := loadCondition(fields, link, split.Values)
	if err != nil {
		return nil, err
	}
	profiled.Timeout = timeout
	if err := checkEachProto(profiled, split.Profiled); err != nil {
		return nil, err
	}
	if len(split.Others) == 0 {
		return []loadBench{{cond: profiled, protos: protos}}, nil
	}
	if err := checkEachProto(plain, split.Others); err != nil {
		return nil, err
	}
	if !split.Shared {
		return []loadBench{{cond: profiled, protos: split.Profiled}, {cond: plain, protos: split.Others}}, nil
	}
	own := map[string]probe.Condition{}
	for _, p := range split.Others {
		c := plain
		c.Proto = p
		own[p] = c
	}
	return []loadBench{{cond: profiled, protos: protos, own: own}}, nil
}

// loadValues is the matrix point load's own and the link's flags give.
// Flags hold every field; only those on the command line count as set, so
// --stack 2012 fills in the rest (probe.ExpandStack).
func loadValues(fields *probe.FieldFlags, link *netem.FlagValues) (map[string]string, error) {
	vals, err := fields.Values()
	if err != nil {
		return nil, err
	}
	linkVals, err := link.Fields.Values()
	if err != nil {
		return nil, err
	}
	for k, v := range linkVals {
		vals[k] = v
	}
	return probe.OmitUngivenPieces(vals, func(name string) bool { return fields.Given(name) || link.Fields.Given(name) }), nil
}

// checkEachProto checks c, then c with each protocol to load
// (probe.Normalize: the client and TLS options must suit every one), and
// that every setting applies to one of them (probe.CheckApplies: the
// others ignore it, as a study's baseline does).
func checkEachProto(c probe.Condition, protos []string) error {
	if _, err := probe.Normalize(c); err != nil {
		return err
	}
	for _, p := range protos {
		c.Proto = p
		if _, err := probe.Normalize(c); err != nil {
			return fmt.Errorf("--proto %q: %w", p, err)
		}
	}
	return probe.CheckApplies(c, protos)
}

// introduceBench says what is loaded over what, and runs a short link
// self-check before the first load: it tells the user whether the link
// delivers what was asked for, and its pings resolve the neighbours on the
// path so the first load does not pay for that.
func introduceBench(ctx context.Context, lb *loadBench, req loadRequest, stdout, stderr io.Writer) *probe.LinkCheck {
	bench := lb.bench
	cond, m := bench.Condition(), bench.Manifest()
	if !req.asJSON {
		where := fmt.Sprintf("loopback (no link), %d server(s)", cond.Shards)
		if !cond.NoLink {
			link := req.link
			link.Shards = cond.Shards // the bench's count (a replay's default is its own)
			where = netem.Describe(link)
		}
		if knobs := cond.ServerKnobs(); knobs != "" {
			where += ", " + knobs
		}
		if len(req.benches) > 1 {
			where += " (bench of " + strings.Join(lb.protos, ", ") + ")"
		}
		fmt.Fprintf(stdout, "page %s (%d resources, %d bytes) on %d host(s), %s\n", m.Name, len(m.Resources), m.TotalBytes(), len(m.Hosts), where)
		for _, p := range lb.protos {
			if ignored := probe.IgnoredBy(lb.condFor(p), p); len(ignored) > 0 {
				fmt.Fprintf(stdout, "%s ignores %s (not a setting of %s)\n", p, strings.Join(ignored, ", "), p)
			}
		}
	}
	if cond.NoLink {
		return nil
	}
	lc := bench.Check(ctx)
	if !req.asJSON || !lc.OK {
		fmt.Fprintln(stderr, linkCheckLine(lc))
	}
	return &lc
}

// linkCheckLine is the "link check:" line: the RTT, what the burst trains
// found each way (rate, queue, drops), and the verdict.
func linkCheckLine(lc probe.LinkCheck) string {
	line := fmt.Sprintf("link check: rtt %.1f ms (configured %.1f ms)", lc.RTTms, lc.RTTConfiguredms)
	if lc.Note != "" {
		line += "; " + lc.Note
	}
	if !lc.OK {
		return line + ": PROBLEM: " + lc.Problem
	}
	return line + ": ok"
}

// loadAll loads the page req.runs times per protocol, protocols
// interleaved load by load, reporting each load and writing its HAR.
func loadAll(ctx context.Context, req loadRequest, stderr io.Writer) (map[string][]probe.Result, error) {
	benchOf := map[string]*loadBench{}
	for i := range req.benches {
		for _, p := range req.benches[i].protos {
			benchOf[p] = &req.benches[i]
		}
	}
	results := map[string][]probe.Result{}
	for run := 0; run < req.runs && ctx.Err() == nil; run++ {
		for _, p := range req.protos {
			if ctx.Err() != nil {
				break
			}
			lb := benchOf[p]
			r := lb.bench.Load(ctx, p, run)
			r.Condition = lb.condFor(p) // a profile's baseline loads as it is
			results[p] = append(results[p], r)
			if r.Failed {
				fmt.Fprintf(stderr, "run %d %s: failed: %s\n", run+1, p, r.Error)
			} else if !req.asJSON {
				fmt.Fprintln(stderr, report.RunLine(r, run, req.runs))
			}
			if req.harDir != "" && len(r.HAR) > 0 {
				name := harness.LoadFileName(lb.bench.Manifest().Name, p, run, ".har")
				if err := atomicfile.Write(filepath.Join(req.harDir, name), r.HAR); err != nil {
					return nil, fmt.Errorf("--har: %w", err)
				}
			}
		}
	}
	return results, nil
}

// printSummaries prints one summary per protocol (report's statistics);
// the status is 1 when every load of some protocol failed.
func printSummaries(req loadRequest, results map[string][]probe.Result, checks []*probe.LinkCheck, stdout io.Writer) int {
	status := 0
	summarize := func(p string) report.LoadSummary {
		for i := range req.benches {
			lb := &req.benches[i]
			if slices.Contains(lb.protos, p) {
				m := lb.bench.Manifest()
				s := report.SummarizeLoadsWith(m.Name, p, lb.condFor(p), results[p], report.LoadJudge{Metric: req.metric, Manifest: m})
				s.LinkCheck = checks[i]
				return s
			}
		}
		panic("spdylab load: protocol " + p + " on no bench")
	}
	baseSummary := summarize(report.LoadBaseline(req.protos))
	var all []report.LoadSummary
	for _, p := range req.protos {
		s := summarize(p)
		s.CompareWith(baseSummary) // the gain and its interval against the baseline protocol
		if s.Failed == s.Runs {
			status = 1
		}
		all = append(all, s)
		if req.asJSON {
			b, _ := json.Marshal(s)
			fmt.Fprintln(stdout, string(b))
		} else {
			s.Print(stdout)
		}
	}
	if answer := report.LoadAnswer(all); answer != "" && !req.asJSON {
		fmt.Fprintf(stdout, "\n%s\n", answer) // the sentence a study's report opens with, for this cell
	}
	return status
}
