package page

import (
	"fmt"
	"math"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
)

// This file turns a recording's per-host connect times into the extra
// round trips of host_rtt recorded (probe.HostRTTRecorded).

// HostExtraRTT is the round trip each host of m gets beyond the access
// link's (the condition's rtt): its recorded TCP connect time minus the
// fastest host's, so the nearest host sits at the condition's rtt and the
// recording's own access link is not counted twice. A host without a
// recorded connect (its requests reused connections only) gets the median
// of the recorded ones. A page without any (generated, or imported before
// spdylab kept connect times) is an error naming what to do.
func (m *Manifest) HostExtraRTT() (map[string]time.Duration, error) {
	var recorded []float64
	for _, h := range m.Hosts {
		if ms, ok := m.HostConnectMs[h]; ok {
			recorded = append(recorded, ms)
		}
	}
	if len(recorded) == 0 {
		return nil, fmt.Errorf("page %s has no recorded connect times (a generated page, or a recording imported before spdylab kept them: import it again): host_rtt recorded cannot apply (use host_rtt uniform)", m.Name)
	}
	median := stats.Median(recorded)
	fastest := math.Inf(1)
	for _, ms := range recorded {
		fastest = min(fastest, ms)
	}
	out := make(map[string]time.Duration, len(m.Hosts))
	for _, h := range m.Hosts {
		ms, ok := m.HostConnectMs[h]
		if !ok {
			ms = median
		}
		out[h] = time.Duration((ms - fastest) * float64(time.Millisecond))
	}
	return out, nil
}

// hostConnectProblem checks HostConnectMs: known hosts, finite
// non-negative times.
func (m *Manifest) hostConnectProblem(hosts map[string]bool) error {
	for h, ms := range m.HostConnectMs {
		if !hosts[h] {
			return fmt.Errorf("host_connect_ms names %q, which is not in the manifest's hosts", h)
		}
		if ms < 0 || math.IsNaN(ms) || math.IsInf(ms, 0) || ms > 60000 {
			return fmt.Errorf("host_connect_ms of %s is %v; want 0..60000 ms", h, ms)
		}
	}
	return nil
}
