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
	"strings"
	"sync/atomic"
	"syscall"

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
	runs      int
	harDir    string
	asJSON    bool
	serverLog string
	link      netem.Config
	opt       harness.Options
	spdy2Win  spdy2WindowsFlag
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
	bench, err := harness.Open(ctx, req.cond, req.opt)
	if err != nil && ctx.Err() != nil {
		// Interrupted while the bench was built: Open has torn down what
		// it made; the exit status says why it stopped.
		fmt.Fprintln(stderr, "spdylab load: interrupted while building the testbed; nothing left behind")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "spdylab load: %v\n", err)
		return 1
	}
	defer bench.Close()
	check := introduceBench(ctx, bench, req, stdout, stderr)
	results, err := loadAll(ctx, bench, req, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab load: %v\n", err)
		return 1
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "spdylab load: interrupted; tearing the testbed down")
		if err := bench.Close(); err != nil {
			fmt.Fprintf(stderr, "spdylab load: cleanup: %v\n", err)
		}
		return 130
	}
	status = printSummaries(bench, req, results, check, stdout)
	if err := bench.Close(); err != nil {
		fmt.Fprintf(stderr, "spdylab load: cleanup: %v\n", err)
		status = 1
	}
	return status
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
	timeout := duration(fs, "timeout", 0, "s", "per-load timeout (0 = 60s)")
	workDir := fs.String("work-dir", "", "where generated pages are cached (default: $TMPDIR/spdylab-work)")
	fs.StringVar(&req.serverLog, "server-log", "", "append the servers' connection and access log to `file`")
	req.spdy2Win.register(fs)
	profileFile := fs.String("profile", "", "apply a profile `file` (spdylab tune writes one): its settings win over the flags; every --proto must be one it names")
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
	if req.link, err = link.Config(); err != nil {
		return usageErr("%v", err)
	}
	var prof *spec.Profile
	if *profileFile != "" {
		if prof, err = loadProfile(*profileFile, req.protos); err != nil {
			return usageErr("--profile: %v", err)
		}
	}
	if req.cond, err = loadCondition(fields, link, prof, req.protos[0]); err != nil {
		return usageErr("%v", err)
	}
	req.cond.Timeout = *timeout
	if err := checkEachProto(req.cond, req.protos); err != nil {
		return usageErr("%v", err)
	}
	// Check the page (and every other condition field) before building a
	// testbed, so a typo costs nothing and exits 2.
	if _, err := harness.Validate(req.cond, link.Seed); err != nil {
		return usageErr("%v", err)
	}
	req.opt = harness.Options{WorkDir: *workDir, Seed: link.Seed, Timeout: *timeout, PcapDir: *pcapDir,
		Testbed: func(c *netem.Config) { c.PacketLog, c.PacketLogPath = req.link.PacketLog, req.link.PacketLogPath }}
	return req, -1
}

// loadCondition builds the condition from load's own and the link's flag
// values as a study builds a matrix point (probe.BuildCondition), with the
// defaults stored empty in their stored spelling (probe.Normalize). Its
// Link.Seed stays 0, as a study's: the load's seed (--seed) seeds the loss.
func loadCondition(fields *probe.FieldFlags, link *netem.FlagValues, prof *spec.Profile, proto string) (probe.Condition, error) {
	vals, err := fields.Values()
	if err != nil {
		return probe.Condition{}, err
	}
	linkVals, err := link.Fields.Values()
	if err != nil {
		return probe.Condition{}, err
	}
	for k, v := range linkVals {
		vals[k] = v
	}
	// Flags hold every field; only those on the command line count as
	// set, so --stack 2012 fills in the rest (probe.ExpandStack).
	vals = probe.OmitUngivenPieces(vals, func(name string) bool { return fields.Given(name) || link.Fields.Given(name) })
	if prof != nil {
		// One bench serves every --proto, all named by the profile.
		vals["protocol"] = proto
		vals = prof.Apply(vals)
		delete(vals, "protocol")
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

// loadProfile reads a profile file (kernel and probe checks included) and
// refuses protocols it does not configure: one bench serves them all.
func loadProfile(path string, protos []string) (*spec.Profile, error) {
	p, err := studyfile.ParseProfileFile(path)
	if err != nil {
		return nil, err
	}
	for _, proto := range protos {
		if !p.AppliesTo(proto) {
			return nil, fmt.Errorf("profile %s configures %s, not --proto %s (load that one without --profile)", p.Name, strings.Join(p.Protocols, ", "), proto)
		}
	}
	return p, nil
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
func introduceBench(ctx context.Context, bench *harness.Bench, req loadRequest, stdout, stderr io.Writer) *probe.LinkCheck {
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
		fmt.Fprintf(stdout, "page %s (%d resources, %d bytes) on %d host(s), %s\n", m.Name, len(m.Resources), m.TotalBytes(), len(m.Hosts), where)
		for _, p := range req.protos {
			if ignored := probe.IgnoredBy(cond, p); len(ignored) > 0 {
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
func loadAll(ctx context.Context, bench *harness.Bench, req loadRequest, stderr io.Writer) (map[string][]probe.Result, error) {
	results := map[string][]probe.Result{}
	for run := 0; run < req.runs && ctx.Err() == nil; run++ {
		for _, p := range req.protos {
			if ctx.Err() != nil {
				break
			}
			r := bench.Load(ctx, p, run)
			results[p] = append(results[p], r)
			if r.Failed {
				fmt.Fprintf(stderr, "run %d %s: failed: %s\n", run+1, p, r.Error)
			} else if !req.asJSON {
				fmt.Fprintln(stderr, report.RunLine(r, run, req.runs))
			}
			if req.harDir != "" && len(r.HAR) > 0 {
				name := harness.LoadFileName(bench.Manifest().Name, p, run, ".har")
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
func printSummaries(bench *harness.Bench, req loadRequest, results map[string][]probe.Result, check *probe.LinkCheck, stdout io.Writer) int {
	status := 0
	base := report.LoadBaseline(req.protos)
	baseSummary := report.SummarizeLoads(bench.Manifest().Name, base, bench.Condition(), results[base])
	var all []report.LoadSummary
	for _, p := range req.protos {
		s := report.SummarizeLoads(bench.Manifest().Name, p, bench.Condition(), results[p])
		s.CompareWith(baseSummary) // the gain and its interval against the baseline protocol
		s.LinkCheck = check
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
