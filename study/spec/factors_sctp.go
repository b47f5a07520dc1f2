package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// The SCTP factors' values become Condition.SCTP, the knobs of
// spdy/3.1+sctp (probe owns their defaults and limits). Values equal to a
// default are stored as zero (probe.SCTP.Compact), so studies that never
// mention SCTP keep their condition hashes.

// sctpKnobs builds the condition's SCTP knobs from canonical factor values.
func sctpKnobs(v map[string]string) probe.SCTP {
	streams, _ := strconv.Atoi(v["sctp_streams"])
	rtoMin, _ := time.ParseDuration(v["sctp_rto_min"])
	rtoInit, _ := time.ParseDuration(v["sctp_rto_initial"])
	buf, _ := parseSize(v["sctp_buffer"])
	return probe.SCTP{
		NoControlStream:   v["sctp_control_stream"] == "false",
		NoBundleCookie:    v["sctp_bundle_cookie"] == "false",
		Streams:           streams,
		RTOMin:            rtoMin,
		RTOInitial:        rtoInit,
		Buffer:            buf,
		CongestionControl: v["sctp_cc"],
	}.Compact()
}

func canonSCTPRTO(v string) (string, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return "", fmt.Errorf("not a duration like \"200ms\"")
	}
	if d < time.Millisecond || d > probe.MaxSCTPRTO {
		return "", fmt.Errorf("must be between 1ms and %v", probe.MaxSCTPRTO)
	}
	return d.String(), nil
}

func canonSCTPBuffer(v string) (string, error) {
	n, err := parseSize(v)
	if err != nil {
		return "", err
	}
	if n < probe.MinSCTPBuffer || n > probe.MaxSCTPBuffer {
		return "", fmt.Errorf("must be between %s and %s", formatSize(probe.MinSCTPBuffer), formatSize(probe.MaxSCTPBuffer))
	}
	return formatSize(n), nil
}

// sizeUnits are the suffixes a byte size may carry (binary multiples: a
// socket buffer is counted in KiB).
var sizeUnits = []struct {
	suffix string
	mult   int
}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1}}

// parseSize reads "65536", "64KiB", "64kb" or "1MiB".
func parseSize(v string) (int, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mult := 1
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<40/mult {
		return 0, fmt.Errorf("%q is not a size like \"64KiB\" or \"65536\"", v)
	}
	return n * mult, nil
}

// formatSize spells a size canonically: whole MiB or KiB, else bytes.
func formatSize(n int) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n)
}
