package study

import (
	"runtime"
	"sync"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

// The CPU a loader load costs, roughly, for the initial size: a fixed part
// (processes, handshakes, the loader's bookkeeping, the result's JSON)
// and a part per byte of the page (TLS, the server's writes, the
// emulator's two copies, the loader's reads). Rough figures for a 2-core
// machine; the feedback corrects what they get wrong.
const (
	loadCPUMs        = 250.0
	loadCPUNsPerByte = 40.0
)

// modelledCPUMs is the modelled CPU time of one loader load of m.
func modelledCPUMs(m *page.Manifest) float64 {
	return loadCPUMs + float64(m.TotalBytes())*loadCPUNsPerByte/1e6
}

// jobSizer gives the run its number of testbeds: fixed (-j N), or sized
// by a jobsController from the loads' feedback and the machine.
type jobSizer struct {
	mu      sync.Mutex
	size    int
	ctl     *jobsController      // nil when fixed
	sample  func() machineSample // the machine now (/proc; tests fake it)
	prog    *progress
	st      *store.Store
	sess    int64
	largest int
}

// newJobSizer sizes a run of tasks: r.Jobs when set, else from the
// modelled work of the loads that run side by side (r.weight must hold
// their modelled wall times).
func (r *Runner) newJobSizer(tasks []task, now time.Time) *jobSizer {
	if r.Jobs != JobsAuto {
		n := clampJobs(r.Jobs)
		return &jobSizer{size: n, largest: n}
	}
	var w jobsWork
	for _, t := range tasks {
		if groupIsBrowser(t.group) {
			continue // CPU-bound, and they run alone (or capped) anyway
		}
		for _, pps := range t.pending {
			for _, pp := range pps {
				c := t.group.Conds[pp.cond]
				if m := r.pages.Opened(c.Page, c.Shards, c.ShardMode); m != nil {
					w.add(r.weight[c.Hash], m)
				}
			}
		}
	}
	j := &jobSizer{sample: r.machine}
	if j.sample == nil {
		j.sample = (&machineSampler{}).sample
	}
	j.ctl = newJobsController(w, runtime.NumCPU(), j.sample(), now)
	if r.rules != nil {
		j.ctl.rules = *r.rules
	}
	j.size, j.largest = j.ctl.size, j.ctl.size
	return j
}

// attach makes the sizer show its choices in prog and record them in the
// store's session.
func (j *jobSizer) attach(prog *progress, st *store.Store, sess int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.prog, j.st, j.sess = prog, st, sess
	if j.ctl != nil {
		prog.resized(j.size, j.ctl.status(), "")
	}
}

// lateLimitMs is report.LateLimitMs, the lateness above which the report
// counts a load's emulator as late (a test keeps the two equal; the
// runner does not import the report and its plotting).
const lateLimitMs = 1.0

// observe takes a finished load's feedback: how late the link emulator
// released packets (judged against lateLimitMs, the report's own line)
// and, for a load that succeeded, its PLT under its condition's hash, the
// evidence of whether that lateness moved the results.
func (j *jobSizer) observe(started time.Time, cond string, res probe.Result) {
	if j.ctl == nil {
		return
	}
	f := loadFeedback{cond: cond, lateP99: max(res.Link.Down.LateP99ms, res.Link.Up.LateP99ms)}
	if !res.Failed {
		f.pltMs = res.PLTms
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ctl.observe(started, f)
	j.prog.resized(j.size, j.ctl.status(), "") // the late share as of this load
}

// adjust samples the machine, applies the controller's rules and returns
// the size; a change is shown and recorded. running is the testbeds
// running now.
func (j *jobSizer) adjust(now time.Time, running int) int {
	if j.ctl == nil {
		return j.size
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if running > j.size {
		j.ctl.settling(now)
	}
	j.ctl.sample(j.sample())
	n, changed := j.ctl.decide(now)
	why := ""
	if changed {
		why = "auto: " + j.ctl.why
		j.size, j.largest = n, max(j.largest, n)
		if j.st != nil {
			// Provenance only: a failed write must not stop the run.
			_ = j.st.SetSessionJobs(j.sess, j.largest, j.ctl.trace())
		}
	}
	j.prog.resized(n, j.ctl.status(), why)
	return n
}

// how says how the size was chosen ("" for a fixed size).
func (j *jobSizer) how() string {
	if j.ctl == nil {
		return ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ctl.bound + " loads, " + j.ctl.why
}

// trace is the session's JobsAuto ("" for a fixed size).
func (j *jobSizer) trace() string {
	if j.ctl == nil {
		return ""
	}
	return j.ctl.trace()
}
