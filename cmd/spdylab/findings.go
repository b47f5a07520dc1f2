package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spdylab/spdylab/findings"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/study"
)

func init() {
	register(command{name: "findings", summary: "run the committed findings (findings/*.toml) and write FINDINGS.md and findings.html", run: findingsCmd,
		synopsis: "spdylab findings [--only NAME] [--out DIR] [--runs N] [--pages DIR] [--no-run]",
		examples: []string{
			"sudo spdylab findings --pages ../shared/pages/har    # every finding; resumes what a killed run left",
			"sudo spdylab findings --only stack-2012 --runs 1    # a quick pass through one finding",
			"spdylab findings --no-run    # FINDINGS.md from the stores as they are, stale and failed ones named",
		}})
}

const findingsAbout = `Runs every committed finding (findings/*.toml, from the repository root) that
is missing or partial into its own resumable store under OUT (OUT/NAME; with
--runs N, OUT/NAME.runsN so a quick pass never replaces a full one), then writes
OUT/FINDINGS.md and OUT/findings.html: one row per finding with its question,
answer and 95% interval, loads per cell, in-sample or held-out, the critical-path
categories or walk step that explain it, the emulator's late-load shift, and the
command, commit, date and machine. A store that no longer matches its file is
moved aside and run afresh (shown as stale with --no-run); a failed run is shown
as failed. The repository's FINDINGS.md is a copy of the last full run's.`

func findingsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("findings", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, findingsAbout)
	var only stringList
	fs.Var(&only, "only", "run and show only this finding (a file name of findings/ without .toml); repeatable")
	opt := findings.Options{Jobs: study.JobsAuto}
	fs.StringVar(&opt.Dir, "dir", findings.DefaultDir, "the folder of findings files")
	fs.StringVar(&opt.Out, "out", findings.DefaultOut, "output folder: one store per finding, FINDINGS.md, findings.html")
	fs.IntVar(&opt.Runs, "runs", 0, "loads per cell instead of each file's (1: a quick pass to check the pipeline)")
	fs.StringVar(&opt.Pages, "pages", "", "folder of the shared recordings, for the findings over real pages (without it their rows say they need it)")
	fs.BoolVar(&opt.NoRun, "no-run", false, "run nothing: write FINDINGS.md from the stores as they are")
	fs.Var((*jobsFlag)(&opt.Jobs), "j", "parallel testbeds: N, or auto (the default), as for spdylab run")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "findings", "takes no arguments, got %q (name a finding with --only)", pos)
	}
	if opt.Runs < 0 {
		return usageError(stderr, "findings", "--runs must be at least 1")
	}
	opt.Only, opt.Open, opt.Log = only, harnessOpener(""), stderr
	opt.Command = strings.Join(append([]string{"spdylab", "findings"}, args...), " ")
	// As for spdylab run: the first Ctrl-C lets the benches close and
	// keeps what is stored; a second one is netem's.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var signals atomic.Int32
	defer netem.OnSignal(func(os.Signal) bool { return signals.Add(1) == 1 })()
	rep, err := findings.Run(ctx, opt)
	if err != nil {
		fmt.Fprintln(stderr, "spdylab findings:", err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	bad := 0
	for _, r := range rep.Rows {
		if !r.Shown() {
			fmt.Fprintf(stderr, "spdylab findings: %s: %s: %s\n", r.Finding, r.Status, r.Reason)
			if r.Status == findings.StatusFailed || r.Status == findings.StatusBroken {
				bad++
			}
		}
	}
	fmt.Fprintf(stdout, "%s\n%s\n", rep.Markdown, rep.HTML)
	if bad > 0 {
		return 1
	}
	return 0
}
