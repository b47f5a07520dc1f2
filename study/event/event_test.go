package event

import "testing"

// A probe that failed once and is loaded again is one probe and two
// attempts; a start counts nothing.
func TestCountsProbesAndAttempts(t *testing.T) {
	var c Counts
	for _, l := range []Load{
		{ID: 1},
		{ID: 1, End: true, Failed: true, Stalled: true, Again: true},
		{ID: 2, Retry: true, Attempt: 1},
		{ID: 2, Retry: true, Attempt: 1, End: true},
		{ID: 3, End: true, Failed: true, Attempt: 1}, // second failure: the probe is done
		{ID: 4, End: true},
	} {
		c.Add(l)
	}
	if want := (Counts{Probes: 3, Attempts: 4, Failed: 2, Stalled: 1}); c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
}
