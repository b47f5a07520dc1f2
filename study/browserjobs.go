package study

import (
	"runtime"
	"sync"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// A real browser costs seconds of CPU per load (Chromium: 3-4 CPU-seconds
// per study page on the 2-core test machine), where the loader costs a few
// hundred milliseconds; with the runner's network-bound default of four
// benches per CPU, browsers would starve the link emulator of CPU and the
// link would not be the configured one. So benches whose client is a
// browser take a slot of their own as well, at most one per CPU by default;
// each load's stored emulator lateness still tells when that was not enough.

// A browser's timings are its CPU time, so by default a browser bench
// runs alone (Runner.BrowserAlone): beside other benches Chromium is
// slowed by their CPU and the loader is not, and a loader-vs-Chromium
// comparison measures the machine's load. Side by side on the 2-core
// machine (pageA, one host, 20 ms, 8 loads per cell): with -j 8 and two
// browser benches Chromium's median PLT was 1117 ms over HTTP/1.1 and
// 676 ms over h2; alone, 887 and 507 ms.

// benchGate admits benches: browser benches alone (or up to
// BrowserJobs at a time beside other benches when alone is off).
type benchGate struct {
	slots browserSlots
	alone bool
	rw    sync.RWMutex // browser benches hold it exclusively, the others shared
}

func newBenchGate(browserJobs int, alone bool) *benchGate {
	return &benchGate{slots: newBrowserSlots(browserJobs), alone: alone}
}

// acquire admits a bench of group g and returns its release; ok is false
// when done closed first.
func (b *benchGate) acquire(g spec.Group, done <-chan struct{}) (release func(), ok bool) {
	if !b.alone {
		return b.slots.acquire(g, done)
	}
	lock, unlock := b.rw.RLock, b.rw.RUnlock
	if groupIsBrowser(g) {
		lock, unlock = b.rw.Lock, b.rw.Unlock
	}
	lock()
	select {
	case <-done:
		unlock()
		return func() {}, false
	default:
		return unlock, true
	}
}

// DefaultBrowserJobs is Runner.BrowserJobs' default: one browser bench per
// CPU.
func DefaultBrowserJobs() int { return max(1, runtime.NumCPU()) }

// browserSlots limits how many browser benches run at once.
type browserSlots chan struct{}

func newBrowserSlots(n int) browserSlots {
	if n < 1 {
		n = DefaultBrowserJobs()
	}
	return make(browserSlots, n)
}

// acquire takes a slot when g's client is a browser (loader groups pass
// freely) and returns its release; ok is false when done closed first.
func (s browserSlots) acquire(g spec.Group, done <-chan struct{}) (release func(), ok bool) {
	if !groupIsBrowser(g) {
		return func() {}, true
	}
	select {
	case s <- struct{}{}:
		return func() { <-s }, true
	case <-done:
		return func() {}, false
	}
}

func groupIsBrowser(g spec.Group) bool {
	if len(g.Conds) == 0 {
		return false
	}
	cl, _ := probe.LookupClient(g.Conds[0].Client)
	return cl.Browser
}
