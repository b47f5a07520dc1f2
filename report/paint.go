package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// PaintLoads gathers the paint metrics (probe.Paint) of a condition's
// successful loads: the values measured, and why the others are absent.
// A load without a paint record (the loader, a load stored before paint
// metrics) adds nothing: its metrics are absent, not zero.
type PaintLoads struct {
	values  [3][]float64 // by probe.PaintMetrics
	loads   int          // loads with a paint record
	est     int          // of which the loader's estimates
	lcpURLs map[string]int
	absent  map[string]int
}

func (pl *PaintLoads) add(p *probe.Paint) {
	if p == nil {
		return
	}
	pl.loads++
	if p.Estimated {
		pl.est++
	}
	for i, name := range probe.PaintMetrics {
		if v := p.Metric(name); v != nil {
			pl.values[i] = append(pl.values[i], *v)
		}
	}
	if p.LCPURL != "" {
		if pl.lcpURLs == nil {
			pl.lcpURLs = map[string]int{}
		}
		pl.lcpURLs[p.LCPURL]++
	}
	for _, why := range strings.Split(p.Absent, "\n") {
		if why != "" {
			if pl.absent == nil {
				pl.absent = map[string]int{}
			}
			pl.absent[why]++
		}
	}
}

// PaintSummary is what conditions.json, conditions.csv and `load --json`
// give of the paint metrics: per metric the median, quartiles and values
// over the loads that measured it (null/empty when none did), the LCP
// element's resources with their loads, and each reason a metric was
// absent with its loads.
type PaintSummary struct {
	Loads     int                      `json:"loads"`               // successful loads with paint metrics
	Estimated int                      `json:"estimated,omitempty"` // of which the loader's estimates, not a browser's measurements
	Metrics   map[string]PaintQuartile `json:"metrics"`
	LCPURLs   map[string]int           `json:"lcp_urls,omitempty"`
	Absent    map[string]int           `json:"absent,omitempty"`
}

// PaintQuartile is one paint metric over the loads that measured it.
type PaintQuartile struct {
	N      int       `json:"n"`
	Median *float64  `json:"median_ms"`
	P25    *float64  `json:"p25_ms"`
	P75    *float64  `json:"p75_ms"`
	Values []float64 `json:"values_ms"`
}

// Summary is nil when no load had paint metrics.
func (pl *PaintLoads) Summary() *PaintSummary {
	if pl == nil || pl.loads == 0 {
		return nil
	}
	s := &PaintSummary{Loads: pl.loads, Estimated: pl.est, Metrics: map[string]PaintQuartile{}, LCPURLs: pl.lcpURLs, Absent: pl.absent}
	for i, name := range probe.PaintMetrics {
		s.Metrics[name] = quartileOf(pl.values[i])
	}
	return s
}

func quartileOf(xs []float64) PaintQuartile {
	q := PaintQuartile{N: len(xs), Values: append([]float64{}, xs...)}
	if len(xs) > 0 {
		q.Median = num(stats.Median(xs))
		q.P25, q.P75 = num(stats.Quantile(xs, 0.25)), num(stats.Quantile(xs, 0.75))
	}
	return q
}

// paintCSVColumns are conditions.csv's paint columns: each metric's
// median, empty when no load measured it.
func paintCSVColumns() []string {
	out := make([]string, len(probe.PaintMetrics))
	for i, name := range probe.PaintMetrics {
		out[i] = strings.TrimSuffix(name, "_ms") + "_median_ms"
	}
	return out
}

func (pl *PaintLoads) csvCells() []string {
	out := make([]string, len(probe.PaintMetrics))
	for i := range probe.PaintMetrics {
		if len(pl.values[i]) > 0 {
			out[i] = fmt.Sprint(stats.Median(pl.values[i]))
		}
	}
	return out
}

// print writes the paint metrics' line of `load`'s summary.
func (s *PaintSummary) print(w io.Writer) {
	if s == nil {
		return
	}
	names := map[string]string{"fcp_ms": "FCP", "lcp_ms": "LCP", "speed_index_ms": "Speed Index"}
	var parts []string
	for _, name := range probe.PaintMetrics {
		q := s.Metrics[name]
		if q.Median == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.1f ms", names[name], *q.Median))
	}
	what := "paint"
	if s.Estimated == s.Loads {
		what = "paint, the loader's estimates"
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  %s (medians over the loads that measured each): %s\n", what, strings.Join(parts, ", "))
	}
	if len(s.LCPURLs) > 0 {
		fmt.Fprintf(w, "  LCP element: %s\n", countedKeys(s.LCPURLs))
	}
	if len(s.Absent) > 0 {
		fmt.Fprintf(w, "  paint metrics absent: %s\n", countedKeys(s.Absent))
	}
}

// countedKeys lists m's keys, most loads first, with their loads.
func countedKeys(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, m[k])
	}
	return strings.Join(parts, "; ")
}
