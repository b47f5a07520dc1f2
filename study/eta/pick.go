package eta

// Slot is a bench as the runner's scheduler sees it when a testbed is
// free: whether a testbed was ever built for it, its runs still to hand
// out, and the testbeds working on it now.
type Slot struct {
	Started  bool
	RunsLeft int
	Workers  int
}

// Pick is the runner's choice of the bench a free testbed takes next
// among benches (in the runner's order); ok is false when none needs a
// testbed. The ETA calls the runner's own, so its layout of the runs left
// is the runner's schedule by construction.
type Pick func(benches []Slot) (i int, ok bool)
