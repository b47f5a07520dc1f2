package probe

import (
	"fmt"
	"strings"
)

// The one owner of the metrics a study can be judged on (`--metric` of
// report, why and tune): their names, titles and unit, how each is read
// from a stored load, and which clients can give it. Gains, intervals,
// verdicts, CDFs and critical paths are computed on whichever is chosen;
// PLT stays the default so every store reads as it always did.

// Metric names.
const (
	MetricPLT = "plt"
	MetricToW = "tow"
	MetricFCP = "fcp"
	MetricLCP = "lcp"
	MetricSI  = "si"
)

// Metric is one way to time a page load.
type Metric struct {
	Name  string // as --metric spells it
	Title string // as tables and sentences name it: "PLT", "LCP"
	Long  string // in words: "largest contentful paint"
	Unit  string // every metric is a time: "ms"
	// Paint is the probe.Paint metric it reads (PaintMetrics), "" for
	// PLT and ToW, which every successful load has.
	Paint string
	// browserOnly: only a real browser can give it; the reason a loader
	// load cannot.
	browserOnly string
}

// Metrics lists every metric, the default first.
var Metrics = []Metric{
	{Name: MetricPLT, Title: "PLT", Long: "page load time", Unit: "ms"},
	{Name: MetricToW, Title: "ToW", Long: "time on the wire", Unit: "ms"},
	{Name: MetricFCP, Title: "FCP", Long: "first contentful paint", Unit: "ms", Paint: "fcp_ms"},
	{Name: MetricLCP, Title: "LCP", Long: "largest contentful paint", Unit: "ms", Paint: "lcp_ms"},
	{Name: MetricSI, Title: "Speed Index", Long: "Speed Index", Unit: "ms", Paint: "speed_index_ms",
		browserOnly: "Speed Index is computed from the screencast frames only a real browser draws (client " + ClientChromium + " with speed_index = true); the loader lays nothing out"},
}

// MetricNames are the valid --metric values (list order).
func MetricNames() []string {
	out := make([]string, len(Metrics))
	for i, m := range Metrics {
		out[i] = m.Name
	}
	return out
}

// LookupMetric finds a metric by name ("" is PLT); the error lists the
// names.
func LookupMetric(name string) (Metric, error) {
	if name == "" {
		name = MetricPLT
	}
	for _, m := range Metrics {
		if m.Name == strings.ToLower(name) {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("metric %q: want one of %s", name, strings.Join(MetricNames(), ", "))
}

// IsPaint: the metric is a paint metric (absent on loads that did not
// measure it, never zero).
func (m Metric) IsPaint() bool { return m.Paint != "" }

// Refuses is why client cannot give the metric ("" when it can).
func (m Metric) Refuses(client string) string {
	c, ok := LookupClient(client)
	if !ok || m.browserOnly == "" || c.Browser {
		return ""
	}
	return m.browserOnly
}

// Of reads the metric from a load: ok is false when the load failed or
// did not measure it (a paint metric of an older store's load, of a
// page that never painted, or one its client cannot give).
func (m Metric) Of(r *Result) (v float64, ok bool) {
	if r == nil || r.Failed {
		return 0, false
	}
	switch m.Name {
	case MetricPLT:
		return r.PLTms, true
	case MetricToW:
		return r.ToWms, true
	}
	if p := r.Paint.Metric(m.Paint); p != nil {
		return *p, true
	}
	return 0, false
}

// Estimated: r's value of the metric is the loader's estimate, not a
// browser's measurement (tables and sentences say so).
func (m Metric) Estimated(r *Result) bool {
	return m.IsPaint() && r != nil && r.Paint != nil && r.Paint.Estimated
}

// Label is the metric's title, marked as the loader's estimate when
// estimated.
func (m Metric) Label(estimated bool) string {
	if estimated {
		return m.Title + " (the loader's estimate)"
	}
	return m.Title
}
