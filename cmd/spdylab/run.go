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

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

func init() {
	register(command{name: "run", summary: "run a study (default: quick) and write OUT/report.html", run: runCmd,
		synopsis: "spdylab run [STUDY|FILE.toml] [flags]",
		examples: []string{
			"sudo spdylab run quick    # -j auto: as many testbeds as the machine runs without its lateness moving the PLTs",
			"sudo spdylab run my-study.toml --out out/mine    # a study file; run again to resume",
			"sudo spdylab run fidelity --pages pages/          # over a folder of real pages",
			"sudo spdylab run study1-cablelabs --profile out/tune-study1-cablelabs/profile.toml    # the tuned SPDY beside its defaults",
		}})
}

const runAbout = `Runs every condition of a study (a built-in name from 'spdylab studies' or a
study file; default quick) and stores each load in OUT/results.db as soon as
it finishes; then writes OUT/report.html, conditions.csv and conditions.json.
Running the same study into the same OUT again resumes: stored loads are
skipped. Needs root for the network namespaces (unless every condition is
no_link).`

// runFlags are `spdylab run`'s settings after parsing.
type runFlags struct {
	study                    string
	jobs                     int
	runs                     runsFlags // --runs, --runs-target, --runs-max (runsauto.go)
	browserJobs              int
	browserAlone             bool
	out, shard, pages        string
	pcap, profile            string
	resume, noLink, noReport bool
	quiet                    bool
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, int) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, runAbout)
	f.jobs = study.JobsAuto
	fs.Var((*jobsFlag)(&f.jobs), "j", "parallel testbeds (each has its own namespaces): N, or auto (the default) to size them from what the loads wait on and resize them as the run goes, shrinking them while the link emulator runs late in a way that moves the PLTs (or stalls)")
	fs.IntVar(&f.browserJobs, "browser-jobs", study.DefaultBrowserJobs(), "with --browser-alone=false, at most this many testbeds with a real browser (client chromium: seconds of CPU per load)")
	fs.BoolVar(&f.browserAlone, "browser-alone", true, "run each testbed with a real browser with no other testbed beside it: a browser's timings are its CPU time, which other testbeds would take")
	fs.StringVar(&f.out, "out", "", "output directory (default out/STUDY)")
	fs.BoolVar(&f.resume, "resume", true, "continue a run stored in OUT; with --resume=false an OUT holding loads is an error")
	fs.StringVar(&f.shard, "shard", "", "run only slice i/N of the conditions (0 <= i < N), for clusters; merge with 'spdylab merge'")
	f.runs.register(fs)
	fs.BoolVar(&f.noLink, "no-link", false, "load over loopback without the emulated link (smoke test without namespaces)")
	fs.BoolVar(&f.noReport, "no-report", false, "do not write the report after the run")
	fs.BoolVar(&f.quiet, "q", false, "no progress output")
	fs.StringVar(&f.pcap, "pcap", "", "write one pcap file per load into `dir` (<condition hash>-<proto>-runNNN.pcap, NNN = stored run + 1): the packets on the client's side of the emulated link")
	fs.StringVar(&f.profile, "profile", "", "a profile `file` (spdylab tune writes one): its protocols' conditions also run with its settings, beside their own (as profile = [\"\", FILE] in the study); default OUT out/STUDY+NAME")
	fs.StringVar(&f.pages, "pages", "", "folder of real pages for a study over a corpus (dir:$PAGES): "+page.CorpusHelp)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return f, flagExit(err)
	}
	fail := func(format string, a ...any) (runFlags, int) {
		fmt.Fprintf(stderr, "spdylab run: "+format+"\n", a...)
		return f, 2
	}
	switch {
	case len(pos) > 1:
		return fail("one study at a time, got %q", pos)
	case f.browserJobs < 1 || f.browserJobs > 64:
		return fail("--browser-jobs %d: want 1..64", f.browserJobs)
	}
	f.study = "quick"
	if len(pos) == 1 {
		f.study = pos[0]
	}
	return f, -1
}

// studyNotFoundHint adds to a study that is not found what a study may be
// and where the others are listed (cmd: the command that was given it).
func studyNotFoundHint(cmd string, err error) error {
	var nf *studyfile.NotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	return fmt.Errorf("%w: a study is a built-in name or a FILE.toml ('spdylab studies' lists the built-in ones with their size; 'spdylab %s -h' for help)", err, cmd)
}

// addProfile puts the profile in file beside the study's own settings.
func addProfile(s *spec.Study, file string) error {
	p, err := studyfile.ParseProfileFile(file)
	if err != nil {
		return err
	}
	return s.AddProfile(p)
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	f, status := parseRunFlags(args, stderr)
	if status >= 0 {
		return status
	}
	var sh spec.Shard
	if f.shard != "" {
		var err error
		if sh, err = spec.ParseShard(f.shard); err != nil {
			fmt.Fprintln(stderr, "spdylab run:", err)
			return 2
		}
	}
	s, err := studyfile.LoadPages(f.study, f.pages)
	if err != nil {
		fmt.Fprintln(stderr, "spdylab run:", studyNotFoundHint("run", err))
		return 1
	}
	if f.profile != "" {
		if err = addProfile(s, f.profile); err != nil {
			fmt.Fprintln(stderr, "spdylab run:", err)
			return 2
		}
	}
	if s.PagesOmitted > 0 {
		fmt.Fprintf(stderr, "spdylab run: note: %d [[matrix]] block(s) or walk(s) of %s run on real pages and are left out: give --pages DIR to run them\n", s.PagesOmitted, s.Name)
	}
	if err = s.Override(f.runs.n, f.noLink); err == nil {
		err = f.runs.apply(s)
	}
	if err != nil {
		fmt.Fprintln(stderr, "spdylab run:", err)
		return 2
	}
	if f.out == "" {
		f.out = filepath.Join("out", s.Name)
		if f.profile != "" {
			f.out += "+" + strings.TrimSuffix(filepath.Base(f.profile), filepath.Ext(f.profile))
		}
	}
	// The first Ctrl-C stops scheduling and lets the benches close (their
	// namespaces go, stored loads stay); netem's own handler, which would
	// close every testbed and exit at once, only acts on a second signal.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var signals atomic.Int32
	removeHook := netem.OnSignal(func(os.Signal) bool { return signals.Add(1) == 1 })
	defer removeHook()
	cfg := study.RunConfig{Study: s, Out: f.out, Resume: f.resume, Jobs: f.jobs, BrowserJobs: f.browserJobs, BrowserAlone: f.browserAlone, Shard: sh, Open: harnessOpener(f.pcap), Tools: benchTools(),
		Log: stderr, Quiet: f.quiet, TTY: isTerminal(stderr),
		Args: strings.Join(append([]string{"spdylab", "run"}, args...), " ")}
	if !f.quiet {
		cfg.Progress = stderr
	}
	sum, runErr := study.RunInto(ctx, cfg)
	stop()
	return finishRun(f, sum, runErr, stderr)
}

// finishRun reports a run's outcome, writes the report and picks the exit
// status.
func finishRun(f runFlags, sum study.Summary, runErr error, stderr io.Writer) int {
	if errors.Is(runErr, study.ErrOutHoldsLoads) || sum == (study.Summary{}) && runErr != nil {
		fmt.Fprintln(stderr, "spdylab run:", runErr)
		return 1
	}
	if !f.quiet && sum.Skipped > 0 {
		fmt.Fprintf(stderr, "spdylab: %d loads were already stored and were skipped\n", sum.Skipped)
	}
	stalled := ""
	if sum.Stalled > 0 {
		stalled = fmt.Sprintf(", %d of them loaded again after the link emulator stalled", sum.Stalled)
	}
	fmt.Fprintf(stderr, "spdylab: %d loads stored (%d failed attempts%s) in %s\n", sum.Attempts, sum.Failed, stalled, sum.Elapsed.Round(1e9))
	if !f.noReport && sum.Attempts+sum.Skipped > 0 {
		if a, err := report.Build(f.out); err != nil {
			fmt.Fprintln(stderr, "spdylab run: report:", err)
			if runErr == nil {
				return 1
			}
		} else {
			fmt.Fprintf(stderr, "spdylab: report: %s\n", filepath.Join(f.out, report.HTMLFile))
			if w := a.LateWarning(); w != "" {
				fmt.Fprintln(stderr, "spdylab: warning:", w)
			}
		}
	}
	switch {
	case sum.Canceled:
		fmt.Fprintf(stderr, "spdylab run: interrupted; %d loads are stored, run the same command again to resume\n", sum.Attempts)
		return 130
	case runErr != nil:
		fmt.Fprintln(stderr, "spdylab run:", runErr)
		return 1
	}
	return 0
}

// jobsFlag is -j: a number of testbeds 1..study.MaxJobs, or auto
// (study.JobsAuto).
type jobsFlag int

func (j *jobsFlag) String() string {
	if j == nil || int(*j) == study.JobsAuto {
		return "auto"
	}
	return strconv.Itoa(int(*j))
}

func (j *jobsFlag) Set(s string) error {
	if s == "auto" {
		*j = study.JobsAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > study.MaxJobs {
		return fmt.Errorf("want auto or 1..%d", study.MaxJobs)
	}
	*j = jobsFlag(n)
	return nil
}

// isTerminal tells whether w is a terminal (the progress display redraws
// a bar there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
