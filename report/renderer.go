package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// This file measures, from the HARs of a study with both clients, the
// browser's renderer costs that loader.RendererCosts models: how long
// after the document's first byte the first subresource is requested
// (the commit delay) and how far apart requests that waited for each
// other leave on a multiplexed protocol (the dispatch cost). Measured for
// Chromium and for each loader profile side by side, they calibrate the
// loader on the machine that ran the study (factor renderer_costs).

// RendererMeasure is one client's renderer costs over a study's loads.
type RendererMeasure struct {
	Client      string  // "chromium" or "loader <profile>"
	CommitMs    float64 // median over loads
	CommitLoads int
	DispatchMs  float64 // mean over request pairs of multiplexed loads (a browser sends them in batches: the mean is its rate)
	Pairs       int
}

// harTimes are one HAR's request times in ms since its first request:
// when each was queued (startedDateTime), sent and answered (first byte);
// the root document first.
// conns counts the distinct connections they used.
type harTimes struct {
	queued, sent, firstByte []float64
	conns                   int
}

func readHARTimes(doc []byte) (harTimes, error) {
	var d har.Document
	if err := json.Unmarshal(doc, &d); err != nil {
		return harTimes{}, err
	}
	type req struct {
		start time.Time
		e     *har.Entry
	}
	var reqs []req
	conns := map[string]bool{}
	for i := range d.Log.Entries {
		e := &d.Log.Entries[i]
		if strings.HasSuffix(e.Request.URL, "/favicon.ico") || e.Pushed {
			continue // the browser's own request, or no request at all
		}
		start, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			return harTimes{}, fmt.Errorf("entry %d: startedDateTime %q", i, e.StartedDateTime)
		}
		conns[e.Connection] = true
		reqs = append(reqs, req{start, e})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].start.Before(reqs[j].start) })
	out := harTimes{conns: len(conns)}
	for _, r := range reqs {
		tm := r.e.Timings
		q := float64(r.start.Sub(reqs[0].start)) / float64(time.Millisecond)
		s := q + pos(tm.Blocked) + pos(tm.DNS) + pos(tm.Connect)
		out.queued = append(out.queued, q)
		out.sent = append(out.sent, s)
		out.firstByte = append(out.firstByte, s+pos(tm.Send)+pos(tm.Wait))
	}
	return out, nil
}

func pos(v float64) float64 { return max(v, 0) }

// commitMs is how long after the document's first byte the first
// subresource was queued (false without one).
func (h harTimes) commitMs() (float64, bool) {
	if len(h.queued) < 2 {
		return 0, false
	}
	return h.queued[1] - h.firstByte[0], true
}

// dispatchGaps are the intervals between consecutive subresource sends
// where the later request was queued before the earlier one left: the
// two waited for each other, so the gap is the cost of a dispatch.
func (h harTimes) dispatchGaps() []float64 {
	type pair struct{ q, s float64 }
	var subs []pair
	for i := 1; i < len(h.sent); i++ {
		subs = append(subs, pair{h.queued[i], h.sent[i]})
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].s < subs[j].s })
	var gaps []float64
	for i := 1; i < len(subs); i++ {
		if subs[i].q <= subs[i-1].s {
			gaps = append(gaps, subs[i].s-subs[i-1].s)
		}
	}
	return gaps
}

// measureRenderer reads the HARs of the study's successful loads of every
// condition that has a fidelity twin and measures each client's renderer
// costs (none when the study has no browser conditions). In a study that
// declares a calibration set, only its cells are measured: costs fitted
// there are judged on the validation cells.
func measureRenderer(st *store.Store, a *Analysis, cells []FidelityCell) ([]RendererMeasure, error) {
	if len(cells) == 0 {
		return nil, nil
	}
	calibrated := slices.ContainsFunc(cells, func(c FidelityCell) bool { return c.Role == spec.RoleCalibration })
	who := map[string]string{} // condition hash -> client label
	for _, c := range cells {
		if calibrated && c.Role != spec.RoleCalibration {
			continue
		}
		who[c.Browser.Hash] = c.Browser.ClientName()
		who[c.Loader.Hash] = "loader " + c.Profile
	}
	commits := map[string][]float64{}
	gaps := map[string][]float64{}
	for _, p := range a.Probes {
		label, ok := who[p.CondHash]
		if !ok || p.Result.Failed {
			continue
		}
		full, err := st.ProbeByID(p.ID)
		if err != nil {
			return nil, err
		}
		h, err := readHARTimes(full.Result.HAR)
		if err != nil {
			return nil, fmt.Errorf("probe %d: HAR: %w", p.ID, err)
		}
		if c, ok := h.commitMs(); ok {
			commits[label] = append(commits[label], c)
		}
		// One multiplexed connection: no connection and no per-host cap
		// stands between a request and the network but the browser itself.
		if pr, ok := probe.LookupProtocol(a.ByHash[p.CondHash].Proto); ok && pr.Multiplexed && h.conns == 1 {
			gaps[label] = append(gaps[label], h.dispatchGaps()...)
		}
	}
	var out []RendererMeasure
	for label, cs := range commits {
		out = append(out, RendererMeasure{Client: label, CommitMs: stats.Median(cs), CommitLoads: len(cs),
			DispatchMs: stats.Mean(gaps[label]), Pairs: len(gaps[label])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Client < out[j].Client })
	return out, nil
}
