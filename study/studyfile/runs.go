package studyfile

import (
	"fmt"

	"github.com/spdylab/spdylab/study/spec"
)

// parseRuns reads the runs key: a number of loads per condition, or
// "auto" (spec.AutoRuns with its defaults: runs added until each gain is
// known to ±5%, 5 to 40 runs; `spdylab run --runs-target/--runs-max`
// change them).
func parseRuns(s *spec.Study, v any) error {
	switch x := v.(type) {
	case int64:
		if x < 1 || x > 10000 {
			return fmt.Errorf("runs = %d: must be between 1 and 10000", x)
		}
		s.Runs = int(x)
		return nil
	case string:
		if x == "auto" {
			return s.SetRunsAuto(spec.DefaultAutoRuns())
		}
		return fmt.Errorf("runs = %q: want a number of loads per condition (1 to 10000) or \"auto\"", x)
	case nil:
		return fmt.Errorf("runs = 0: must be between 1 and 10000, or \"auto\"")
	}
	return fmt.Errorf("runs = %v: want a number of loads per condition (1 to 10000) or \"auto\"", v)
}
