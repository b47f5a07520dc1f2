// Package autosize is `spdylab run -j auto`: how many testbeds a run keeps
// side by side. Its Controller is pure logic: the runner's load events
// (event.Load) and machine samples in, a size and the reason for it out.
// It keeps no pointer into the runner, its progress or the store.
package autosize

import (
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/event"
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

// ModelledCPUMs is the modelled CPU time of one loader load of m.
func ModelledCPUMs(m *page.Manifest) float64 {
	return loadCPUMs + float64(m.TotalBytes())*loadCPUNsPerByte/1e6
}

// Add counts one load of page m whose modelled wall time is wallMs; a
// load the model gives no time is left out, as it says nothing of the run.
func (w *Work) Add(wallMs float64, m *page.Manifest) {
	if wallMs > 0 {
		w.WallMs += wallMs
		w.CPUMs += ModelledCPUMs(m)
	}
}

// New starts a controller for a run of work on cpus CPUs, the machine as
// m says it is at now, deciding by rules.
func New(w Work, cpus int, m Machine, now time.Time, rules Rules) *Controller {
	c := newController(w, cpus, m, now)
	c.rules = rules
	return c
}

// Observe takes one of the runner's load events. Only a load that ended
// beside other testbeds is evidence: one that ran alone says nothing
// about how many can run side by side. A stalled load counts as a stall,
// its PLT (failed, not kept) as no evidence of harm.
func (c *Controller) Observe(ev event.Load) {
	if !ev.End || ev.Serial {
		return
	}
	f := loadFeedback{cond: ev.Cond, lateP99: ev.LateP99ms, waitP99: ev.WaitP99ms}
	if !ev.Failed {
		f.pltMs = ev.PLTms
	}
	c.observe(ev.Started, f)
}

// Decision is the size the controller wants at one moment: Changed tells
// a new size, Why its reason.
type Decision struct {
	Size    int
	Changed bool
	Why     string
}

// Decide applies the rules at now, running testbeds running (workers stop
// only between runs: while more than the size run, the evidence about the
// size has not begun) and the machine as m says it is.
func (c *Controller) Decide(now time.Time, running int, m Machine) Decision {
	if running > c.size {
		c.settling(now)
	}
	c.sample(m)
	n, changed := c.decide(now)
	d := Decision{Size: n, Changed: changed}
	if changed {
		d.Why = c.why
	}
	return d
}

// Size is the current size.
func (c *Controller) Size() int { return c.size }

// How says how the first size was chosen: "link-bound loads, their wall
// time modelled at 12.0x their CPU time".
func (c *Controller) How() string { return c.bound + " loads, " + c.why }

// Status is the progress display's note (status).
func (c *Controller) Status() string { return c.status() }

// Trace is the sizes gone through, when and why, for the provenance
// (trace).
func (c *Controller) Trace() string { return c.trace() }
