package study

import (
	"fmt"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/study/spec"
)

// CheckHost refuses a study that asks this machine for what it does not
// have, before any load runs: today a server congestion control the
// kernel does not offer (netem.CheckCongestionControl, the one check).
// A study file is valid anywhere; whether it can run here is this check.
func CheckHost(s *spec.Study) error {
	seen := map[string]bool{}
	for _, c := range s.Conditions {
		for _, cc := range c.TCP.CongestionControls() {
			if seen[cc] {
				continue
			}
			seen[cc] = true
			if err := netem.CheckCongestionControl(cc); err != nil {
				return fmt.Errorf("study %s: condition %s: cc %q: %w", s.Name, c.Describe(), cc, err)
			}
		}
	}
	return nil
}
