package study

import (
	"runtime"
	"sync"
	"time"

	"github.com/spdylab/spdylab/study/autosize"
	"github.com/spdylab/spdylab/study/event"
	"github.com/spdylab/spdylab/study/store"
)

// JobsAuto as Runner.Jobs lets the runner size its testbeds itself (the
// default of spdylab run): an autosize.Controller starts from the
// modelled work and adjusts from what the loads report while the study
// runs.
const JobsAuto = 0

// MaxJobs bounds the testbeds of a run, fixed or automatic.
const MaxJobs = autosize.MaxJobs

// runEnv is what every worker of a run shares beside its benches: the
// session, the run's one set of counts, and those that follow its load
// events: the progress with its ETA, and -j auto's controller with the
// size it gave (fixed for -j N). The controller and the ETA know neither
// the store nor the progress; runEnv shows and records what they decide.
// One lock orders the events and the sizing.
type runEnv struct {
	mu     sync.Mutex
	counts event.Counts
	lastID int64
	prog   *progress
	st     *store.Store
	sess   int64
	// size is the testbeds wanted now, largest the most so far (the
	// session's jobs); ctl is nil for a fixed size.
	size, largest int
	ctl           *autosize.Controller
	sample        func() autosize.Machine // the machine now (/proc; tests fake it)
}

// newRunEnv sizes a run of tasks: r.Jobs when set, else from the
// modelled work of the loads that run side by side (r.weight must hold
// their modelled wall times).
func (r *Runner) newRunEnv(tasks []task, now time.Time) *runEnv {
	if r.Jobs != JobsAuto {
		n := autosize.Clamp(r.Jobs)
		return &runEnv{size: n, largest: n}
	}
	var w autosize.Work
	for _, t := range tasks {
		if groupIsBrowser(t.group) {
			continue // CPU-bound, and they run alone (or capped) anyway
		}
		for _, pps := range t.pending {
			for _, pp := range pps {
				c := t.group.Conds[pp.cond]
				if m := r.pages.Opened(c.Page, c.Shards, c.ShardMode); m != nil {
					w.Add(r.weight[c.Hash], m)
				}
			}
		}
	}
	env := &runEnv{sample: r.machine}
	if env.sample == nil {
		env.sample = (&autosize.Sampler{}).Sample
	}
	rules := autosize.DefaultRules
	if r.rules != nil {
		rules = *r.rules
	}
	env.ctl = autosize.New(w, runtime.NumCPU(), env.sample(), now, rules)
	env.size, env.largest = env.ctl.Size(), env.ctl.Size()
	return env
}

// attach gives the run its progress and its store's session, where the
// sizes are shown and recorded.
func (env *runEnv) attach(prog *progress, st *store.Store, sess int64) {
	env.mu.Lock()
	defer env.mu.Unlock()
	env.prog, env.st, env.sess = prog, st, sess
	if env.ctl != nil {
		prog.resized(env.size, env.ctl.Status(), "")
	}
}

// publish tells a load's event to the counts, the progress (and its ETA)
// and -j auto, in the order the loads report them; a start gets its id,
// returned for the load's end.
func (env *runEnv) publish(ev event.Load) int64 {
	env.mu.Lock()
	defer env.mu.Unlock()
	if !ev.End {
		env.lastID++
		ev.ID = env.lastID
	}
	env.counts.Add(ev)
	env.prog.observe(ev, env.counts)
	if ev.End && env.ctl != nil {
		env.ctl.Observe(ev)
		env.prog.resized(env.size, env.ctl.Status(), "") // the late share as of this load
	}
	return ev.ID
}

// tally is the counts so far.
func (env *runEnv) tally() event.Counts {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.counts
}

// testbeds is the size wanted now.
func (env *runEnv) testbeds() int {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.size
}

// adjust asks the controller for the size now, with running testbeds
// running and the machine sampled; a change is shown and recorded.
func (env *runEnv) adjust(now time.Time, running int) int {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.ctl == nil {
		return env.size
	}
	d := env.ctl.Decide(now, running, env.sample())
	why := ""
	if d.Changed {
		why = "auto: " + d.Why
		env.size, env.largest = d.Size, max(env.largest, d.Size)
		if env.st != nil {
			// Provenance only: a failed write must not stop the run.
			_ = env.st.SetSessionJobs(env.sess, env.largest, env.ctl.Trace())
		}
	}
	env.prog.resized(d.Size, env.ctl.Status(), why)
	return d.Size
}

// how says how the size was chosen ("" for a fixed size).
func (env *runEnv) how() string {
	if env.ctl == nil {
		return ""
	}
	return env.ctl.How()
}

// trace is the session's JobsAuto ("" for a fixed size).
func (env *runEnv) trace() string {
	if env.ctl == nil {
		return ""
	}
	return env.ctl.Trace()
}
