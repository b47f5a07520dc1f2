package harness

import (
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// hostDelaysOf are the testbed's extra round trips per host under
// host_rtt recorded (page.Manifest.HostExtraRTT states the rule; netem
// adds them on the server side of the link); nil under uniform.
func hostDelaysOf(c probe.Condition, m *page.Manifest) (map[string]time.Duration, error) {
	if c.HostRTT != probe.HostRTTRecorded {
		return nil, nil
	}
	return m.HostExtraRTT()
}
