package probe

import (
	"fmt"
	"strings"
)

// This file names what the servers' adaptive mechanisms (adaptive_cc,
// adaptive_regrow, adaptive_lowat, adaptive_pacing; server/adapt.go) did on each
// connection, as TCPInfo.AdaptCC, AdaptLowat and AdaptPaceLowest record
// it, and sums it up per load (Result.Adaptive).

// AdaptCC outcomes of one connection.
const (
	// AdaptCCSwitched: a loss came while the RTT was near its minimum, so
	// the connection moved to bbr.
	AdaptCCSwitched = "bbr"
	// AdaptCCQueue: every loss came with the RTT inflated (a full queue,
	// which bbr would fill further): the connection kept its cc.
	AdaptCCQueue = "kept:queue"
	// AdaptCCRoom: adaptive_regrow saw the RTT within an eighth of its
	// minimum for two round trips behind a full window in congestion
	// avoidance (room the window did not use), so the connection moved
	// to bbr.
	AdaptCCRoom = "bbr:room"
	// AdaptCCBack: switched to bbr, then losses came with an inflated RTT
	// (bbr overfilling a shallow queue): back to the first cc.
	AdaptCCBack = "back"
	// AdaptCCQuiet: no loss seen; nothing to decide on.
	AdaptCCQuiet = "kept:no-loss"
	// AdaptCCNoSignal: no TCP_INFO (not a TCP socket, or the kernel
	// refused the read or the switch): the static cc held.
	AdaptCCNoSignal = "kept:no-signal"
)

// AdaptiveNote sums up over a load's server connections what the adaptive
// mechanisms c turns on did: "adaptive cc: bbr on 2 of 3 connections (1
// kept: queue)", "adaptive lowat: set on 3 of 3 connections
// (16384..62500 bytes)"; when no connection carried their evidence, that
// the static setting held. "" when c turns none on or proto does not
// take them.
func AdaptiveNote(c Condition, proto string, conns []TCPInfo, win *RecvWindowSum, demand *DemandSum) string {
	var parts []string
	if c.SessionPolicy == SessionDemand && !slicesContain(IgnoredBy(c, proto), "session_policy") {
		parts = append(parts, demand.note())
	}
	if c.AdaptiveWindow && !slicesContain(IgnoredBy(c, proto), "adaptive_window") {
		parts = append(parts, win.note())
	}
	switch {
	case c.TCP.AdaptiveCC && !slicesContain(IgnoredBy(c, proto), "adaptive_cc"):
		parts = append(parts, adaptCCNote("adaptive cc", c, conns))
	case c.TCP.AdaptiveRegrow && !slicesContain(IgnoredBy(c, proto), "adaptive_regrow"):
		parts = append(parts, adaptCCNote("adaptive regrow", c, conns))
	}
	if c.TCP.AdaptiveLowat && !slicesContain(IgnoredBy(c, proto), "adaptive_lowat") {
		parts = append(parts, adaptLowatNote(conns))
	}
	if c.TCP.AdaptivePacing && !slicesContain(IgnoredBy(c, proto), "adaptive_pacing") {
		parts = append(parts, adaptPacingNote(conns))
	}
	return strings.Join(parts, "; ")
}

// adaptCCNote sums up the outcomes of the cc decisions (adaptive_cc,
// adaptive_regrow or both, which share one decision per connection).
func adaptCCNote(label string, c Condition, conns []TCPInfo) string {
	static := c.TCP.CC
	if static == "" {
		static = "the kernel default"
	}
	counts := map[string]int{}
	for _, t := range conns {
		if t.AdaptCC != "" {
			counts[t.AdaptCC]++
		}
	}
	n := len(conns)
	if n == 0 || counts[AdaptCCNoSignal] == n || len(counts) == 0 {
		return fmt.Sprintf("%s: no signal (no server TCP_INFO): the static cc (%s) held", label, static)
	}
	s := fmt.Sprintf("%s: bbr on %d of %d connections", label, counts[AdaptCCSwitched]+counts[AdaptCCRoom], n)
	var rest []string
	for _, k := range []string{AdaptCCRoom, AdaptCCBack, AdaptCCQueue, AdaptCCQuiet, AdaptCCNoSignal} {
		if counts[k] > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	if len(rest) > 0 {
		s += " (" + strings.Join(rest, ", ") + ")"
	}
	return s
}

func adaptLowatNote(conns []TCPInfo) string {
	set, lo, hi := 0, 0, 0
	for _, t := range conns {
		if t.AdaptLowat <= 0 {
			continue
		}
		if set == 0 || t.AdaptLowat < lo {
			lo = t.AdaptLowat
		}
		hi = max(hi, t.AdaptLowat)
		set++
	}
	if set == 0 {
		return "adaptive lowat: no signal (no delivery rate or minimum RTT in the servers' TCP_INFO): the kernel's default held"
	}
	return fmt.Sprintf("adaptive lowat: set on %d of %d connections (%d..%d bytes)", set, len(conns), lo, hi)
}

func adaptPacingNote(conns []TCPInfo) string {
	capped, lowest := 0, uint64(0)
	for _, t := range conns {
		if t.AdaptPaceLowest == 0 {
			continue
		}
		if capped == 0 || t.AdaptPaceLowest < lowest {
			lowest = t.AdaptPaceLowest
		}
		capped++
	}
	if len(conns) == 0 {
		return "adaptive pacing: no signal (no server TCP_INFO): unpaced"
	}
	if capped == 0 {
		return fmt.Sprintf("adaptive pacing: no connection's RTT showed a queue: none of %d paced", len(conns))
	}
	return fmt.Sprintf("adaptive pacing: capped %d of %d connections (lowest cap %.2f Mbit/s)", capped, len(conns), float64(lowest)*8/1e6)
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// AdaptiveCCTarget is the algorithm adaptive_cc switches a connection to.
const AdaptiveCCTarget = "bbr"

// CongestionControls lists the congestion controls the servers may run
// under t: its cc ("" = the kernel default) and, with adaptive_cc, the
// one it switches to; each must be in the kernel before any load.
func (t TCP) CongestionControls() []string {
	ccs := []string{t.CC}
	if t.AdaptiveCC || t.AdaptiveRegrow {
		ccs = append(ccs, AdaptiveCCTarget)
	}
	return ccs
}

// RecvWindowSum is what the loader's adaptive session windows
// (adaptive_window) did over a load's sessions.
type RecvWindowSum struct {
	Sessions int `json:"sessions"`
	// Sampled: sessions with at least one PING round trip (the signal);
	// Fell: sessions whose window fell on a queue at least once.
	Sampled int `json:"sampled"`
	Fell    int `json:"fell"`
	// Lowest is the smallest window a fall set, in bytes (0: none fell).
	Lowest int64 `json:"lowest,omitempty"`
}

// Add counts one session: whether it had a sample, whether its window
// fell, and the lowest window a fall set.
func (w *RecvWindowSum) Add(sampled bool, lowest int64) {
	w.Sessions++
	if sampled {
		w.Sampled++
	}
	if lowest > 0 {
		w.Fell++
		if w.Lowest == 0 || lowest < w.Lowest {
			w.Lowest = lowest
		}
	}
}

// DemandSum is what the loader's demand policy (SessionDemand) did over
// a load's hosts.
type DemandSum struct {
	Hosts int `json:"hosts"`
	// Grew: hosts that opened more than one session; Extra: the sessions
	// they opened beyond their first.
	Grew  int `json:"grew"`
	Extra int `json:"extra"`
}

// note is the load's line for the demand policy.
func (d *DemandSum) note() string {
	if d == nil || d.Grew == 0 {
		return fmt.Sprintf("session demand: no host asked for more than %d large responses per session at once: one session each", DemandLargePerSession)
	}
	return fmt.Sprintf("session demand: %d of %d hosts opened more sessions (%d beyond their first)", d.Grew, d.Hosts, d.Extra)
}

// note is the load's line for the adaptive window.
func (w *RecvWindowSum) note() string {
	switch {
	case w == nil || w.Sessions == 0:
		return "adaptive window: no session"
	case w.Sampled == 0:
		return "adaptive window: no signal (no PING echo on any session): the static window held"
	case w.Fell == 0:
		return fmt.Sprintf("adaptive window: no session's PINGs showed a queue: none of %d fell", w.Sessions)
	}
	return fmt.Sprintf("adaptive window: fell on %d of %d sessions (lowest %d KiB)", w.Fell, w.Sessions, w.Lowest>>10)
}
