// Package event is what the runner tells those that follow a run (the
// progress line, -j auto's controller in study/autosize, the ETA in
// study/eta): one load's outcome, published when it starts and when it
// ends, and the counts of what the run stored. The followers learn from
// these alone; none of them reads the store or the runner's state.
package event

import "time"

// Load is one attempt of one probe. The runner publishes it twice: when
// the load starts (End false: the fields up to Started are set) and once
// its result is stored (End true: all of them).
type Load struct {
	ID         int64  // the runner's number for the attempt; its two events share it
	Bench      string // the bench's group key (spec.Group.Key)
	Cond       string // the condition's hash
	Proto      string
	ModelledMs float64 // the condition's modelled wall time per load (spec.ModelledWall); 0 unknown
	// Serial marks a load with no other testbed beside it (a browser
	// bench running alone).
	Serial  bool
	Attempt int
	// Retry marks an attempt the run's plan did not count: the probe's
	// earlier attempt in this run failed.
	Retry   bool
	Started time.Time

	End       bool
	Took      time.Duration
	PLTms     float64 // 0 for a failed load
	LateP99ms float64 // the link emulator's release lateness p99 over the load, the worse direction
	WaitP99ms float64 // the endpoints' CPU wait p99 over the load (probe.EndpointWait)
	Failed    bool
	// Stalled marks an attempt stored as failed because the emulator
	// stalled during it; the probe is loaded again.
	Stalled bool
	// Again tells that the probe is loaded again after this attempt, so
	// it is not done yet.
	Again bool
}

// Counts are what a run stored: probes done (a success, or the last
// attempt failed), attempts stored, failed attempts and, of those, the
// stalled ones.
type Counts struct {
	Probes   int
	Attempts int
	Failed   int
	Stalled  int
}

// Add counts a load that ended (a start counts nothing).
func (c *Counts) Add(l Load) {
	if !l.End {
		return
	}
	c.Attempts++
	if !l.Again {
		c.Probes++
	}
	if l.Failed {
		c.Failed++
	}
	if l.Stalled {
		c.Stalled++
	}
}
