package findings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
)

// DefaultOut is where the stores and FINDINGS.md go by default.
const DefaultOut = "out/findings"

// Options configure Run.
type Options struct {
	Dir   string   // the findings files (DefaultDir)
	Out   string   // one store folder per finding, and FINDINGS.md (DefaultOut)
	Only  []string // run and show only these findings (names without .toml)
	Runs  int      // > 0: loads per cell instead of each file's (a quick pass)
	Pages string   // the recordings folder for findings that need it
	// NoRun writes FINDINGS.md from what the stores hold, running nothing:
	// a missing, stale or failed finding is shown as such.
	NoRun bool
	Jobs  int          // parallel testbeds (study.JobsAuto)
	Open  study.Opener // the runner's bench (the harness, from cmd)
	// Driver runs a driver finding and returns its output (nil: go run
	// in the repository, goDriver).
	Driver func(ctx context.Context, f *File, args []string) ([]byte, error)
	Log    io.Writer // progress and notes (nil: none)
	// Command is the command line, kept in each row.
	Command string
	now     func() time.Time
}

// Report is what Run wrote.
type Report struct {
	Rows           []Row
	Markdown, HTML string // the files written
}

// Run runs every finding that is missing or partial into its store under
// opt.Out (resuming a partial one), then writes FINDINGS.md and
// findings.html there. A finding that fails gets a failed row and the
// others still run; the returned error is only for what stops the whole
// command (bad options, an interrupt, the output not written).
func Run(ctx context.Context, opt Options) (*Report, error) {
	opt = withDefaults(opt)
	names, err := selectNames(opt)
	if err != nil {
		return nil, err
	}
	if !opt.NoRun && revision() == "unknown" {
		// Rows name the commit their loads came from; without one a
		// reader cannot tell which code made them.
		fmt.Fprintln(opt.Log, "spdylab findings: warning: this binary carries no source revision (built with plain go build, outside a git work tree): the rows will say \"commit unknown\"; build it with `make build` (bin/spdylab) to stamp it")
	}
	var rows []Row
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows = append(rows, runOne(ctx, opt, n)...)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted during %s; what is stored stays, run the same command again to resume: %w", n, ctx.Err())
		}
	}
	return writeReport(opt, rows)
}

func withDefaults(opt Options) Options {
	if opt.Dir == "" {
		opt.Dir = DefaultDir
	}
	if opt.Out == "" {
		opt.Out = DefaultOut
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.now == nil {
		opt.now = time.Now
	}
	if opt.Driver == nil {
		opt.Driver = goDriver(opt.Dir)
	}
	return opt
}

// selectNames is every findings file, or those --only names (each must
// exist: a typo is an error, not an empty report).
func selectNames(opt Options) ([]string, error) {
	all, err := Names(opt.Dir)
	if err != nil {
		return nil, err
	}
	if len(opt.Only) == 0 {
		return all, nil
	}
	have := map[string]bool{}
	for _, n := range all {
		have[n] = true
	}
	for _, n := range opt.Only {
		if !have[n] {
			return nil, fmt.Errorf("--only %s: no findings file %s (have %s)", n, filepath.Join(opt.Dir, n+".toml"), strings.Join(all, ", "))
		}
	}
	return opt.Only, nil
}

// StoreDir is a finding's store folder: OUT/NAME, or OUT/NAME.runsN for a
// pass with --runs N, so a quick pass never takes the place of a full run.
func StoreDir(out, name string, runs int) string {
	if runs > 0 {
		name += ".runs" + strconv.Itoa(runs)
	}
	return filepath.Join(out, name)
}

// runOne brings one finding up to date (unless NoRun) and returns its
// rows. Nothing it finds wrong stops the other findings.
func runOne(ctx context.Context, opt Options, name string) []Row {
	dir := StoreDir(opt.Out, name, opt.Runs)
	base := Row{Finding: name, Store: dir, Command: findingCommand(opt, name)}
	f, err := Read(opt.Dir, name)
	if err != nil {
		base.Status, base.Reason = StatusBroken, "the findings file does not parse: "+err.Error()+staleNote(dir)
		return []Row{base}
	}
	base.Question, base.Loads, base.Sample = f.Question, f.Loads, f.Sample
	if !bytes.Contains(f.Src, []byte("$PAGES")) {
		noPages := opt
		noPages.Pages = ""
		base.Command = findingCommand(noPages, name)
	}
	if opt.Runs > 0 {
		base.Loads = fmt.Sprintf("%d per cell (a quick --runs %d pass; the file asks for: %s)", opt.Runs, opt.Runs, f.Loads)
	}
	if f.Kind == KindDriver {
		return []Row{runDriver(ctx, opt, f, dir, base)}
	}
	s, err := f.Study(opt.Pages, opt.Runs)
	if errors.Is(err, ErrNeedsPages) {
		base.Status, base.Reason = StatusNeedsPages, err.Error()
		return []Row{base}
	}
	if err != nil {
		base.Status, base.Reason = StatusBroken, "the findings file does not parse: "+err.Error()+staleNote(dir)
		return []Row{base}
	}
	if why := staleReason(dir, s); why != "" {
		if opt.NoRun {
			base.Status, base.Reason = StatusStale, "its store does not match the file: "+why
			return []Row{base}
		}
		to, err := moveAside(dir, opt.now())
		if err != nil {
			base.Status, base.Reason = StatusFailed, "its store does not match the file ("+why+") and could not be moved aside: "+err.Error()
			return []Row{base}
		}
		fmt.Fprintf(opt.Log, "spdylab findings: %s: the store did not match the file (%s); kept at %s, running afresh\n", name, why, to)
		base.Note = "run afresh: the earlier store (kept at " + to + ") did not match the file"
	}
	if !opt.NoRun {
		if err := runStudy(ctx, opt, f, s, dir); err != nil {
			base.Status, base.Reason = StatusFailed, err.Error()
			return []Row{base}
		}
	}
	return studyRows(f, s, dir, base)
}

// staleNote tells a broken file's reader that an old store is not shown.
func staleNote(dir string) string {
	if hasStore(dir) {
		return " (its store " + dir + " is from an earlier version of the file and is not shown)"
	}
	return ""
}

// runStudy runs the finding's missing loads into dir, stamping the folder
// before and after so that a failure is shown as one.
func runStudy(ctx context.Context, opt Options, f *File, s *spec.Study, dir string) error {
	st := &Stamp{File: f.Path, FileSum: f.Sum, Fingerprint: s.Fingerprint(), Pages: s.Pages, Runs: opt.Runs,
		State: StateRunning, Command: findingCommand(opt, f.Name), Revision: revision(), Started: opt.now()}
	if err := writeStamp(dir, st); err != nil {
		return err
	}
	fmt.Fprintf(opt.Log, "spdylab findings: %s: %d conditions x %d loads into %s\n", f.Name, len(s.Conditions), s.Runs, dir)
	sum, err := study.RunInto(ctx, study.RunConfig{Study: s, Out: dir, Resume: true, Jobs: opt.Jobs, Open: opt.Open,
		BrowserJobs: study.DefaultBrowserJobs(), BrowserAlone: true, Log: opt.Log, Quiet: true, Args: st.Command})
	st.Finished = opt.now()
	switch {
	case sum.Canceled || ctx.Err() != nil:
		st.State, st.Error = StateFailed, "interrupted: run again to resume"
	case err != nil:
		st.State, st.Error = StateFailed, err.Error()
	default:
		st.State = StateDone
	}
	if werr := writeStamp(dir, st); werr != nil && err == nil {
		err = werr
	}
	if st.State == StateFailed {
		return errors.New(st.Error)
	}
	return nil
}

// findingCommand is the command that brings one finding up to date.
func findingCommand(opt Options, name string) string {
	parts := []string{"spdylab", "findings", "--only", name}
	if opt.Out != DefaultOut {
		parts = append(parts, "--out", opt.Out)
	}
	if opt.Runs > 0 {
		parts = append(parts, "--runs", strconv.Itoa(opt.Runs))
	}
	if opt.Pages != "" {
		parts = append(parts, "--pages", opt.Pages)
	}
	return strings.Join(parts, " ")
}

// revision is this binary's source revision, as the runner stores it
// (once: collecting provenance asks the machine several things).
var revision = sync.OnceValue(study.SourceRevision)

// hostname names the machine in a row.
func hostname() string {
	h, _ := os.Hostname()
	return h
}
