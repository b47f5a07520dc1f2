package report

// The machine-readable exports: conditions.csv and conditions.json.

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// conditionRow is one condition in conditions.json (and, flattened, CSV).
type conditionRow struct {
	Hash       string            `json:"hash"`
	Values     map[string]string `json:"values"`
	Ignored    []string          `json:"ignored,omitempty"` // factors its protocol ignores (probe.IgnoredBy)
	Label      string            `json:"variant"`
	Loads      int               `json:"loads"`
	Successful int               `json:"successful"`
	Failed     int               `json:"failed"`
	TooFew     bool              `json:"too_few_loads"`
	PLTMedian  *float64          `json:"plt_median_ms"`
	PLTP25     *float64          `json:"plt_p25_ms"`
	PLTP75     *float64          `json:"plt_p75_ms"`
	ToWMedian  *float64          `json:"tow_median_ms"`
	ToWP25     *float64          `json:"tow_p25_ms"`
	ToWP75     *float64          `json:"tow_p75_ms"`
	Baseline   string            `json:"baseline_hash,omitempty"`
	Gain       *float64          `json:"gain"` // in Metric
	// Metric is what gain and its interval are of (probe.Metrics), and
	// MetricMedian its median over the MetricLoads loads that have it;
	// MetricMissing the successful loads without it (absent, not zero).
	Metric        string    `json:"metric"`
	MetricMedian  *float64  `json:"metric_median_ms"`
	MetricLoads   int       `json:"metric_loads"`
	MetricMissing int       `json:"metric_missing,omitempty"`
	MetricRefused string    `json:"metric_refused,omitempty"`
	ToWReduction  *float64  `json:"tow_reduction_pct"`
	Bound         *float64  `json:"lower_bound_ms"`
	PLTOverBound  *float64  `json:"plt_over_bound"`
	Gateway       Gateway   `json:"gateway_per_load"`
	TLS           *TLSStats `json:"tls_handshakes,omitempty"` // medians per load; absent without a successful load
	Errors        []string  `json:"errors,omitempty"`
	CheckProblem  string    `json:"link_check_problem,omitempty"`
	MedianProbeID int64     `json:"median_probe_id,omitempty"`
	Retries       int       `json:"retries"` // requests the successful loads sent again (Condition.Retries)
	GainBounds              // the gains' 95% intervals (intervals.go), as fields of the row
	// CritPath is the median over loads of each critical-path category
	// (probe.Categories; why.go); absent without breakdowns.
	CritPath map[string]float64 `json:"critical_path_median_ms,omitempty"`
	// Paint are the paint metrics (paint.go); absent without any.
	Paint *PaintSummary `json:"paint,omitempty"`
}

func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func conditionsJSON(a *Analysis) []conditionRow {
	rows := make([]conditionRow, 0, len(a.Conds))
	for _, c := range a.Conds {
		var tls *TLSStats
		if c.PLT.N > 0 {
			tls = &c.Handshakes
		}
		rows = append(rows, conditionRow{TLS: tls, GainBounds: gainBounds(c.GainCI, c.ToWGainCI),
			Hash: c.Hash, Values: c.Values, Ignored: probe.IgnoredBy(c.Condition, c.Proto), Label: c.Label, Loads: c.Loads, Successful: c.PLT.N, Failed: c.Failed, TooFew: c.TooFew,
			PLTMedian: num(c.PLT.Median), PLTP25: num(c.PLT.P25), PLTP75: num(c.PLT.P75),
			ToWMedian: num(c.ToW.Median), ToWP25: num(c.ToW.P25), ToWP75: num(c.ToW.P75),
			Baseline: c.BaseHash, Gain: num(c.Gain), ToWReduction: num(c.ToWRedPct), Bound: num(c.BoundMs), PLTOverBound: num(c.PLTOverBound),
			Gateway: c.Gateway, Errors: c.Errors, CheckProblem: c.CheckProblem, MedianProbeID: c.MedianProbe,
			CritPath: c.CritPath.Medians(),
			Metric:   a.Metric.Name, MetricMedian: num(c.Value.Median), MetricLoads: c.Value.N, MetricMissing: c.Missing, MetricRefused: c.Refused,
			Retries: c.Retries,
			Paint:   c.Paint.Summary(),
		})
	}
	return rows
}

// conditionFactors are the factors every condition has a value for (a
// study's down/up are folded into rate).
func conditionFactors() []string {
	var out []string
	for _, f := range spec.FactorNames() {
		if f != "down" && f != "up" {
			out = append(out, f)
		}
	}
	return out
}

func writeCSV(w *bytes.Buffer, a *Analysis) error {
	cw := csv.NewWriter(w)
	head := append([]string{"hash"}, conditionFactors()...)
	head = append(head, "variant", "loads", "successful", "failed", "too_few_loads",
		"plt_median_ms", "plt_p25_ms", "plt_p75_ms", "tow_median_ms", "tow_p25_ms", "tow_p75_ms",
		"gain", "tow_reduction_pct", "lower_bound_ms", "plt_over_bound",
		"queue_drops", "random_loss", "qdelay_p50_ms", "qdelay_p95_ms", "retransmits", "server_retransmits", "pkts_sent", "connections", "emulator_late_p99_ms",
		"tls_round_trips_median", "tls_full_median", "tls_resumed_median", "tls_early_data_median", "median_probe_id",
		// New columns go last: readers that index columns keep working.
		"gain_lo", "gain_hi", "significance", "tow_gain", "tow_gain_lo", "tow_gain_hi", "tow_reduction_lo_pct", "tow_reduction_hi_pct", "tow_significance",
		"retries")
	for _, cat := range probe.Categories {
		head = append(head, "cp_"+cat+"_ms") // critical-path medians (why.go); empty without breakdowns
	}
	head = append(head, paintCSVColumns()...) // empty where no load measured them
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	for _, c := range a.Conds {
		rec := []string{c.Hash}
		for _, n := range conditionFactors() {
			rec = append(rec, c.Values[n])
		}
		g := c.Gateway
		rec = append(rec, c.Label, strconv.Itoa(c.Loads), strconv.Itoa(c.PLT.N), strconv.Itoa(c.Failed), strconv.FormatBool(c.TooFew),
			f(c.PLT.Median), f(c.PLT.P25), f(c.PLT.P75), f(c.ToW.Median), f(c.ToW.P25), f(c.ToW.P75),
			f(c.Gain), f(c.ToWRedPct), f(c.BoundMs), f(c.PLTOverBound),
			f(g.QueueDrops), f(g.RandomLoss), f(g.QDelayP50ms), f(g.QDelayP95ms), f(g.Retransmits), f(g.ServerRetransmits), f(g.PktsSent), f(g.Connections), f(g.LateP99ms))
		tls := c.Handshakes
		if c.PLT.N == 0 {
			tls = TLSStats{math.NaN(), math.NaN(), math.NaN(), math.NaN()} // empty cells
		}
		rec = append(rec, f(tls.RoundTrips), f(tls.Full), f(tls.Resumed), f(tls.EarlyData), strconv.FormatInt(c.MedianProbe, 10))
		redLo, redHi := c.ToWRedInterval()
		rec = append(rec, f(c.GainCI.Lo), f(c.GainCI.Hi), string(c.Significance),
			f(c.ToWGainCI.Ratio), f(c.ToWGainCI.Lo), f(c.ToWGainCI.Hi), f(redLo), f(redHi), string(c.ToWSignificance))
		rec = append(rec, strconv.Itoa(c.Retries))
		cp := c.CritPath.Medians()
		for _, cat := range probe.Categories {
			v, ok := cp[cat]
			if !ok && cp != nil {
				v, ok = 0, true
			}
			if !ok {
				v = math.NaN()
			}
			rec = append(rec, f(v))
		}
		rec = append(rec, c.Paint.csvCells()...)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ---- HTML ----
