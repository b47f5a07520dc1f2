package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/studyfile"
	"github.com/spdylab/spdylab/tune"
)

func init() {
	register(command{name: "tune", summary: "search a protocol's settings for the largest gain over a study's baseline; write a profile", run: tuneCmd,
		synopsis: "spdylab tune STUDY|FILE.toml --budget LOADS|DURATION [flags]",
		examples: []string{
			"sudo spdylab tune study1-cablelabs --budget 18000 --train 0.2   # its SPDY (spdy/2) vs https, every knob spdy/2 takes",
			"sudo spdylab tune study1-cablelabs --budget 7000 --train 0.1 --knobs 'iw=32,sessions=3|6,cc=bbr,pacing=link'",
			"sudo spdylab tune study1-cablelabs --protocol spdy/3.1 --budget 4h --train 0.1 --knobs 'cc=bbr,sessions=3|6' --objective won",
			"sudo spdylab tune my.toml --budget 60 --knobs cc=bbr|reno,iw=16|32 --out out/t1",
			"spdylab run study1-cablelabs.toml    # with profile = [\"\", \"out/tune-study1-cablelabs/profile.toml\"]",
		}})
}

const tuneAbout = `Searches the condition settings of one protocol of a study (--protocol; default
its SPDY variant) for the configuration with the largest objective against the
study's baseline (e.g. https), on a training share of the study's cells, by
successive halving: candidates drawn from the search space (the defaults are
one) run a few loads per cell, the best third go on with more, until one is
left. The winner is then loaded on every cell beside the defaults, with each
knob put back to its default (the ablation), and against the baseline given the
same transport knobs, all on fresh loads (OUT/evaluation, none of the search's),
with the training and the held-out cells apart. Over recorded pages, whole
pages are held out: none of their loads is in the search. Writes OUT/profile.toml (for 'spdylab load --profile' and
a study's profile factor), OUT/tune.html and OUT/tune.json. Every load goes
into OUT/results.db through the study runner: run the same command again to
resume; nothing is loaded twice. Bad knobs, values the kernel does not offer
and a budget too small are refused before any load.`

// tuneFlags are `spdylab tune`'s settings after parsing.
type tuneFlags struct {
	cfg          tune.Config
	study, pages string
	budget       string
	knobs        string
	noLink, q    bool
}

func parseTuneFlags(args []string, stderr io.Writer) (tuneFlags, int) {
	f := tuneFlags{cfg: tune.Config{Budget: tune.DefaultBudget, Jobs: study.JobsAuto}}
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, tuneAbout)
	fs.StringVar(&f.budget, "budget", "", "what the tune may spend: loads (2000) or wall time (90m, from the study's estimate); required")
	fs.StringVar(&f.cfg.Protocol, "protocol", "", "the protocol to configure (default: the study's first SPDY protocol besides the baseline)")
	fs.StringVar(&f.cfg.Objective, "objective", "worst", "what to maximise over the training cells: "+tune.ObjectiveHelp)
	fs.StringVar(&f.cfg.Metric, "metric", "", metricHelp)
	fs.Float64Var(&f.cfg.Train, "train", 0.5, "share of the study's cells to train on (the rest are held out), dealt by the study's seed")
	fs.StringVar(&f.knobs, "knobs", "", "the search space: knob names, each optionally with values, e.g. cc=bbr|reno,iw=16|32,push (default: every knob of tune.Space)")
	fs.IntVar(&f.cfg.Budget.MinRuns, "min-runs", f.cfg.Budget.MinRuns, "loads per candidate and cell in the first round")
	fs.IntVar(&f.cfg.Budget.MaxRuns, "max-runs", f.cfg.Budget.MaxRuns, "the most loads per candidate and cell, and the evaluation's (5 or more give intervals)")
	fs.IntVar(&f.cfg.Budget.Eta, "eta", f.cfg.Budget.Eta, "each round keeps the best 1/eta candidates and multiplies the runs by eta")
	fs.IntVar(&f.cfg.Budget.MaxSamples, "max-candidates", f.cfg.Budget.MaxSamples, "the most candidates to draw (fewer when the budget is smaller)")
	fs.Var((*jobsFlag)(&f.cfg.Jobs), "j", "parallel testbeds: N, or auto")
	fs.StringVar(&f.cfg.Out, "out", "", "output directory (default out/tune-STUDY)")
	fs.StringVar(&f.pages, "pages", "", "folder of real pages for a study over a corpus (dir:$PAGES)")
	fs.BoolVar(&f.noLink, "no-link", false, "load over loopback without the emulated link (smoke test)")
	fs.BoolVar(&f.q, "q", false, "no progress output")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return f, flagExit(err)
	}
	switch {
	case len(pos) != 1:
		return f, usageError(stderr, "tune", "want one study, got %q", pos)
	case f.budget == "":
		return f, usageError(stderr, "tune", "--budget is required: loads (e.g. 2000) or wall time (e.g. 90m)")
	}
	if code := badMetric(stderr, "tune", f.cfg.Metric); code >= 0 {
		return f, code
	}
	f.study = pos[0]
	if n, err := strconv.Atoi(f.budget); err == nil && n > 0 {
		f.cfg.Budget.Loads = n
	} else if d, err := time.ParseDuration(f.budget); err == nil && d > 0 {
		f.cfg.BudgetTime = d
	} else {
		return f, usageError(stderr, "tune", "--budget %q: want a number of loads (2000) or a duration (90m)", f.budget)
	}
	if f.cfg.Knobs, err = tune.ParseKnobs(f.knobs); err != nil {
		return f, usageError(stderr, "tune", "%v", err)
	}
	if f.cfg.Protocol != "" { // any spelling every command takes, stored as its name
		p, err := probe.ParseProtocol(f.cfg.Protocol)
		if err != nil {
			return f, usageError(stderr, "tune", "--protocol %q: %v", f.cfg.Protocol, err)
		}
		f.cfg.Protocol = p.Name
	}
	return f, -1
}

func tuneCmd(args []string, stdout, stderr io.Writer) int {
	f, status := parseTuneFlags(args, stderr)
	if status >= 0 {
		return status
	}
	s, err := studyfile.LoadPages(f.study, f.pages)
	if err == nil {
		err = s.Override(0, f.noLink)
	}
	if err != nil {
		fmt.Fprintln(stderr, "spdylab tune:", studyNotFoundHint("tune", err))
		return 1
	}
	f.cfg.Study, f.cfg.Open, f.cfg.Tools, f.cfg.Log = s, harnessOpener(""), benchTools(), stderr
	f.cfg.TTY, f.cfg.Args = isTerminal(stderr), strings.Join(append([]string{"spdylab", "tune"}, args...), " ")
	if !f.q {
		f.cfg.Progress = stderr
	}
	if f.cfg.Out == "" {
		f.cfg.Out = filepath.Join("out", "tune-"+s.Name)
	}
	t, err := tune.Prepare(f.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "spdylab tune:", err)
		return 2
	}
	fmt.Fprintln(stderr, "spdylab:", t.Plan())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// As in run: the first signal stops the tune between loads; a second
	// one is netem's (close every testbed and exit).
	var signals atomic.Int32
	removeHook := netem.OnSignal(func(os.Signal) bool { return signals.Add(1) == 1 })
	defer removeHook()
	res, err := t.Run(ctx)
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		fmt.Fprintln(stderr, "spdylab tune: interrupted; run the same command again to resume (stored loads are kept)")
		return 130
	case err != nil:
		fmt.Fprintln(stderr, "spdylab tune:", err)
		return 1
	}
	for _, line := range res.Summary() {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "wrote %s, %s, %s (%d loads stored, %s)\n", filepath.Join(f.cfg.Out, tune.ProfileFile),
		filepath.Join(f.cfg.Out, tune.HTMLFile), filepath.Join(f.cfg.Out, tune.JSONFile), res.LoadsStored, res.Wall)
	return 0
}
