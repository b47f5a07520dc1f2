package probe

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/internal/units"
)

// This file owns the servers' transport and write knobs a tuning search
// turns: TCP pacing and TCP_NOTSENT_LOWAT (TCP.Pacing,
// TCP.NotSentLowat), the SPDY DATA frame size (FrameSize), the session
// receive window (SessionWindow) and SPDY server hints (Hints): their
// values and their defaults (stored empty, so conditions hashed before the
// fields existed keep their identity); which protocols each applies to is
// its Field's Scope (applies.go).

// Pacing values (TCP.Pacing) besides a rate such as "8mbit".
const (
	// PacingOff leaves the kernel's behaviour (stored as ""): with no fq
	// qdisc, TCP paces only under BBR.
	PacingOff = "off"
	// PacingOn turns on TCP's internal pacing at its own rate (about
	// twice cwnd/srtt in slow start): SO_MAX_PACING_RATE set to a cap no
	// link reaches.
	PacingOn = "on"
	// PacingLink caps the pacing rate at the condition's downlink rate.
	PacingLink = "link"
)

// Bounds of the SPDY DATA frame size (FrameSize): below 512 bytes the
// frame header is over 1.5% of each frame; above, SPDY's 24-bit length.
const (
	MinFrameSize = 512
	MaxFrameSize = 1<<24 - 1
)

// Bounds of SessionWindow: SPDY/3.1 and h2 start every session at 64 KiB
// and a receiver can only widen it (WINDOW_UPDATE), never shrink it.
const (
	MinSessionWindow = 65536
	MaxSessionWindow = 1<<31 - 1
)

// MaxNotSentLowat bounds TCP.NotSentLowat (the kernel takes an int).
const MaxNotSentLowat = 1 << 30

// Server hint policies (Condition.Hints).
const (
	HintsNone = "none"
	// HintsDeps lists a document's direct children on its host in an
	// X-Associated-Content header of the document's response.
	HintsDeps = "deps"
)

// HintPolicies are the valid Condition.Hints values ("" = HintsNone).
var HintPolicies = []string{HintsNone, HintsDeps}

// HintsNote says what the clients do with server hints, for the hints
// factor's help and the READMEs.
const HintsNote = "in 2012 X-Associated-Content was read server-side (mod_spdy started pushes from it) and no Chrome release is known to have fetched hinted URLs early; the loader (any profile) does not either, so hints only add bytes to the document's headers and a study sees their cost, not a gain"

// canonPacing spells a pacing value: off, on, link or a rate.
func canonPacing(v string) (string, error) {
	switch v {
	case PacingOff, PacingOn, PacingLink:
		return v, nil
	}
	bps, err := units.ParseRate(v)
	if err != nil {
		return "", fmt.Errorf("want %s or a rate such as 8mbit: %w", OneOf([]string{PacingOff, PacingOn, PacingLink}), err)
	}
	if bps <= 0 {
		return "", fmt.Errorf("an unlimited pacing rate paces nothing: want %s or a rate such as 8mbit", OneOf([]string{PacingOff, PacingOn, PacingLink}))
	}
	return units.FormatRate(bps), nil
}

// canonZeroOr accepts 0 (the default) or a value within lo..hi.
func canonZeroOr(lo, hi int) func(string) (string, error) {
	inRange := intRange(0, hi)
	return func(v string) (string, error) {
		c, err := inRange(v)
		if err != nil {
			return "", fmt.Errorf("must be 0 (the default) or between %d and %d", lo, hi)
		}
		if n := atoi(c); n != 0 && n < lo {
			return "", fmt.Errorf("must be 0 (the default) or between %d and %d", lo, hi)
		}
		return c, nil
	}
}

// PacingBitsPerSecond is the pacing cap the servers set for c: 0 when
// pacing is off, uncapped for PacingOn, else the rate in bit/s.
func (c Condition) PacingBitsPerSecond(uncapped int64) int64 {
	switch c.TCP.Pacing {
	case "", PacingOff:
		return 0
	case PacingOn:
		return uncapped
	case PacingLink:
		return c.Link.DownBps
	}
	bps, _ := units.ParseRate(c.TCP.Pacing)
	return bps
}

// ServerKnobs spells the server knobs set away from their defaults
// ("pacing link, frame_size 4096"), "" when none is, for summaries.
func (c Condition) ServerKnobs() string {
	var set []string
	add := func(on bool, format string, v any) {
		if on {
			set = append(set, fmt.Sprintf(format, v))
		}
	}
	add(c.TCP.Pacing != "", "pacing %s", c.TCP.Pacing)
	add(c.TCP.NotSentLowat != 0, "notsent_lowat %d", c.TCP.NotSentLowat)
	add(c.TCP.AdaptiveCC, "%s", "adaptive_cc")
	add(c.TCP.AdaptiveRegrow, "%s", "adaptive_regrow")
	add(c.TCP.AdaptiveLowat, "%s", "adaptive_lowat")
	add(c.TCP.AdaptivePacing, "%s", "adaptive_pacing")
	add(c.FrameSize != 0, "frame_size %d", c.FrameSize)
	add(c.FrameRamp, "%s", "frame_ramp")
	add(c.SessionWindow != 0, "session_window %d", c.SessionWindow)
	add(c.Hints != "", "hints %s", c.Hints)
	return strings.Join(set, ", ")
}

// normalizeServerKnobs checks the server knobs' values, storing defaults
// empty. Which protocols each reaches is its Scope's (applies.go).
func normalizeServerKnobs(c Condition) (Condition, error) {
	if c.TCP.Pacing == PacingOff {
		c.TCP.Pacing = ""
	}
	if c.TCP.Pacing != "" {
		canon, err := canonPacing(c.TCP.Pacing)
		if err != nil {
			return c, fmt.Errorf("pacing %q: %w", c.TCP.Pacing, err)
		}
		c.TCP.Pacing = canon
	}
	if c.TCP.Pacing == PacingLink && (c.NoLink || c.Link.DownBps <= 0) {
		return c, fmt.Errorf("pacing %s needs a downlink rate to pace at: set down (not unlimited, not a trace) or give pacing a rate such as 8mbit", PacingLink)
	}
	if c.TCP.NotSentLowat < 0 || c.TCP.NotSentLowat > MaxNotSentLowat {
		return c, fmt.Errorf("notsent_lowat %d out of range 0..%d", c.TCP.NotSentLowat, MaxNotSentLowat)
	}
	if c.TCP.AdaptiveCC && c.TCP.CC == "bbr" {
		return c, fmt.Errorf("adaptive_cc starts each connection at cc and switches it to bbr on evidence; with cc bbr there is nothing to switch: leave cc at cubic or the default")
	}
	if c.TCP.AdaptiveRegrow && c.TCP.CC == "bbr" {
		return c, fmt.Errorf("adaptive_regrow moves a connection from cc to bbr when the path has room; with cc bbr there is nothing to move: leave cc at cubic or the default")
	}
	if c.TCP.AdaptiveLowat && c.TCP.NotSentLowat != 0 {
		return c, fmt.Errorf("adaptive_lowat sets TCP_NOTSENT_LOWAT per connection; notsent_lowat %d sets it fixed: set one of them", c.TCP.NotSentLowat)
	}
	if c.TCP.AdaptivePacing && c.TCP.Pacing != "" {
		return c, fmt.Errorf("adaptive_pacing sets each connection's pacing cap from what it measures; pacing %s sets it fixed: set one of them", c.TCP.Pacing)
	}
	if c.FrameSize != 0 && (c.FrameSize < MinFrameSize || c.FrameSize > MaxFrameSize) {
		return c, fmt.Errorf("frame_size %d: must be 0 (the default, 16 KiB) or between %d and %d", c.FrameSize, MinFrameSize, MaxFrameSize)
	}
	if c.SessionWindow != 0 && (c.SessionWindow < MinSessionWindow || c.SessionWindow > MaxSessionWindow) {
		return c, fmt.Errorf("session_window %d: must be 0 (the default) or between %d and %d (a session window starts at 64 KiB and can only grow)", c.SessionWindow, MinSessionWindow, MaxSessionWindow)
	}
	if c.Hints == HintsNone {
		c.Hints = ""
	}
	if c.Hints != "" && !member(c.Hints, HintPolicies) {
		return c, fmt.Errorf("unknown hints policy %q (want %s)", c.Hints, OneOf(HintPolicies))
	}
	return c, nil
}
