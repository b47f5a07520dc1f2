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
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study"
)

// defaultJobs is the default number of parallel benches. The loads are
// bound by the emulated network, not the CPU: on a 2-core machine, with the
// link emulator in its own process, quick's per-condition medians at -j 4,
// 6 and 8 stayed within the noise of two -j 1 runs; study1-cablelabs at
// -j 8 showed no systematic shift against -j 1 (+0.8 ± 2.1 %), left the
// CPUs about half idle, and its emulator ran late in no more loads than at
// -j 1 (BENCHMARKS.md, "study runner"). Four per CPU, at most 8; each load's
// stored emulator lateness says when a machine cannot keep up.
var defaultJobs = min(8, 4*runtime.NumCPU())

// openBench builds the real bench (the harness); set in run_harness.go.
var openBench study.Opener

func init() {
	register(command{name: "run", summary: "run a study (default: quick) and write OUT/report.html", run: runCmd})
}

// parseInterleaved parses flags that may come before or after the one
// positional argument (`run quick -j 2` and `run -j 2 quick`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runCmd(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: spdylab run [STUDY|FILE.toml] [flags]

Runs every condition of a study (a built-in name from 'spdylab studies' or a
study file; default quick) and stores each load in OUT/results.db as soon as
it finishes; then writes OUT/report.html, conditions.csv and conditions.json.
Running the same study into the same OUT again resumes: stored loads are
skipped. Needs root for the network namespaces (unless every condition is
no_link).

flags:
`)
		fs.PrintDefaults()
	}
	jobs := fs.Int("j", defaultJobs, "parallel testbeds (each has its own namespaces)")
	out := fs.String("out", "", "output directory (default out/STUDY)")
	resume := fs.Bool("resume", true, "continue a run stored in OUT; with --resume=false an OUT holding loads is an error")
	shardArg := fs.String("shard", "", "run only slice i/N of the conditions (0 <= i < N), for clusters; merge with 'spdylab merge'")
	runs := fs.Int("runs", 0, "override the loads per condition (smoke tests, CI); changes the study's fingerprint")
	noLink := fs.Bool("no-link", false, "load over loopback without the emulated link (smoke test without namespaces)")
	noReport := fs.Bool("no-report", false, "do not write the report after the run")
	quiet := fs.Bool("q", false, "no progress output")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(pos) > 1 {
		fmt.Fprintf(os.Stderr, "spdylab run: one study at a time, got %q\n", pos)
		return 2
	}
	if *jobs < 1 || *jobs > 64 {
		fmt.Fprintf(os.Stderr, "spdylab run: -j %d: want 1..64\n", *jobs)
		return 2
	}
	if *runs < 0 || *runs > 10000 {
		fmt.Fprintf(os.Stderr, "spdylab run: --runs %d: want 1..10000\n", *runs)
		return 2
	}
	var sh study.Shard
	if *shardArg != "" {
		if sh, err = study.ParseShard(*shardArg); err != nil {
			fmt.Fprintln(os.Stderr, "spdylab run:", err)
			return 2
		}
	}
	name := "quick"
	if len(pos) == 1 {
		name = pos[0]
	}
	s, err := study.Load(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spdylab run:", err)
		return 1
	}
	if err := s.Override(*runs, *noLink); err != nil {
		fmt.Fprintln(os.Stderr, "spdylab run:", err)
		return 2
	}
	if *out == "" {
		*out = filepath.Join("out", s.Name)
	}
	if !*resume {
		if st, err := study.OpenStore(*out); err == nil {
			states, _ := st.States()
			st.Close()
			if len(states) > 0 {
				fmt.Fprintf(os.Stderr, "spdylab run: %s already holds %d loads and --resume=false; choose another --out\n", *out, len(states))
				return 1
			}
		}
	}
	st, err := study.CreateStore(*out, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spdylab run:", err)
		return 1
	}
	defer st.Close()
	lock, err := study.LockRun(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spdylab run:", err)
		return 1
	}
	defer lock.Release()
	cleanAfterKilledRun(*out, lock.PrevPID, *quiet)
	if openBench == nil {
		fmt.Fprintln(os.Stderr, "spdylab run: this build has no testbed harness")
		return 1
	}

	// The first Ctrl-C stops scheduling and lets the benches close (their
	// namespaces go, stored loads stay); netem's own handler, which would
	// close every testbed and exit at once, only acts on a second signal.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var signals atomic.Int32
	removeHook := netem.OnSignal(func(os.Signal) bool { return signals.Add(1) == 1 })
	defer removeHook()
	var progress io.Writer = os.Stderr
	if *quiet {
		progress = nil
	}
	r := &study.Runner{Study: s, Store: st, Open: openBench, Jobs: *jobs, Shard: sh,
		WorkDir: filepath.Join(*out, ".work"), Progress: progress, TTY: isTerminal(os.Stderr),
		Args: strings.Join(append([]string{"spdylab", "run"}, args...), " ")}
	if !*quiet {
		if e, err := study.EstimateDuration(s, *jobs); err == nil {
			fmt.Fprintf(os.Stderr, "spdylab: study %s: %d conditions x %d loads into %s (estimate %s at -j %d%s)\n",
				s.Name, len(s.Conditions), s.Runs, *out, e.Total.Round(1e9), *jobs, shardNote(sh))
		}
	}
	sum, runErr := r.Run(ctx)
	stop()
	if !*quiet && sum.Skipped > 0 {
		fmt.Fprintf(os.Stderr, "spdylab: %d loads were already stored and were skipped\n", sum.Skipped)
	}
	fmt.Fprintf(os.Stderr, "spdylab: %d loads stored (%d failed attempts) in %s\n", sum.Done, sum.Failed, sum.Elapsed.Round(1e9))
	if !*noReport && sum.Done+sum.Skipped > 0 {
		if a, err := report.Build(*out); err != nil {
			fmt.Fprintln(os.Stderr, "spdylab run: report:", err)
			if runErr == nil {
				return 1
			}
		} else {
			fmt.Fprintf(os.Stderr, "spdylab: report: %s\n", filepath.Join(*out, report.HTMLFile))
			if w := a.LateWarning(); w != "" {
				fmt.Fprintln(os.Stderr, "spdylab: warning:", w)
			}
		}
	}
	switch {
	case sum.Canceled:
		fmt.Fprintf(os.Stderr, "spdylab run: interrupted; %d loads are stored, run the same command again to resume\n", sum.Done)
		return 130
	case runErr != nil:
		fmt.Fprintln(os.Stderr, "spdylab run:", runErr)
		return 1
	}
	return 0
}

func shardNote(sh study.Shard) string {
	if sh.N <= 1 {
		return ""
	}
	return fmt.Sprintf(", whole study; this is shard %s", sh)
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// cleanAfterKilledRun removes what a killed run into out left behind: the
// testbeds it owned (namespaces, the processes in them, state) and its
// scratch directory. Holding the run lock makes both ours to remove.
func cleanAfterKilledRun(out string, prevPID int, quiet bool) {
	if prevPID > 0 && os.Geteuid() == 0 {
		rep, err := netem.CleanOwnedBy(prevPID)
		if len(rep.Namespaces) > 0 && !quiet {
			fmt.Fprintf(os.Stderr, "spdylab: removed %d namespaces and %d processes left by the killed run (pid %d)\n",
				len(rep.Namespaces), len(rep.Killed), prevPID)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "spdylab run: warning: cleaning up after the killed run (pid %d): %v (try spdylab clean)\n", prevPID, err)
		}
	}
	if err := os.RemoveAll(filepath.Join(out, ".work")); err != nil {
		fmt.Fprintln(os.Stderr, "spdylab run: warning: removing old scratch files:", err)
	}
}
