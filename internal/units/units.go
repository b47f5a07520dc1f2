// Package units parses and formats the quantities people type into flags
// and study files: link rates, queue limits, loss probabilities, sizes and
// durations. It is a leaf (standard library only) so that netem/link, page,
// study and report read "10mbit" or "1%" the same way.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate limits accepted by ParseRate. Below 64 kbit/s a single 1500-byte
// packet takes longer than 0.18 s to serialise, which no study uses; above
// 1 Gbit/s the user-space emulator on a shared 2-core machine can no longer
// promise the configured rate.
const (
	MinRateBps = 64_000
	MaxRateBps = 1_000_000_000
)

// Queue limits accepted by ParseQueue.
const (
	maxQueuePkts  = 1_000_000
	maxQueueBytes = 1 << 30
	// MTU is the largest IP packet the testbeds carry; a byte-limited queue
	// smaller than one MTU could never accept a full-sized packet.
	MTU = 1500
)

// ParseRate parses a link rate such as "64kbit", "1.5mbit", "10mbit", "1gbit"
// or "unlimited" (returned as 0). Units are decimal as in tc: 1kbit = 1000
// bit/s. "kbps"/"mbps" are refused because tc reads them as bytes per
// second while most people mean bits.
func ParseRate(s string) (int64, error) {
	orig := s
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, fmt.Errorf("rate is empty; want e.g. 10mbit or unlimited")
	}
	if s == "unlimited" || s == "inf" || s == "none" {
		return 0, nil
	}
	num, unit := splitNumber(s)
	if num == "" {
		return 0, fmt.Errorf("rate %q: want a number followed by bit, kbit, mbit or gbit (or unlimited)", orig)
	}
	var mult float64
	switch unit {
	case "bit", "bit/s":
		mult = 1
	case "kbit", "kbit/s", "k":
		mult = 1e3
	case "mbit", "mbit/s", "m":
		mult = 1e6
	case "gbit", "gbit/s", "g":
		mult = 1e9
	case "bps", "kbps", "mbps", "gbps":
		return 0, fmt.Errorf("rate %q is ambiguous (tc reads %s as bytes per second); write it in bits, e.g. %s%s",
			orig, unit, num, strings.TrimSuffix(unit, "ps")+"it")
	case "":
		return 0, fmt.Errorf("rate %q has no unit; want e.g. %skbit or %smbit", orig, num, num)
	default:
		return 0, fmt.Errorf("rate %q: unknown unit %q; want bit, kbit, mbit or gbit", orig, unit)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("rate %q: %q is not a number", orig, num)
	}
	bps := math.Round(v * mult)
	if bps < MinRateBps || bps > MaxRateBps {
		return 0, fmt.Errorf("rate %q is outside 64kbit..1gbit (use unlimited for no limit)", orig)
	}
	return int64(bps), nil
}

// FormatRate renders a rate the way ParseRate reads it back.
func FormatRate(bps int64) string {
	switch {
	case bps <= 0:
		return "unlimited"
	case bps%1_000_000_000 == 0:
		return fmt.Sprintf("%dgbit", bps/1_000_000_000)
	case bps >= 1_000_000 && bps%1000 == 0:
		return strconv.FormatFloat(float64(bps)/1e6, 'f', -1, 64) + "mbit"
	case bps%1000 == 0:
		return fmt.Sprintf("%dkbit", bps/1000)
	default:
		return fmt.Sprintf("%dbit", bps)
	}
}

// ParseQueue parses a droptail limit: "50pkt" (packets), "64kb"/"64KiB"/
// "1mb"/"9000b" (bytes; kb and mb are decimal, KiB and MiB binary) or
// "unlimited" (both results 0).
func ParseQueue(s string) (pkts, bytes int, err error) {
	orig := s
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, 0, fmt.Errorf("queue is empty; want e.g. 50pkt, 64kb or unlimited")
	}
	if s == "unlimited" || s == "inf" || s == "none" {
		return 0, 0, nil
	}
	num, unit := splitNumber(s)
	if num == "" {
		return 0, 0, fmt.Errorf("queue %q: want a count followed by pkt, b, kb, KiB, mb or MiB (or unlimited)", orig)
	}
	var mult int64
	isPkts := false
	switch unit {
	case "pkt", "pkts", "p", "packets", "packet":
		isPkts, mult = true, 1
	case "b", "byte", "bytes":
		mult = 1
	case "kb":
		mult = 1000
	case "kib":
		mult = 1024
	case "mb":
		mult = 1000_000
	case "mib":
		mult = 1 << 20
	case "":
		return 0, 0, fmt.Errorf("queue %q has no unit; want %spkt or %skb", orig, num, num)
	default:
		return 0, 0, fmt.Errorf("queue %q: unknown unit %q; want pkt, b, kb, KiB, mb or MiB", orig, unit)
	}
	v, perr := strconv.ParseFloat(num, 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, fmt.Errorf("queue %q: %q is not a number", orig, num)
	}
	total := v * float64(mult)
	if total != math.Trunc(total) {
		return 0, 0, fmt.Errorf("queue %q is not a whole number of %s", orig, map[bool]string{true: "packets", false: "bytes"}[isPkts])
	}
	if isPkts {
		if total < 1 || total > maxQueuePkts {
			return 0, 0, fmt.Errorf("queue %q is outside 1..%d packets", orig, maxQueuePkts)
		}
		return int(total), 0, nil
	}
	if total < MTU || total > maxQueueBytes {
		return 0, 0, fmt.Errorf("queue %q is outside %d bytes (one MTU)..1GiB", orig, MTU)
	}
	return 0, int(total), nil
}

// ParseLoss parses a random loss probability written as a percentage
// ("1%", "0.5%") or a fraction ("0.01"). The result is in [0, 1].
func ParseLoss(s string) (float64, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("loss is empty; want e.g. 1%% or 0.01")
	}
	pct := strings.HasSuffix(s, "%")
	num := strings.TrimSpace(strings.TrimSuffix(s, "%"))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("loss %q: %q is not a number; want e.g. 1%% or 0.01", orig, num)
	}
	if pct {
		v /= 100
	} else if v > 1 {
		return 0, fmt.Errorf("loss %q is above 1; write a percentage as %s%%", orig, num)
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("loss %q is outside 0..100%%", orig)
	}
	return v, nil
}

// splitNumber splits "1.5mbit" into "1.5" and "mbit".
func splitNumber(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || i == 0 && (s[i] == '-' || s[i] == '+')) {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// KiB is the unit of ParseSize's "k" suffix.
const KiB = 1024

// ParseSize parses a byte size as page specs write it: "512", "512b",
// "10k" (KiB) or "1.5m" (MiB).
func ParseSize(s string) (int, error) {
	mult := 1
	low := strings.ToLower(s)
	switch {
	case strings.HasSuffix(low, "k"):
		mult, low = KiB, strings.TrimSuffix(low, "k")
	case strings.HasSuffix(low, "m"):
		mult, low = KiB*KiB, strings.TrimSuffix(low, "m")
	case strings.HasSuffix(low, "b"):
		low = strings.TrimSuffix(low, "b")
	}
	f, err := strconv.ParseFloat(low, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%q is not a size like 10k", s)
	}
	return int(math.Round(f * float64(mult))), nil
}

// ParseDuration parses a study's delay such as "100ms": a Go duration
// between 0 and max; a bare number is refused with "did you mean 100ms?".
func ParseDuration(s string, max time.Duration) (time.Duration, error) {
	return ParseDurationIn(s, 0, max, "ms")
}

// ParseDurationIn parses a Go duration between min and max. A bare number
// ("100") is the commonest slip, so its error suggests the number with
// unit, the unit that setting is usually given in ("ms" for delays, "s"
// for timeouts).
func ParseDurationIn(s string, min, max time.Duration, unit string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return 0, fmt.Errorf("a duration needs a unit: did you mean %s%s?", s, unit)
		}
		example := "100ms"
		if unit != "ms" {
			example = "5" + unit
		}
		return 0, fmt.Errorf("not a duration like %q", example)
	}
	if d < min || d > max {
		return 0, fmt.Errorf("must be between %v and %v", min, max)
	}
	return d, nil
}
