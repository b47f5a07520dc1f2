package tune

import (
	"fmt"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// checkMetric refuses a metric name probe.Metrics does not know, and one
// that a client of the study cannot give (Speed Index from the loader):
// a tune on it would judge candidates on no values.
func checkMetric(s *spec.Study, name string) error {
	m, err := probe.LookupMetric(name)
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	for _, c := range s.Conditions {
		if why := m.Refuses(c.Condition.ClientName()); why != "" {
			return fmt.Errorf("--metric %s: client %s cannot give it: %s", m.Name, c.Condition.ClientName(), why)
		}
	}
	return nil
}

// metric is the checked metric (Prepare refused any other).
func (t *Tuner) metric() probe.Metric {
	m, _ := probe.LookupMetric(t.cfg.Metric)
	return m
}

// MetricTitle is the title of what the gains are of ("PLT" for a tune
// written before the metric was recorded).
func (r *Result) MetricTitle() string {
	m, err := probe.LookupMetric(r.Metric)
	if err != nil {
		return r.Metric
	}
	return m.Title
}
