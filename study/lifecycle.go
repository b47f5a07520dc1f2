package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// RunConfig is one `spdylab run`: a study into an output directory.
type RunConfig struct {
	Study  *spec.Study
	Out    string // output directory: results.db, .run.lock, .work/
	Resume bool   // false: an Out that already holds loads is an error
	Jobs   int    // parallel testbeds; JobsAuto sizes them while the run runs
	Shard  spec.Shard
	Open   Opener
	// Progress receives the progress display (nil = none; TTY redraws a
	// bar); Log receives warnings and, unless Quiet, notes about the
	// directory (nil = none).
	Progress, Log io.Writer
	TTY, Quiet    bool
	Args          string // command line, for provenance
	// Tools are the programs the benches run whose versions the provenance
	// records (name -> a command that prints the version). The caller knows
	// which clients its Opener starts; the runner does not.
	Tools map[string][]string

	// BrowserJobs caps parallel benches of browser clients; BrowserAlone
	// runs each alone instead (Runner).
	BrowserJobs  int
	BrowserAlone bool
}

// ErrOutHoldsLoads is returned by RunInto for an Out that already holds
// loads when Resume is false.
var ErrOutHoldsLoads = errors.New("already holds loads and resume is off; choose another output directory")

// RunInto runs a study into cfg.Out with the whole lifecycle of a run
// directory: refuse a used one unless resuming, create or reopen the
// store (a different study in it is an error), take OUT/.run.lock, clean
// up what a killed earlier run left (its testbeds and scratch files), then
// run the study's missing loads. The store is closed when it returns.
func RunInto(ctx context.Context, cfg RunConfig) (Summary, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	if err := refuseUsedOut(cfg.Out, cfg.Resume); err != nil {
		return Summary{}, err
	}
	if err := CheckHost(cfg.Study); err != nil {
		return Summary{}, err
	}
	// The lock comes before the store: two runs started at once would
	// otherwise create it side by side, and the second would see the
	// first's half-made file instead of being told a run holds the
	// directory.
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return Summary{}, err
	}
	lock, err := LockRun(cfg.Out)
	if err != nil {
		return Summary{}, err
	}
	defer lock.Release()
	st, err := store.CreateStore(cfg.Out, cfg.Study)
	if err != nil {
		return Summary{}, err
	}
	defer st.Close()
	cleanAfterKilledRun(cfg.Out, lock.PrevPID, log, cfg.Quiet)
	r := &Runner{Study: cfg.Study, Store: st, Open: cfg.Open, Jobs: cfg.Jobs, Shard: cfg.Shard, BrowserJobs: cfg.BrowserJobs,
		BrowserAlone: cfg.BrowserAlone,
		WorkDir:      filepath.Join(cfg.Out, ".work"), Progress: cfg.Progress, TTY: cfg.TTY, Args: cfg.Args, Tools: cfg.Tools,
		pages: page.Cache{}}
	if !cfg.Quiet {
		// The estimate reuses the pages the runner opened for its schedule,
		// at the size the runner starts with.
		r.Announce = func(testbeds int, how string) {
			if e, err := spec.EstimateWith(cfg.Study, testbeds, r.pages); err == nil {
				fmt.Fprintf(log, "spdylab: study %s: %d conditions x %s loads into %s (estimate %s at %s%s)\n",
					cfg.Study.Name, len(cfg.Study.Conditions), runsText(cfg.Study), cfg.Out, e.Total.Round(time.Second), jobsNote(testbeds, how), shardNote(cfg.Shard))
			}
		}
	}
	return r.Run(ctx)
}

// jobsNote names the testbeds a run starts with and, for -j auto, why.
func jobsNote(testbeds int, how string) string {
	if how == "" {
		return fmt.Sprintf("-j %d", testbeds)
	}
	return fmt.Sprintf("%d testbeds to start with; -j auto: %s", testbeds, how)
}

func shardNote(sh spec.Shard) string {
	if sh.N <= 1 {
		return ""
	}
	return fmt.Sprintf(", whole study; this is shard %s", sh)
}

// refuseUsedOut fails when out holds stored loads and resume is off.
func refuseUsedOut(out string, resume bool) error {
	if resume {
		return nil
	}
	st, err := store.OpenStore(out)
	if err != nil {
		return nil // no store yet: nothing to refuse
	}
	states, _ := st.States()
	st.Close()
	if len(states) > 0 {
		return fmt.Errorf("%s holds %d loads: %w", out, len(states), ErrOutHoldsLoads)
	}
	return nil
}

// cleanAfterKilledRun removes what a killed run into out left behind: the
// testbeds it owned (namespaces, the processes in them, state) and its
// scratch directory. Holding the run lock makes both ours to remove.
func cleanAfterKilledRun(out string, prevPID int, log io.Writer, quiet bool) {
	if prevPID > 0 && os.Geteuid() == 0 {
		rep, err := netem.CleanOwnedBy(prevPID)
		if len(rep.Namespaces) > 0 && !quiet {
			fmt.Fprintf(log, "spdylab: removed %d namespaces and %d processes left by the killed run (pid %d)\n",
				len(rep.Namespaces), len(rep.Killed), prevPID)
		}
		if err != nil {
			fmt.Fprintf(log, "spdylab run: warning: cleaning up after the killed run (pid %d): %v (try spdylab clean)\n", prevPID, err)
		}
	}
	if err := os.RemoveAll(filepath.Join(out, ".work")); err != nil {
		fmt.Fprintln(log, "spdylab run: warning: removing old scratch files:", err)
	}
}
