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

// jobSizer gives the run its number of testbeds: fixed (-j N), or what an
// autosize.Controller decides from the load events and the machine. It
// shows the controller's decisions in the progress and records them in
// the store's session; the controller itself knows neither.
type jobSizer struct {
	mu      sync.Mutex
	size    int
	largest int
	ctl     *autosize.Controller    // nil when fixed
	sample  func() autosize.Machine // the machine now (/proc; tests fake it)
	prog    *progress
	st      *store.Store
	sess    int64
}

// newJobSizer sizes a run of tasks: r.Jobs when set, else from the
// modelled work of the loads that run side by side (r.weight must hold
// their modelled wall times).
func (r *Runner) newJobSizer(tasks []task, now time.Time) *jobSizer {
	if r.Jobs != JobsAuto {
		n := autosize.Clamp(r.Jobs)
		return &jobSizer{size: n, largest: n}
	}
	var w autosize.Work
	for _, t := range tasks {
		if groupIsBrowser(t.group) {
			continue // CPU-bound, and they run alone (or capped) anyway
		}
		for _, pps := range t.pending {
			for _, pp := range pps {
				c := t.group.Conds[pp.cond]
				if m := r.pages.Opened(c.Page, c.Shards, c.ShardMode); m != nil && r.weight[c.Hash] > 0 {
					w.WallMs += r.weight[c.Hash]
					w.CPUMs += autosize.ModelledCPUMs(m)
				}
			}
		}
	}
	j := &jobSizer{sample: r.machine}
	if j.sample == nil {
		j.sample = (&autosize.Sampler{}).Sample
	}
	rules := autosize.DefaultRules
	if r.rules != nil {
		rules = *r.rules
	}
	j.ctl = autosize.New(w, runtime.NumCPU(), j.sample(), now, rules)
	j.size, j.largest = j.ctl.Size(), j.ctl.Size()
	return j
}

// attach makes the sizer show its choices in prog and record them in the
// store's session.
func (j *jobSizer) attach(prog *progress, st *store.Store, sess int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.prog, j.st, j.sess = prog, st, sess
	if j.ctl != nil {
		prog.resized(j.size, j.ctl.Status(), "")
	}
}

// observe passes a load event to the controller and shows the late share
// as of this load.
func (j *jobSizer) observe(ev event.Load) {
	if j.ctl == nil || !ev.End {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ctl.Observe(ev)
	j.prog.resized(j.size, j.ctl.Status(), "")
}

// adjust asks the controller for the size now, with running testbeds
// running and the machine sampled; a change is shown and recorded.
func (j *jobSizer) adjust(now time.Time, running int) int {
	if j.ctl == nil {
		return j.size
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	d := j.ctl.Decide(now, running, j.sample())
	why := ""
	if d.Changed {
		why = "auto: " + d.Why
		j.size, j.largest = d.Size, max(j.largest, d.Size)
		if j.st != nil {
			// Provenance only: a failed write must not stop the run.
			_ = j.st.SetSessionJobs(j.sess, j.largest, j.ctl.Trace())
		}
	}
	j.prog.resized(d.Size, j.ctl.Status(), why)
	return d.Size
}

// how says how the size was chosen ("" for a fixed size).
func (j *jobSizer) how() string {
	if j.ctl == nil {
		return ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ctl.How()
}

// trace is the session's JobsAuto ("" for a fixed size).
func (j *jobSizer) trace() string {
	if j.ctl == nil {
		return ""
	}
	return j.ctl.Trace()
}
