package stats

// The lines that decide whether a load ran short of CPU: its link
// emulator's lateness (the 99th percentile over the load of how late it
// released packets, the worse direction) or its endpoints' wait for a CPU
// (the 99th percentile of how long the loader's and servers' goroutines
// stayed runnable before they ran). The report, the runner's stall retry
// and -j auto all judge by them, so each is defined here once.
const (
	// LateLimitMs is the lateness above which a load's link was not the
	// configured one: the emulator process was starved of CPU, typically
	// by too many parallel testbeds for the cores.
	LateLimitMs = 1.0
	// SevereLateMs is the lateness that is no timing noise but the whole
	// machine stalling: ten times LateLimitMs. Late loads usually sit at
	// 0.5-1.4 ms; a starving machine stalls for 20-900 ms.
	SevereLateMs = 10 * LateLimitMs
	// LateShiftLimit is how far (in %) the PLTs of late loads may lie
	// from the on-time loads of their conditions before the lateness
	// counts as moving the results.
	LateShiftLimit = 2.0
	// WaitLimitMs is the endpoints' CPU wait above which they were short
	// of CPU. The emulator runs in a process of its own and keeps time
	// while the loader and servers queue for the cores, so its lateness
	// alone misses this. Measured on 2 cores over 16-18 recordings
	// (BENCHMARKS.md): with 2 testbeds at most 1.6 ms (10/1 Mbit/s,
	// 100 ms) and 3.7 ms (20/5 Mbit/s, 40 ms); with 16, 0.4-7.3 ms with
	// the PLTs unmoved on the slow link, and 1.6-42 ms with them up a
	// median 4% (up to 22%, unequally per protocol) on the fast one.
	WaitLimitMs = 5 * LateLimitMs
	// UnpairedShareLimit is the share of late loads that may lack two
	// on-time loads of their condition before the shift of the others
	// stops speaking for them (Shift.Covers). In a run of the 30
	// recordings at -j auto (17 testbeds on 2 cores) two pages were late
	// in 58 and 78 of their 80 loads while eight never were: the pairs
	// came from the light pages and judged the lateness harmless, while
	// the heavy pages' PLTs sat up to 3% above their loads at -j 1
	// (BENCHMARKS.md). A tenth leaves room for conditions that have not
	// yet had two on-time loads early in a run.
	UnpairedShareLimit = 0.1
)

// Late tells whether a load ran short of CPU: its emulator released
// packets over LateLimitMs late (linkLateMs) or its endpoints waited over
// WaitLimitMs for a CPU (waitMs), both at the 99th percentile.
func Late(linkLateMs, waitMs float64) bool {
	return linkLateMs > LateLimitMs || waitMs > WaitLimitMs
}

// Harmful tells whether late loads moved the results: their shift lies
// past LateShiftLimit and past twice its standard error.
func (s Shift) Harmful() bool { return s.Beyond(LateShiftLimit) }
