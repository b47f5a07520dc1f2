package autosize

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/study/event"
)

var t0 = time.Unix(1_000_000, 0)

// idle is a machine with most of its CPU idle and memory to spare.
var idle = Machine{IdleCPU: 0.6, MemAvailMiB: 32 << 10}

// lateLoad is a load of no known condition (no harm evidence), its
// emulator late (p99 5 ms) or on time.
func lateLoad(isLate bool) loadFeedback {
	if isLate {
		return loadFeedback{lateP99: 5}
	}
	return loadFeedback{}
}

// feed gives the controller n loads started at now, every lateEvery-th
// one late (0: none), and lets it decide at now.
func feed(c *Controller, now time.Time, n, lateEvery int) (int, bool) {
	for i := 1; i <= n; i++ {
		c.observe(now, lateLoad(lateEvery > 0 && i%lateEvery == 0))
	}
	return c.decide(now)
}

func TestJobsStartFromWhatTheLoadsWaitOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w     Work
		m     Machine
		size  int
		bound string
	}{
		// 60 s loads using 0.5 s of CPU: capped at 8 per CPU.
		{"long links", Work{WallMs: 60000, CPUMs: 500}, idle, 16, "link-bound"},
		// 2 s per 0.4 s of CPU: 2 CPUs x 5 x 0.5.
		{"20 ms links", Work{WallMs: 2000, CPUMs: 400}, idle, 5, "link-bound"},
		// Loopback: a load is its CPU time.
		{"0 ms links", Work{WallMs: 450, CPUMs: 400}, idle, 1, "CPU-bound"},
		{"browsers only", Work{}, idle, 1, "CPU-bound"},
		// Memory for three testbeds beyond the floor.
		{"little memory", Work{WallMs: 60000, CPUMs: 500}, Machine{IdleCPU: -1, MemAvailMiB: memFloorMiB + 3*testbedMemMiB}, 3, "link-bound"},
	} {
		c := newController(tc.w, 2, tc.m, t0)
		if c.size != tc.size || c.bound != tc.bound {
			t.Errorf("%s: %d testbeds, %s; want %d, %s", tc.name, c.size, c.bound, tc.size, tc.bound)
		}
	}
}

// On time and with idle CPU, the testbeds grow step by step, a cooldown
// apart, up to MaxJobs and no further.
func TestJobsGrowWhileLoadsStayOnTime(t *testing.T) {
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	now, last := t0, c.size
	var changes []time.Time
	for i := 0; i < 200; i++ {
		now = now.Add(5 * time.Second)
		c.sample(idle)
		n, changed := feed(c, now, 10, 0)
		if n < last || n > MaxJobs {
			t.Fatalf("step %d: %d testbeds after %d with every load on time (max %d)", i, n, last, MaxJobs)
		}
		if changed {
			changes = append(changes, now)
		}
		last = n
	}
	if last != MaxJobs {
		t.Errorf("grew to %d, want %d; sizes %s", last, MaxJobs, c.trace())
	}
	for i := 1; i < len(changes); i++ {
		if d := changes[i].Sub(changes[i-1]); d < DefaultRules.Cooldown {
			t.Errorf("changes %s apart, want at least %s", d, DefaultRules.Cooldown)
		}
	}
	if !strings.HasPrefix(c.trace(), "auto 16 -> 20 (at 25s: 50 loads on time, CPU 60% idle) -> ") {
		t.Errorf("trace %q", c.trace())
	}
}

// Busy CPUs or late loads in the band between the grow and shrink shares
// keep the size where it is.
func TestJobsHoldWhenBusyOrInTheBand(t *testing.T) {
	c := newController(Work{WallMs: 2000, CPUMs: 400}, 2, idle, t0)
	start := c.size
	now := t0
	for i := 0; i < 50; i++ {
		now = now.Add(time.Minute)
		c.sample(Machine{IdleCPU: 0.1, MemAvailMiB: 32 << 10})
		if n, _ := feed(c, now, 50, 0); n != start {
			t.Fatalf("%d testbeds with the CPU 90%% busy, want %d", n, start)
		}
	}
	c.sample(idle)
	// One load in 150 late (0.7%): above the grow share, below the shrink
	// share.
	for i := 0; i < 50; i++ {
		now = now.Add(time.Minute)
		if n, _ := feed(c, now, 150, 150); n != start {
			t.Fatalf("%d testbeds with 0.7%% of the loads late, want %d (%s)", n, start, c.trace())
		}
	}
}

// More than 1% late loads shrink the testbeds at once; the size that ran
// late is not reached again for a while, and loads started before the
// change do not count against the new size.
func TestJobsShrinkOnLateReleases(t *testing.T) {
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	now := t0.Add(time.Minute)
	n, changed := feed(c, now, 100, 40) // 2 of 100 late
	if !changed || n != 12 {
		t.Fatalf("%d testbeds after 2%% late loads at 16 (changed %v), want 12", n, changed)
	}
	// Late loads that started at 16 testbeds say nothing about 12.
	for i := 0; i < 10; i++ {
		c.observe(now.Add(-time.Second), lateLoad(true))
	}
	if n, _ := c.decide(now.Add(time.Second)); n != 12 {
		t.Fatalf("%d testbeds: shrank on loads started before the change", n)
	}
	// On time again: it grows, but not back to 16 within ceilingHold.
	for i := 0; i < 50; i++ {
		now = now.Add(5 * time.Second)
		n, _ = feed(c, now, 20, 0)
		if now.Sub(t0) < ceilingHold && n >= 16 {
			t.Fatalf("back to %d testbeds %s after running late at 16", n, now.Sub(t0))
		}
	}
	if n != 15 {
		t.Errorf("%d testbeds, want 15 (below the ceiling of 16)", n)
	}
	// A fifth of the loads late at every size: the lateness is the
	// machine's, and after one shrink that did not help the size holds.
	held := n
	for i := 0; i < 30; i++ {
		now = now.Add(5 * time.Second)
		n, _ = feed(c, now, 20, 5)
	}
	if n < held*3/4-1 || n > held {
		t.Errorf("%d testbeds with a fifth of the loads late at %d and fewer, want one step down from %d and no further (%s)", n, held, held, c.trace())
	}
	if !strings.Contains(c.status(), "the machine's own 20.0%") {
		t.Errorf("status %q does not blame the machine", c.status())
	}
	if !strings.Contains(c.status(), "% late") || !strings.HasPrefix(c.status(), "auto: link-bound") {
		t.Errorf("status %q", c.status())
	}
}

// On a machine that keeps up to 10 testbeds on time (beyond, a share of
// the loads runs late that grows with the excess), the controller settles
// near 10 and does not swing: after the first minutes it stays between 7
// and 12, and changes at most once every few minutes.
// Endpoints that wait for a CPU past stats.WaitLimitMs make a load late
// as an emulator running late does: the emulator keeps its own time in a
// process of its own, so its lateness alone lets too many testbeds starve
// the loaders and servers. A wait within the limit changes nothing, and
// waiting alone is never a stall.
func TestJobsShrinkWhenEndpointsWaitForCPU(t *testing.T) {
	for _, tc := range []struct {
		name    string
		waitMs  float64
		waiting int // of the 100 loads
		size    int
	}{
		{"within the limit", stats.WaitLimitMs, 100, 20}, // on time: it grows
		{"past it in a fifth of the loads", stats.WaitLimitMs + 1, 20, 12},
		{"past it in every load", stats.WaitLimitMs + 1, 100, 8}, // halved
		{"far past it", 20 * stats.WaitLimitMs, 100, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
			now := t0.Add(time.Minute)
			for i := 0; i < 100; i++ {
				f := loadFeedback{lateP99: 0.2}
				if i < tc.waiting {
					f.waitP99 = tc.waitMs
				}
				c.observe(now, f)
			}
			if n, _ := c.decide(now); n != tc.size {
				t.Errorf("%d testbeds after 100 loads whose endpoints waited %.1f ms, want %d", n, tc.waitMs, tc.size)
			}
			if c.severe != 0 {
				t.Errorf("%d loads counted as stalls for their endpoints' wait alone", c.severe)
			}
		})
	}
}

// A few loads, all waiting for a CPU, take a quarter of the testbeds
// away, not half: halving wants as many loads as growing does.
func TestJobsHalveOnlyOnEnoughLoads(t *testing.T) {
	for _, tc := range []struct{ loads, size int }{{6, 12}, {DefaultRules.GrowMinLoads, 8}} {
		c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
		now := t0.Add(time.Minute)
		for i := 0; i < tc.loads; i++ {
			c.observe(now, loadFeedback{lateP99: 0.1, waitP99: 30})
		}
		if n, _ := c.decide(now); n != tc.size {
			t.Errorf("%d loads all waiting: %d testbeds from 16, want %d", tc.loads, n, tc.size)
		}
	}
}

// Loads late for their endpoints' wait at every size keep shrinking the
// testbeds (by half while most loads wait): fewer can leave every
// wait over the limit, which does not make the lateness the machine's.
// The same share from the emulator alone, after a shrink that did not
// help, is the machine's.
func TestJobsShrinkOnWhileEndpointsStillWait(t *testing.T) {
	for _, tc := range []struct {
		name  string
		load  loadFeedback
		sizes []int
	}{
		{"endpoints waiting", loadFeedback{lateP99: 0.1, waitP99: 30}, []int{8, 4, 2}},
		{"emulator late", loadFeedback{lateP99: 5}, []int{12, 12}}, // a quarter, then the machine's own: it may grow
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
			now := t0.Add(time.Minute)
			var got []int
			for range tc.sizes {
				for i := 0; i < 40; i++ {
					c.observe(now, tc.load)
				}
				n, _ := c.decide(now)
				got = append(got, n)
				now = now.Add(time.Minute)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.sizes) {
				t.Errorf("sizes %v, want %v (last reason: %s)", got, tc.sizes, c.why)
			}
		})
	}
}

// Observe reads the endpoints' wait from the runner's event.
func TestObserveCountsTheEndpointsWait(t *testing.T) {
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	c.Observe(event.Load{End: true, Started: t0.Add(time.Second), PLTms: 900, LateP99ms: 0.1, WaitP99ms: 2 * stats.WaitLimitMs})
	if c.late != 1 {
		t.Errorf("%d late loads after one whose endpoints waited twice the limit, want 1", c.late)
	}
}

func TestJobsSettleAtTheMachinesCapacity(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	now := t0
	changes := 0
	for i := 0; i < 1440; i++ { // two hours, a decision every 5 s
		now = now.Add(5 * time.Second)
		pLate := max(0, float64(c.size-10)) * 0.05
		for j := 0; j < c.size/2+1; j++ {
			c.observe(now.Add(-time.Millisecond), lateLoad(rng.Float64() < pLate))
		}
		n, changed := c.decide(now)
		if i > 120 && (n < 7 || n > 12) {
			t.Fatalf("%s: %d testbeds (%s)", now.Sub(t0), n, c.trace())
		}
		if changed && i > 120 {
			changes++
		}
		if changed && testing.Verbose() {
			t.Logf("%s: %d (%s) ceiling %d till %s hold %s", now.Sub(t0), n, c.why, c.ceiling, c.ceilingTill.Sub(t0), c.hold)
		}
	}
	if changes > 30 {
		t.Errorf("%d changes in 1 h 50 min: %s", changes, c.trace())
	}
	t.Logf("%s", c.trace())
}

// Whatever the feedback, the size stays within 1..MaxJobs and never
// changes twice without fresh loads in between.
func TestJobsStayWithinBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	c := newController(Work{WallMs: 9000, CPUMs: 500}, 4, idle, t0)
	now := t0
	for i := 0; i < 5000; i++ {
		now = now.Add(time.Duration(rng.Intn(10)) * time.Second)
		c.sample(Machine{IdleCPU: rng.Float64(), MemAvailMiB: 500 + rng.Intn(20000)})
		n, changed := feed(c, now, rng.Intn(30), rng.Intn(60))
		if n < 1 || n > MaxJobs {
			t.Fatalf("step %d: %d testbeds", i, n)
		}
		if changed {
			if n2, again := c.decide(now); again {
				t.Fatalf("step %d: changed to %d and at once again to %d", i, n, n2)
			}
		}
	}
}

// lateMachine is a simulated run for the harm rule: 20 loads every 5 s
// over conds conditions (0: each load its own condition, so no pairs),
// PLTs spread 5% around their condition's, late loads shift% slower. A
// share of the loads that grows with the testbeds (2% per testbed, as the
// loaded 2-CPU VM ran 24-80% late at -j 12-16) runs late, and severe of
// them (a share of all loads) stall beyond stats.SevereLateMs. Its CPUs are
// idle as idle says, or busyIdle when set.
type lateMachine struct {
	conds         int
	shift, severe float64
	busyIdle      float64
	// heavy is how many of the conds conditions (the heaviest pages) run
	// late in every load above heavyFrom testbeds, heavyShift% slower.
	heavy, heavyFrom int
	heavyShift       float64
	// endpointsWait: the late loads are late for their endpoints' wait
	// for a CPU, not for their emulator.
	endpointsWait bool
}

func (m lateMachine) run(c *Controller, steps int) {
	rng := rand.New(rand.NewSource(7))
	now, k := t0, 0
	for i := 0; i < steps; i++ {
		now = now.Add(5 * time.Second)
		m.sample(c)
		pLate := min(0.9, 0.02*float64(c.size))
		for j := 0; j < 20; j++ {
			k++
			f := loadFeedback{cond: fmt.Sprint("c", k), pltMs: 1000 * math.Exp(0.05*rng.NormFloat64())}
			if m.conds > 0 {
				f.cond = fmt.Sprint("c", k%m.conds)
				f.pltMs *= float64(1 + k%m.conds)
			}
			heavy := m.conds > 0 && k%m.conds < m.heavy && c.size > m.heavyFrom
			switch r := rng.Float64(); {
			case r < m.severe:
				f.lateP99 = 50
			case heavy:
				f.waitP99 = 2 * stats.WaitLimitMs
				f.pltMs *= 1 + m.heavyShift/100
			case r < pLate && m.endpointsWait:
				f.waitP99 = 2 * stats.WaitLimitMs
			case r < pLate:
				f.lateP99 = 1.2
			}
			if f.lateP99 > 0 || f.waitP99 > 0 && !heavy {
				f.pltMs *= 1 + m.shift/100
			}
			c.observe(now.Add(-time.Millisecond), f)
		}
		c.decide(now)
	}
}

func (m lateMachine) sample(c *Controller) {
	if m.busyIdle > 0 {
		c.sample(Machine{IdleCPU: m.busyIdle, MemAvailMiB: idle.MemAvailMiB})
		return
	}
	c.sample(idle)
}

// The rule judges lateness by what it does to the PLTs, as the report
// does: frequent harmless lateness grows (the old rule shrank on it),
// lateness that slows the loads shrinks, too few pairs to judge behave
// as frequency alone (as do pairs that leave out the heavy pages late in
// every load), and stalls of a busy machine shrink whatever the
// PLTs; stalls beside idle CPUs are the host's and neither shrink nor
// hold growth back (the runner loads those loads again).
func TestJobsWeighLatenessByItsHarm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       lateMachine
		grow    bool   // ends above the start (else below)
		status  string // in the status at the end
		reasons string // in the trace
	}{
		{"late but no PLT shift", lateMachine{conds: 20}, true, "harmless", "harmless"},
		{"late loads 8% slower", lateMachine{conds: 20, shift: 8}, false, "harmful", "harmful"},
		{"too few pairs", lateMachine{}, false, "no PLT pairs yet", "no PLT pairs yet"},
		{"severe stalls, CPUs busy", lateMachine{conds: 20, severe: 0.03, busyIdle: 0.1}, false, "", "the machine stalls"},
		{"severe stalls beside idle CPUs", lateMachine{conds: 20, severe: 0.03}, true, "harmless", "stalled beside CPUs 60% idle (the host's"},
	} {
		c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
		start := c.size
		tc.m.run(c, 360) // half an hour
		if grew := c.size > start; grew != tc.grow {
			t.Errorf("%s: %d testbeds from %d, want grown %v (%s)", tc.name, c.size, start, tc.grow, c.trace())
		}
		if !strings.Contains(c.status(), tc.status) {
			t.Errorf("%s: status %q, want %q in it", tc.name, c.status(), tc.status)
		}
		if !strings.Contains(c.trace(), tc.reasons) {
			t.Errorf("%s: trace %q does not say %q", tc.name, c.trace(), tc.reasons)
		}
		if testing.Verbose() {
			t.Logf("%s: %s; %s", tc.name, c.status(), c.trace())
		}
	}
}

// The recordings at -j auto on 2 cores: the heaviest pages' endpoints
// waited for a CPU in nearly every load while the light pages' never did,
// so every pair came from a light page and the lateness passed for
// harmless, while the heavy pages ran 3% slow. Pairs that leave out most
// of the late loads judge nothing: the controller shrinks until the heavy
// pages run on time.
func TestJobsShrinkForPagesLateInEveryLoad(t *testing.T) {
	m := lateMachine{conds: 20, heavy: 3, heavyFrom: 4, heavyShift: 3, endpointsWait: true}
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	m.run(c, 360)
	if c.size > m.heavyFrom+1 {
		t.Errorf("%d testbeds, want at most %d (%s)", c.size, m.heavyFrom+1, c.trace())
	}
	if !strings.Contains(c.trace(), "so the pairs cannot judge them") {
		t.Errorf("trace %q does not say why", c.trace())
	}
}

// A condition whose latest lateThroughout loads were all late pairs none
// of its late loads, whatever on-time loads it had before: the late share
// it had then does not speak for it now.
func TestLateHarmLeavesConditionsLateThroughoutUnpaired(t *testing.T) {
	var h lateHarm
	for i := 0; i < 4; i++ {
		h.add("heavy", 1000, false)
		h.add("light", 100, false)
	}
	for i := 0; i < lateThroughout-1; i++ {
		h.add("heavy", 1100, true)
	}
	h.add("light", 100, true)
	if e := h.judge(); e.Pairs != lateThroughout || e.Unpaired != 0 {
		t.Fatalf("%+v, want %d pairs before heavy ran late throughout", e, lateThroughout)
	}
	h.add("heavy", 1100, true)
	if e := h.judge(); e.Pairs != 1 || e.Unpaired != lateThroughout || e.Covers() {
		t.Errorf("%+v, want 1 pair (light), %d unpaired, not covered", e, lateThroughout)
	}
	h.add("heavy", 1000, false) // on time again: its late loads pair again
	if e := h.judge(); e.Pairs != lateThroughout+1 || e.Unpaired != 0 {
		t.Errorf("%+v, want %d pairs once heavy ran on time", e, lateThroughout+1)
	}
}

func TestLateHarmJudgesLikeTheReport(t *testing.T) {
	var h lateHarm
	h.add("a", 100, true) // no on-time loads of a yet: no pair
	if e := h.judge(); e.Pairs != 0 || !math.IsNaN(e.Pct) || e.String() != "no PLT pairs yet, 1 late unpaired" {
		t.Fatalf("%+v %q, want no pairs", e, e)
	}
	h.add("a", 100, false)
	h.add("a", 120, false)
	h.add("b", 50, false) // b has one on-time load: its late loads do not pair
	h.add("b", 80, true)
	h.add("", 100, true)  // no condition: ignored
	h.add("a", 0, true)   // failed: ignored
	h.add("a", 132, true) // 1.2 x the median of 110
	e := h.judge()
	if e.Pairs != 2 || math.Abs(e.Pct-math.Sqrt(100.0/110*132/110)*100+100) > 1e-9 {
		t.Errorf("%+v, want 2 pairs, shift the geometric mean of -9.1%% and +20%%", e)
	}
	if e.enough() || e.harmful() || !strings.Contains(e.String(), "needed to judge") {
		t.Errorf("%q judged on 2 pairs", e)
	}
	// A shift within twice its standard error is not harmful (+4% over
	// lossy links' spread), nor harmless.
	for _, tc := range []struct {
		shift, se         float64
		harmful, harmless bool
	}{{0, 0.5, false, true}, {1.0, 0.5, false, true}, {-1.5, 0.5, false, false}, {2.5, 0.5, true, false}, {-8, 0.5, true, false}, {4, 2.2, false, false}} {
		e := harmEvidence{stats.Shift{Pct: tc.shift, SEPct: tc.se, Pairs: harmMinPairs}}
		if e.harmful() != tc.harmful || e.harmless() != tc.harmless {
			t.Errorf("shift %v%%: harmful %v harmless %v (%q)", tc.shift, e.harmful(), e.harmless(), e)
		}
	}
	// Fewer pairs judge when their own error is already small.
	for _, tc := range []struct {
		pairs  int
		se     float64
		enough bool
	}{{40, 0.5, true}, {40, 1.5, false}, {20, 0.1, false}, {harmMinPairs, 3, true}} {
		if e := (harmEvidence{stats.Shift{Pct: 0.3, SEPct: tc.se, Pairs: tc.pairs}}); e.enough() != tc.enough {
			t.Errorf("%d pairs, error %v%%: enough %v, want %v", tc.pairs, tc.se, e.enough(), tc.enough)
		}
	}
}

// A host that runs half the loads late at every size: each time the
// controller checks its learned baseline (a shrink, and loads to judge
// it) the machine shows the same, and the baseline is then trusted twice
// as long, so that three hours cost a handful of shrinks, not one every
// ceilingHold.
func TestMachineLatenessTrustedLongerEachTime(t *testing.T) {
	c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
	now := t0
	for now.Sub(t0) < 3*time.Hour {
		now = now.Add(5 * time.Second)
		c.sample(idle)
		feed(c, now, 20, 2)
	}
	shrinks := 0
	for i := 1; i < len(c.history); i++ {
		if c.history[i].size < c.history[i-1].size {
			shrinks++
		}
	}
	if shrinks > 8 {
		t.Errorf("%d shrinks in 3 h on a host late at every size, want at most 8: %s", shrinks, c.trace())
	}
	if c.baselineHold != maxCeilingHold {
		t.Errorf("baseline held %s after 3 h, want %s", c.baselineHold, maxCeilingHold)
	}
}

// Observe learns from loads that ended beside other testbeds: a start or
// a load that ran alone is no evidence, and a failed (or stalled) load
// counts its lateness but gives no PLT to judge harm by.
func TestObserveTakesEndedSideBySideLoads(t *testing.T) {
	c := New(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0, DefaultRules)
	started := t0.Add(time.Second)
	c.Observe(event.Load{Cond: "a", Started: started, LateP99ms: 50})                                      // a start
	c.Observe(event.Load{Cond: "a", Started: started, End: true, Serial: true, LateP99ms: 50, PLTms: 100}) // ran alone
	if c.loads != 0 || len(c.recent) != 0 {
		t.Fatalf("counted %d loads from a start and a load that ran alone", c.loads)
	}
	c.Observe(event.Load{Cond: "a", Started: started, End: true, Failed: true, Stalled: true, LateP99ms: 50, PLTms: 900})
	c.Observe(event.Load{Cond: "a", Started: started, End: true, PLTms: 100})
	if c.loads != 2 || c.severe != 1 || c.late != 1 {
		t.Errorf("loads %d, late %d, severe %d; want 2 loads, the stalled one severely late", c.loads, c.late, c.severe)
	}
	if len(c.harm.late) != 0 || len(c.harm.onTime["a"]) != 1 {
		t.Errorf("harm evidence %+v: want only the on-time load's PLT", c.harm)
	}
}

// On a host that makes a fifth of the loads late at random whatever the
// size (the emulator's timer slack on a shared VM), the share in a window
// of loads scatters around its mean. Once the controller has learned it
// as the machine's own, a window a few points above the learned share is
// that scatter, not the size: it must not shrink on it again and again
// (a run on such a VM went 8 -> 3 testbeds with the CPUs 60 % idle).
// Over 8 seeds of 40 minutes, the mean size after the first 5 minutes is
// 14 with the scatter allowed for and 7 without.
func TestJobsDoNotShrinkOnTheMachinesScatter(t *testing.T) {
	var means []float64
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		c := newController(Work{WallMs: 60000, CPUMs: 500}, 2, idle, t0)
		now := t0
		sum, n := 0, 0
		for now.Sub(t0) < 40*time.Minute {
			now = now.Add(5 * time.Second)
			c.sample(idle)
			for j := 0; j < c.size/2+1; j++ {
				c.observe(now.Add(-time.Millisecond), lateLoad(rng.Float64() < 0.2))
			}
			c.decide(now)
			if now.Sub(t0) > 5*time.Minute {
				sum, n = sum+c.size, n+1
			}
		}
		means = append(means, float64(sum)/float64(n))
	}
	if m := stats.Mean(means); m < 10 {
		t.Errorf("mean size %.1f after the first 5 min on a host late in a fifth of the loads at every size (per seed %.1f), want 10 or more", m, means)
	}
}
