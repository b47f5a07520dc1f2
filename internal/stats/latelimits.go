package stats

// The lines that decide whether the link emulator's lateness (the 99th
// percentile over a load of how late it released packets, the worse
// direction) spoiled a load. The report, the runner's stall retry and
// -j auto all judge by them, so each is defined here once.
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
)

// Harmful tells whether late loads moved the results: their shift lies
// past LateShiftLimit and past twice its standard error.
func (s Shift) Harmful() bool { return s.Beyond(LateShiftLimit) }
