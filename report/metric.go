package report

// The chosen metric (probe.Metric, Options.Metric) in the analysis: each
// condition's values of it, the clients that cannot give it, and how the
// report names it.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// refuseClients marks the conditions whose client cannot give the metric
// (Speed Index from the loader) with the reason, and refuses the metric
// when no condition's client can: the report would hold no gain at all.
func (a *Analysis) refuseClients() error {
	a.Refused = map[string]string{}
	can := 0
	for _, c := range a.Conds {
		client := c.Condition.ClientName()
		if why := a.Metric.Refuses(client); why != "" {
			c.Refused = why
			a.Refused[client] = why
			continue
		}
		can++
	}
	if can == 0 && len(a.Refused) > 0 {
		var parts []string
		for client, why := range a.Refused {
			parts = append(parts, fmt.Sprintf("client %s cannot give it: %s", client, why))
		}
		sort.Strings(parts)
		return fmt.Errorf("metric %s refused: %s", a.Metric.Name, strings.Join(parts, "; "))
	}
	return nil
}

// addValue counts one successful load's value of the metric in c's
// sample, or counts it missing.
func (a *Analysis) addValue(c *Condition, sm *sample, r *probe.Result) {
	if c.Refused != "" {
		return
	}
	v, ok := a.Metric.Of(r)
	if !ok {
		c.Missing++
		a.MetricMissing++
		return
	}
	sm.val = append(sm.val, v)
	if a.Metric.Estimated(r) {
		a.MetricEstimated++
	}
}

// MetricTitle is the metric as tables name it, marked as the loader's
// estimate when every value of it is one.
func (a *Analysis) MetricTitle() string {
	n := a.OKLoads - a.MetricMissing
	return a.Metric.Label(a.MetricEstimated > 0 && a.MetricEstimated == n)
}

// MetricNote says what the report cannot give of the metric: the clients
// refused it, the loads without it (absent, not zero), the loads whose
// values are the loader's estimates beside a browser's measurements, the
// loads whose critical path cannot end at it. "" when nothing is missing.
func (a *Analysis) MetricNote() string {
	var parts []string
	clients := make([]string, 0, len(a.Refused))
	for c := range a.Refused {
		clients = append(clients, c)
	}
	sort.Strings(clients)
	for _, c := range clients {
		parts = append(parts, fmt.Sprintf("client %s's conditions have no %s: %s.", c, a.Metric.Title, a.Refused[c]))
	}
	if a.MetricMissing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d successful loads have no %s (not measured: a load stored before paint metrics, a page that did not paint, or frames off); they are left out of the %s medians and gains, not counted as zero.",
			a.MetricMissing, a.OKLoads, a.Metric.Title, a.Metric.Title))
	}
	if n := a.OKLoads - a.MetricMissing; a.MetricEstimated > 0 && a.MetricEstimated < n {
		parts = append(parts, fmt.Sprintf("%d of the %d loads with %s are the loader's estimates, the others Chromium's measurements.", a.MetricEstimated, n, a.Metric.Title))
	}
	if len(a.PathsUnknown) > 0 {
		parts = append(parts, fmt.Sprintf("The critical path of %s could not be ended at the paint's resource for %s; those loads have no critical path here.", a.Metric.Title, countedKeys(a.PathsUnknown)))
	}
	return strings.Join(parts, " ")
}
