package store

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// paintColumns are a load's fcp_ms, lcp_ms, speed_index_ms and lcp_url
// columns: NULL where the load measured nothing (failed, the loader, a
// page that never painted), so that absent never reads as 0.
func paintColumns(r probe.Result) [4]any {
	var out [4]any
	if r.Failed || r.Paint == nil {
		return out
	}
	for i, name := range probe.PaintMetrics {
		if v := r.Paint.Metric(name); v != nil {
			out[i] = *v
		}
	}
	if r.Paint.LCPURL != "" {
		out[3] = r.Paint.LCPURL
	}
	return out
}

// LoadMetrics are the metrics a load stores in a column of its own:
// PLT, ToW and the paint metrics.
var LoadMetrics = append([]string{"plt_ms", "tow_ms"}, probe.PaintMetrics...)

// Metric returns one metric (a LoadMetrics column) of the given
// conditions' successful loads, one per run (the first success, as PLTs),
// by condition hash, in the order they were stored. A load that did not
// measure it (NULL: an older load, another client, a page that never
// painted) is left out, not counted as 0; missing counts those per
// condition.
func (st *Store) Metric(metric string, hashes []string) (values map[string][]float64, missing map[string]int, err error) {
	if !slices.Contains(LoadMetrics, metric) {
		return nil, nil, fmt.Errorf("store: unknown metric %q (want %s)", metric, strings.Join(LoadMetrics, ", "))
	}
	values, missing = map[string][]float64{}, map[string]int{}
	if len(hashes) == 0 {
		return values, missing, nil
	}
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	// metric is one of LoadMetrics' fixed names, never user text.
	q := `SELECT cond_hash, run, ` + metric + ` FROM probes WHERE failed = 0 AND cond_hash IN (?` +
		strings.Repeat(",?", len(hashes)-1) + `) ORDER BY id`
	rows, err := st.db.Query(q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	seen := map[ProbeKey]bool{}
	for rows.Next() {
		var k ProbeKey
		var v *float64
		if err := rows.Scan(&k.CondHash, &k.Run, &v); err != nil {
			return nil, nil, err
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		if v == nil {
			missing[k.CondHash]++
			continue
		}
		values[k.CondHash] = append(values[k.CondHash], *v)
	}
	return values, missing, rows.Err()
}
