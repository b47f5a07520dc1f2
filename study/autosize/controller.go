package autosize

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
)

// MaxJobs bounds the testbeds of a run, fixed or automatic.
const MaxJobs = 64

// The automatic sizing's rules. What a load waits on decides how many
// testbeds a machine can run: a load over a 200 ms link spends most of its
// wall time waiting on timers and uses little CPU, one over loopback is
// CPU all along. The measure of "too many" is a load running short of
// CPU (stats.Late): the link emulator's lateness or the endpoints' wait
// for a CPU, which the runner stores with every load (probe.LinkDir,
// probe.EndpointWait), weighed by its effect on what the study measures,
// as the report does: more than 1% of the loads late shrinks
// the testbeds unless enough late loads show that their PLTs lie where
// their conditions' on-time loads do (harm.go); stalls of the whole
// machine (p99 over stats.SevereLateMs in more than 1% of the loads) shrink
// whatever the PLTs say, unless the CPUs had time to spare meanwhile
// (spareCPU): the emulator's threads run SCHED_FIFO and find an idle
// CPU at once, so a stall beside idle CPUs is the host's (virtual CPUs
// held back, timer latency) at any size, and the runner loads the stalled load again
// (the runner's stall retry). Growing needs nearly no late loads, or late loads shown
// harmless, and idle CPU.
const (
	// targetCPUShare is the share of the CPUs the initial size plans the
	// loads to use, leaving the rest to the emulators' timing.
	targetCPUShare = 0.5
	// initialPerCPU caps the initial size at this many testbeds per CPU:
	// the feedback, not the model, takes a run beyond it (network-bound
	// studies keep their emulators on time far past one testbed per CPU).
	initialPerCPU = 8
	// lateShrinkShare: more late loads than this share (and at least
	// lateShrinkMin of them) shrinks the testbeds (shrink) unless the
	// harm evidence says they are harmless; more severely late ones than
	// this share shrinks them whatever it says.
	lateShrinkShare = 0.01
	lateShrinkMin   = 2
	// lateGrowShare: growing needs the late share under this, half the
	// shrink threshold, so that a size between the two stays put (over a
	// window of recentLoads loads: growing needs none late, shrinking
	// three).
	lateGrowShare = 0.005
	// growIdleCPU is the idle CPU share growing needs, besides the
	// evidence of Rules.
	growIdleCPU = 0.25
	// spareCPU is the idle CPU share, averaged over the samples since the
	// last change, beside which severe stalls are the host's, not the
	// testbeds': a host that holds its virtual CPUs back stalls loads at
	// few testbeds with the CPUs mostly idle as often as at many.
	spareCPU = growIdleCPU
	// halveShare: when at least this share of the loads since the last
	// change ran late, most of them for their endpoints' wait for a CPU
	// (endpointsStarve: the testbeds' own doing), the controller halves
	// the testbeds instead of taking a quarter away. The 30 recordings
	// started at 16 on 2 cores with every load's endpoints waiting at 16,
	// 12, 9, 7 and 6 testbeds: a quarter at a time took 9 minutes to get
	// there, each step waiting for its loads. An emulator late in most
	// loads may be the host's at any size (study1 on a VM late at 3
	// testbeds as at 8), where halving would only cost throughput. It
	// also wants GrowMinLoads loads: study1's finding halved 9 -> 5 on 6
	// loads whose endpoints waited, and grew back one testbed at a time.
	halveShare = 0.5
	// ceilingHold is how long a size that ran late stays a ceiling for
	// growth: without it the controller would grow back into the same
	// lateness one cooldown later.
	ceilingHold    = 10 * time.Minute
	maxCeilingHold = 80 * time.Minute
	// testbedMemMiB is a testbed's memory, roughly: namespaces, the link
	// emulator's process, servers and loader with their buffers.
	testbedMemMiB = 150
	// memFloorMiB is the memory the controller leaves available.
	memFloorMiB = 1024
	// recentLoads is how many loads the late share shown in the progress
	// is computed over.
	recentLoads = 200
)

// Rules are the evidence a grow step needs; tests shorten them.
type Rules struct {
	// GrowMinLoads is the fewest loads started at the current size; the
	// controller also wants three per testbed, so that each was measured
	// and a size a few percent late rarely passes for one on time.
	GrowMinLoads int
	Cooldown     time.Duration // the least time between two changes
}

// DefaultRules are the rules of a real run.
var DefaultRules = Rules{GrowMinLoads: 20, Cooldown: 20 * time.Second}

// Work is the modelled work of a run, for the initial size: the
// loads' modelled wall time and CPU time, both in milliseconds, of the
// loads that run side by side (a browser's loads run alone and are CPU
// time all along, so they are left out).
type Work struct {
	WallMs, CPUMs float64
}

// lateness is a load's emulator lateness as the controller counts it.
type lateness uint8

const (
	onTime lateness = iota
	late            // p99 over stats.LateLimitMs
	severe          // p99 over stats.SevereLateMs
)

// loadFeedback is what the controller learns from one finished load.
type loadFeedback struct {
	cond    string  // the condition's hash
	pltMs   float64 // 0 for a failed load
	lateP99 float64 // the emulator's lateness p99 (ms), the worse direction
	waitP99 float64 // the endpoints' CPU wait p99 (ms)
}

// mark is how the controller counts one load: its lateness, and whether
// its endpoints waited for a CPU past stats.WaitLimitMs.
type mark struct {
	level  lateness
	waited bool
}

// mark is late when the load ran short of CPU (stats.Late: its emulator
// or its endpoints) and severe only when the emulator stalled: the stall
// retry's line, which the endpoints' wait does not move.
func (f loadFeedback) mark() mark {
	m := mark{waited: f.waitP99 > stats.WaitLimitMs}
	switch {
	case f.lateP99 > stats.SevereLateMs:
		m.level = severe
	case stats.Late(f.lateP99, f.waitP99):
		m.level = late
	}
	return m
}

// sizeStep is one size the controller went to: the size, why ("" for the
// first) and when, from the start of the run.
type sizeStep struct {
	size int
	why  string
	at   time.Duration
}

// Machine is what the machine says at one moment: the share of CPU
// time idle since the previous sample (negative = unknown) and the memory
// available (MiB; 0 = unknown).
type Machine struct {
	IdleCPU     float64
	MemAvailMiB int
}

// Controller sizes the testbeds of an automatic run. It is pure
// logic: the runner feeds it each load's lateness and machine samples with
// their times, and asks it for the size.
type Controller struct {
	rules   Rules
	cpus    int
	size    int
	limit   int        // MaxJobs, or less when memory says so at the start
	bound   string     // what the modelled loads wait on: link-bound, CPU-bound, mixed
	history []sizeStep // every size it went through, the first one first
	start   time.Time

	changed time.Time // when size last changed
	// since is the lateness of the last recentLoads loads started since
	// the last change (the evidence about the current size; a window, so
	// that a long quiet spell does not dilute new lateness); loads, late
	// and severe count them (severe ones are late too). recent is the
	// same whatever the size, for the display.
	// waited counts the loads of since whose endpoints waited for a CPU.
	since                       []mark
	loads, late, severe, waited int
	recent                      []mark
	// harm is whether late loads move the PLTs, the run's evidence.
	harm lateHarm
	// ceiling is the smallest size that ran late (0 = never), a limit
	// until ceilingTill; once there was one, growth probes one testbed at
	// a time.
	ceiling     int
	ceilingTill time.Time
	hold        time.Duration // how long the ceiling holds
	// shrankAt is the late (or severe, shrankSevere) share that made the
	// controller shrink last (0 = it has grown since): if the smaller
	// size is no better, the lateness is the machine's, baseline until
	// baselineTill (or severeBaseline until severeTill). Each time the
	// machine shows the same again, it is trusted twice as long
	// (baselineHold, severeHold; from ceilingHold up to maxCeilingHold):
	// on a host that is late at every size, each check of the baseline
	// costs a shrink and the loads to judge it.
	shrankAt       float64
	shrankSevere   bool
	baseline       float64
	baselineTill   time.Time
	baselineHold   time.Duration
	severeBaseline float64
	severeTill     time.Time
	severeHold     time.Duration
	machine        Machine
	// idleSum and idleN average the idle CPU of the samples since the
	// last change (spareCPU).
	idleSum      float64
	idleN        int
	why          string    // the reason of the last change
	lastDecision time.Time // when decide last ran
}

// newController starts from the modelled work: as many testbeds as
// keep targetCPUShare of the CPUs busy when each load uses CPU for
// CPUMs/WallMs of its wall time.
func newController(w Work, cpus int, m Machine, now time.Time) *Controller {
	c := &Controller{rules: DefaultRules, cpus: max(cpus, 1), limit: MaxJobs, changed: now, start: now, machine: m}
	ratio := 1.0 // no loader work: browsers only, which run alone
	if w.CPUMs > 0 && w.WallMs > 0 {
		ratio = w.WallMs / w.CPUMs
	}
	switch {
	case ratio >= 4:
		c.bound = "link-bound"
	case ratio <= 1.5:
		c.bound = "CPU-bound"
	default:
		c.bound = "mixed"
	}
	if m.MemAvailMiB > 0 {
		c.limit = Clamp((m.MemAvailMiB - memFloorMiB) / testbedMemMiB)
	}
	size := int(math.Round(float64(c.cpus) * ratio * targetCPUShare))
	c.size = Clamp(min(size, initialPerCPU*c.cpus, c.limit))
	c.history = []sizeStep{{size: c.size}}
	c.why = fmt.Sprintf("their wall time modelled at %.1fx their CPU time", ratio)
	return c
}

func Clamp(n int) int { return min(max(n, 1), MaxJobs) }

// observe takes one finished load: when it started (loads started before
// the last change say nothing about the current size), its condition, PLT
// and emulator lateness.
func (c *Controller) observe(started time.Time, f loadFeedback) {
	m := f.mark()
	c.recent = appendWindow(c.recent, m)
	c.harm.add(f.cond, f.pltMs, m.level != onTime)
	if started.Before(c.changed) {
		return
	}
	c.since = appendWindow(c.since, m)
	c.loads, c.late, c.severe = len(c.since), countAtLeast(c.since, late), countAtLeast(c.since, severe)
	c.waited = 0
	for _, x := range c.since {
		if x.waited {
			c.waited++
		}
	}
}

// appendWindow appends to a window of the last recentLoads loads.
func appendWindow(w []mark, v mark) []mark {
	w = append(w, v)
	if len(w) > recentLoads {
		w = append(w[:0], w[len(w)-recentLoads:]...)
	}
	return w
}

// countAtLeast counts the loads at least as late as l.
func countAtLeast(w []mark, l lateness) int {
	n := 0
	for _, v := range w {
		if v.level >= l {
			n++
		}
	}
	return n
}

// settling tells the controller that more testbeds than its size are
// still running (workers stop only between runs): the evidence about the
// new size starts once they have stopped.
func (c *Controller) settling(now time.Time) { c.resetEvidence(now) }

// resetEvidence starts the evidence about the size over at now.
func (c *Controller) resetEvidence(now time.Time) {
	c.changed, c.since, c.loads, c.late, c.severe, c.waited = now, c.since[:0], 0, 0, 0, 0
	c.idleSum, c.idleN = 0, 0
}

// sample takes a machine sample.
func (c *Controller) sample(m Machine) {
	c.machine = m
	if m.IdleCPU >= 0 {
		c.idleSum += m.IdleCPU
		c.idleN++
	}
}

// idleSince is the mean idle CPU share of the samples since the last
// change (negative when there is none).
func (c *Controller) idleSince() float64 {
	if c.idleN == 0 {
		return -1
	}
	return c.idleSum / float64(c.idleN)
}

// stallsAreTheHosts tells whether the severe stalls since the last change
// came beside CPUs with time to spare: the host's, whatever the size.
func (c *Controller) stallsAreTheHosts() bool { return c.idleSince() >= spareCPU }

// decide applies the rules at now and returns the size and whether it
// changed. Shrinking comes first and needs no cooldown beyond fresh
// evidence: loads late at this size are a measurement going wrong.
func (c *Controller) decide(now time.Time) (int, bool) {
	old := c.size
	c.lastDecision = now
	memLow := c.machine.MemAvailMiB > 0 && c.machine.MemAvailMiB < memFloorMiB
	harm := c.harm.judge()
	switch why, share, sev := c.shrinkReason(now, harm); {
	case why != "":
		if c.shrankAt > 0 {
			if c.loads < c.rules.GrowMinLoads {
				break // too few loads yet to tell whether the last shrink helped
			}
			if sev == c.shrankSevere && share >= 0.8*c.shrankAt && !c.endpointsStarve(sev) {
				// Fewer testbeds did not make fewer loads late: the
				// lateness is the machine's (other programs on it), and
				// shrinking further would only slow the run down.
				c.learnMachineLate(now, share, sev)
				break
			}
		}
		c.why = why
		c.shrink(now, share, sev)
	case memLow && now.Sub(c.changed) >= c.rules.Cooldown && c.size > 1:
		c.why = fmt.Sprintf("%d MiB of memory available", c.machine.MemAvailMiB)
		c.size = max(1, c.size*3/4)
	case c.canGrow(now, harm):
		c.why = c.growReason(now, harm)
		if c.machine.IdleCPU >= 0 {
			c.why += fmt.Sprintf(", CPU %.0f%% idle", 100*c.machine.IdleCPU)
		}
		step := max(1, c.size/4)
		if c.ceiling > 0 {
			step = 1 // near a size known to run late: probe one at a time
		}
		c.size = min(c.size+step, c.growLimit(now))
		c.shrankAt = 0
	}
	if c.size == old {
		return c.size, false
	}
	c.resetEvidence(now)
	c.history = append(c.history, sizeStep{size: c.size, why: c.why, at: now.Sub(c.start)})
	return c.size, true
}

// growReason says why the loads at the current size allow more testbeds
// (canGrow said they do): none late, late but harmless, or late no more
// than the machine makes them whatever the size.
func (c *Controller) growReason(now time.Time, harm harmEvidence) string {
	why := c.lateReason(now, harm)
	if c.severe > 0 && c.stallsAreTheHosts() {
		why += fmt.Sprintf(", %d stalled beside CPUs %.0f%% idle (the host's; loaded again)", c.severe, 100*c.idleSince())
	}
	return why
}

// lateReason is growReason's account of the late loads.
func (c *Controller) lateReason(now time.Time, harm harmEvidence) string {
	switch share := 100 * float64(c.late) / float64(c.loads); {
	case c.late == 0:
		return fmt.Sprintf("%d loads on time", c.loads)
	case harm.harmless():
		return fmt.Sprintf("%d loads, %.1f%% late, %s", c.loads, share, harm)
	case c.machineLate(now) > 0:
		return fmt.Sprintf("%d loads, %.1f%% late, within the machine's own %.1f%%", c.loads, share, 100*c.machineLate(now))
	default:
		return fmt.Sprintf("%d loads, %.1f%% late", c.loads, share)
	}
}

// shrinkReason says why the loads at the current size ask for fewer
// testbeds ("" when they do not), the share of loads that does, and
// whether those are severely late ones. Severe stalls shrink whatever
// the PLTs say, so that a starving run backs off; frequent ordinary
// lateness shrinks unless enough late loads show it harmless (with too
// few pairs, as before there was any evidence: frequency alone).
func (c *Controller) shrinkReason(now time.Time, harm harmEvidence) (string, float64, bool) {
	if c.loads == 0 {
		return "", 0, false
	}
	n := float64(c.loads)
	if c.severe >= lateShrinkMin && float64(c.severe) > (lateShrinkShare+c.machineSevere(now))*n && !c.stallsAreTheHosts() {
		return fmt.Sprintf("%d of %d loads over %.0f ms late: the machine stalls", c.severe, c.loads, stats.SevereLateMs), float64(c.severe) / n, true
	}
	if c.late >= lateShrinkMin && float64(c.late) > c.lateAllowed(now)*n && !harm.harmlessEnough() {
		return fmt.Sprintf("%d of %d loads late%s, %s", c.late, c.loads, c.waitedNote(), harm), float64(c.late) / n, false
	}
	return "", 0, false
}

// lateAllowed is the late share the loads since the last change may
// show before they ask for fewer testbeds: lateShrinkShare beyond the
// machine's own share, and beyond the scatter of a share of c.loads loads
// around it (three binomial standard errors: decisions come every few
// seconds on overlapping windows, so two would be crossed by chance). A
// host late in a fifth of the loads at random shows a third late in a
// window of 6 now and then; without the scatter the controller shrank on
// such windows again and again (a run on a VM whose emulator was late in
// most loads at any size went from 8 to 3 testbeds with the CPUs 60 %
// idle).
func (c *Controller) lateAllowed(now time.Time) float64 {
	b := c.machineLate(now)
	if b <= 0 || c.loads == 0 {
		return lateShrinkShare
	}
	return lateShrinkShare + b + 3*math.Sqrt(b*(1-b)/float64(c.loads))
}

// waitedNote is " (N of them waiting for a CPU)" when any were.
func (c *Controller) waitedNote() string {
	if c.waited == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them waiting for a CPU)", c.waited)
}

// endpointsStarve tells whether most of the late loads since the last
// change were late for their endpoints' wait for a CPU: the testbeds' own
// doing whatever the late share did after a shrink. A quarter fewer
// testbeds can leave every load's wait over the limit (on 2 cores, heavy
// recordings waited 17-168 ms at 12 and 16 testbeds), so an unchanged
// share does not make it the machine's; the controller shrinks on.
func (c *Controller) endpointsStarve(sev bool) bool { return !sev && 2*c.waited > c.late }

// learnMachineLate records share as the lateness (severe or not) the
// machine causes whatever the testbeds, after a shrink that did not help.
func (c *Controller) learnMachineLate(now time.Time, share float64, sev bool) {
	kind := "late"
	if sev {
		c.severeHold = nextHold(c.severeHold)
		c.severeBaseline, c.severeTill = share, now.Add(c.severeHold)
		kind = fmt.Sprintf("over %.0f ms late", stats.SevereLateMs)
	} else {
		c.baselineHold = nextHold(c.baselineHold)
		c.baseline, c.baselineTill = share, now.Add(c.baselineHold)
	}
	c.shrankAt = 0
	c.why = fmt.Sprintf("%.1f%% of the loads %s at %d testbeds as at more: the machine's own lateness", 100*share, kind, c.size)
}

// nextHold is how long a baseline learned again holds after one that held
// prev (0: never learned).
func nextHold(prev time.Duration) time.Duration {
	if prev == 0 {
		return ceilingHold
	}
	return min(2*prev, maxCeilingHold)
}

// shrink takes testbeds away after share of the loads ran late (severely
// when sev): a quarter of them, or one when a probe one above a known good
// size ran a little late. A size that runs late again is held off twice
// as long each time (up to maxCeilingHold), so that probing the machine's
// limit settles instead of swinging every ceilingHold.
func (c *Controller) shrink(now time.Time, share float64, sev bool) {
	hold := ceilingHold
	if c.ceiling > 0 && c.size >= c.ceiling {
		hold = min(2*max(c.hold, ceilingHold), maxCeilingHold)
	}
	step := max(1, c.size/4)
	switch {
	case share >= halveShare && c.endpointsStarve(sev) && c.loads >= c.rules.GrowMinLoads:
		step = c.size / 2
	case c.ceiling > 0 && share < 5*lateShrinkShare && !sev:
		step = 1
	}
	if c.ceiling == 0 || now.After(c.ceilingTill) || c.size < c.ceiling {
		c.ceiling = c.size
	}
	c.hold, c.ceilingTill, c.shrankAt, c.shrankSevere = hold, now.Add(hold), share, sev
	c.size = max(1, c.size-step)
}

// canGrow tells whether the evidence at the current size allows a bigger
// one: enough loads, nearly none late (or late loads shown harmless) and
// nearly none stalled, idle CPU, memory to spare, and a size below every
// limit.
func (c *Controller) canGrow(now time.Time, harm harmEvidence) bool {
	if now.Sub(c.changed) < c.rules.Cooldown || c.loads < max(c.rules.GrowMinLoads, 3*c.size) {
		return false
	}
	n := float64(c.loads)
	if c.late > 0 && float64(c.late) >= (lateGrowShare+c.machineLate(now))*n && !harm.harmless() {
		return false
	}
	if c.severe > 0 && float64(c.severe) >= (lateGrowShare+c.machineSevere(now))*n && !c.stallsAreTheHosts() {
		return false
	}
	if c.machine.IdleCPU >= 0 && c.machine.IdleCPU < growIdleCPU {
		return false
	}
	if c.machine.MemAvailMiB > 0 && c.machine.MemAvailMiB-testbedMemMiB*max(1, c.size/4) < memFloorMiB {
		return false
	}
	return c.size < c.growLimit(now)
}

// machineLate is the share of loads the machine makes late whatever the
// testbeds (learned when shrinking did not help; forgotten after
// ceilingHold, as the machine's other load changes); machineSevere the
// same for severe lateness.
func (c *Controller) machineLate(now time.Time) float64 {
	if now.Before(c.baselineTill) {
		return c.baseline
	}
	return 0
}

func (c *Controller) machineSevere(now time.Time) float64 {
	if now.Before(c.severeTill) {
		return c.severeBaseline
	}
	return 0
}

// growLimit is the largest size growth may reach now.
func (c *Controller) growLimit(now time.Time) int {
	lim := c.limit
	if c.ceiling > 0 && now.Before(c.ceilingTill) {
		lim = min(lim, c.ceiling-1)
	}
	return max(lim, 1)
}

// lateShare is the share of the recent loads whose emulator ran late.
func (c *Controller) lateShare() float64 {
	if len(c.recent) == 0 {
		return 0
	}
	return float64(countAtLeast(c.recent, late)) / float64(len(c.recent))
}

// status is the progress display's note: "auto: link-bound, 0.2% late",
// with the harm evidence once loads ran late ("auto: link-bound, 12.0%
// late, PLT shift +0.1% over 140 pairs: harmless").
func (c *Controller) status() string {
	s := "auto: " + c.bound
	if len(c.recent) > 0 {
		s += fmt.Sprintf(", %.1f%% late", 100*c.lateShare())
		if len(c.harm.late) > 0 {
			s += ", " + c.harm.judge().String()
		}
	}
	if own := max(c.machineLate(c.lastDecision), c.machineSevere(c.lastDecision)); own > 0 {
		s += fmt.Sprintf(", the machine's own %.1f%%", 100*own)
	}
	return s
}

// trace is the sizes the controller went through, when and why, for
// the provenance: "auto 16 -> 20 (at 2m0s: 80 loads on time, CPU 60%
// idle) -> 15 (at 5m30s: 5 of 80 loads late, PLT shift +3.0% over 120
// pairs: harmful)". The times let a replay of the run (the ETA's) follow
// its size.
func (c *Controller) trace() string {
	parts := make([]string, len(c.history))
	for i, st := range c.history {
		parts[i] = fmt.Sprint(st.size)
		if st.why != "" {
			parts[i] += fmt.Sprintf(" (at %s: %s)", st.at.Round(time.Second), st.why)
		}
	}
	return "auto " + strings.Join(parts, " -> ")
}
