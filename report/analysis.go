// Package report turns a study's stored probes into numbers and a
// self-contained HTML report: per-condition statistics, gains against the
// study's baseline (CableLabs' definition), Study 1 gain tables, Study 2
// reduction plots, lower bounds, phase breakdowns, CDFs, waterfalls and
// gateway counters.
package report

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// Stats summarises the successful loads of one metric (internal/stats
// owns the definition, shared with `spdylab load`).
type Stats = stats.Summary

// Gateway are per-load means of the bottleneck and TCP counters.
type Gateway struct {
	QueueDrops  float64 // packets dropped by the droptail queue, both directions
	RandomLoss  float64 // packets dropped by random loss, both directions
	QDelayP50ms float64 // downlink queueing delay, median over the load
	QDelayP95ms float64
	Retransmits float64 // TCP segments the client retransmitted, all connections
	// ServerRetransmits: TCP segments the servers retransmitted (their
	// TCP_INFO): the loss recovery of the downloads.
	ServerRetransmits float64
	PktsSent          float64 // packets offered to the bottleneck, both directions
	Connections       float64
	// The emulator's own timing error: per load, the 99th percentile of
	// how late it released packets (the worse direction).
	LateP99ms float64
}

// LateLimitMs is the emulator lateness (99th percentile over a load) above
// which a load's link was not the configured one (stats.LateLimitMs).
const LateLimitMs = stats.LateLimitMs

// Condition is the analysis of one condition.
type Condition struct {
	spec.Cond
	Label    string // values of the baseline factors, e.g. "spdy/3.1 iw10"
	Attempts int    // stored attempts
	Loads    int    // keys (runs) with any attempt
	Failed   int    // runs without a successful attempt
	Errors   []string
	PLT, ToW Stats
	// Value is the chosen metric's statistics (Analysis.Metric; PLT's by
	// default) over the loads that have it: gains, intervals and verdicts
	// are computed on it. Missing counts the successful loads
	// without it (a paint the load did not measure, a store from before
	// paint metrics); Refused says why the condition's client cannot give
	// it at all.
	Value   Stats
	Missing int
	Refused string
	TooFew  bool // fewer successful loads than MinLoads
	// BaseHash is the baseline condition for this one ("" = none, or it is
	// itself the baseline).
	BaseHash   string
	IsBaseline bool
	Gain       float64 // median base / median of the chosen metric (Value); NaN when not defined
	ToWRedPct  float64 // 100*(ToW_base - ToW)/ToW_base; NaN when not defined
	// GainCI and ToWGainCI are the gains in the chosen metric and ToW
	// (median base / median) with their 95% intervals, and Significance and
	// ToWSignificance what those intervals say (intervals.go).
	GainCI, ToWGainCI             stats.RatioCI
	Significance, ToWSignificance Significance
	BoundMs                       float64 // lower bound on PLT (see LowerBound); NaN without a manifest
	PLTOverBound                  float64
	Phases                        probe.Phases // mean per load (summed over entries)
	Gateway                       Gateway
	Handshakes                    TLSStats // TLS handshakes per load (medians)
	Resources                     int      // resources in the page
	CheckProblem                  string
	// CritPath are the loads' critical paths by category (why.go).
	CritPath CritPath
	// Paint are the loads' paint metrics (paint.go).
	Paint PaintLoads
	// MedianProbe is the stored probe id of the successful load closest to
	// the median PLT (for waterfalls).
	MedianProbe int64
	// Retries is how many requests the successful loads sent again after
	// the server did not process them (REFUSED_STREAM, GOAWAY), together.
	Retries int
}

// Analysis is a whole study's results.
type Analysis struct {
	Study *spec.Study
	// Metric is what gains, intervals, verdicts, CDFs and critical paths
	// are computed on (Options.Metric, probe.Metrics).
	Metric probe.Metric
	// MetricMissing counts the successful loads without the metric, and
	// MetricEstimated those whose value is the loader's estimate.
	MetricMissing, MetricEstimated int
	// Refused is, per client, why it cannot give the metric; its
	// conditions have no value.
	Refused map[string]string
	// PathsUnknown counts, per reason, the loads with the metric whose
	// critical path could not be ended at it (a paint's resource unknown).
	PathsUnknown map[string]int
	Meta         store.Meta
	Sessions     []store.Provenance
	Conds        []*Condition
	ByHash       map[string]*Condition
	Labels       []string // variant labels in study order, baseline first
	BaseLabel    string
	Probes       []store.Probe // HAR not loaded
	Manifests    map[string]*page.Manifest
	MinLoads     int
	Stored       int // stored attempts
	Expected     int // probes the study asks for
	// LateLoads are the successful loads that ran short of CPU
	// (stats.Late): LinkLateLoads of them with an emulator lateness p99
	// over LateLimitMs, WaitLoads with an endpoint CPU wait p99 over
	// stats.WaitLimitMs (a load may be both); and the worst p99 of each
	// over all loads.
	LateLoads, LinkLateLoads, WaitLoads int
	LateWorstMs, WaitWorstMs            float64
	// LateShift is how far those loads' PLTs lie from the on-time loads'
	// of their conditions (stats.LateShift): near zero when the
	// emulator's lateness did not move the results (NaN without a late
	// load beside two on-time loads of its condition), with its standard
	// error and the pairs it rests on.
	LateShift stats.Shift
	OKLoads   int // successful loads counted in the statistics
	// Values are each condition's values of the chosen metric, one per
	// run (its first successful attempt that has the metric): what its
	// median and gains are computed on, for the fidelity section and
	// findings' pooled gains.
	Values map[string][]float64
	// FidelityCells and FidelitySums are Fidelity's result (fidelity.go),
	// and Renderer the renderer costs measured from the HARs of a study
	// with both clients, per client (renderer.go).
	FidelityCells []FidelityCell
	FidelitySums  []FidelitySummary
	Renderer      []RendererMeasure
	// Walks are the study's reconciliation walks, per cell (walks.go).
	Walks []WalkTable
	// Recomputed counts the breakdowns Options.Recompute computed again
	// (nil without it).
	Recomputed *Recomputed
}

// LateJudgeMin is how many late-emulator loads (paired with on-time loads
// of their conditions) it takes to judge from LateShift whether the
// lateness moved the results, and LateShiftLimit how far (in %) they may
// lie from the on-time loads, beyond twice the standard error, before the
// report says it did (stats.Shift.Harmful).
const (
	LateJudgeMin   = 10
	LateShiftLimit = stats.LateShiftLimit
)

// MinLoads is the number of successful loads a condition needs for its
// median to be reported without a warning: half the runs, at least one.
func MinLoads(runs int) int { return max(1, (runs+1)/2) }

// Options change what Analyze computes.
type Options struct {
	// Recompute computes every load's critical-path breakdown again from
	// what the store holds, with today's rules, instead of reading the
	// stored one (Analysis.Recomputed counts them).
	Recompute bool
	// Metric is the probe.Metrics name gains and critical paths are
	// computed on; "" is the study's own (its file's metric key), else PLT.
	Metric string
	// Baseline, when set, replaces the study's baseline (factor -> value)
	// for this analysis: the same loads judged against another of the
	// study's conditions, e.g. HTTPS given the variant's transport knobs
	// (setBaseline). The store is not changed.
	Baseline map[string]string
}

// Analyze reads a store and computes everything the report shows.
func Analyze(st *store.Store) (*Analysis, error) { return AnalyzeWith(st, Options{}) }

// AnalyzeWith is Analyze with options.
func AnalyzeWith(st *store.Store, opt Options) (*Analysis, error) {
	a, err := readStore(st)
	if err != nil {
		return nil, err
	}
	if a.Metric, err = probe.LookupMetric(cmp.Or(opt.Metric, a.Study.Metric)); err != nil {
		return nil, err
	}
	if err := a.setBaseline(opt.Baseline); err != nil {
		return nil, err
	}
	a.indexConditions()
	if err := a.refuseClients(); err != nil {
		return nil, err
	}
	if err := explainStored(st, a, opt.Recompute); err != nil {
		return nil, fmt.Errorf("explaining stored loads: %w", err)
	}
	samples, late := a.collectSamples()
	a.summarizeSamples(samples)
	a.Values = map[string][]float64{}
	for h, sm := range samples {
		a.Values[h] = sm.val
	}
	a.judgeLateLoads(late)
	twins := a.Study.BaselineTwins()
	for i, c := range a.Conds {
		var base *Condition
		if j := twins[i]; j >= 0 {
			base = a.Conds[j]
		}
		a.boundAndGain(c, base)
	}
	a.gainIntervals(samples)
	a.Walks = Walks(a)
	a.FidelityCells, a.FidelitySums = Fidelity(a)
	if a.Renderer, err = measureRenderer(st, a, a.FidelityCells); err != nil {
		return nil, fmt.Errorf("measuring renderer costs: %w", err)
	}
	return a, nil
}

// readStore loads what the analysis reads from the store.
func readStore(st *store.Store) (*Analysis, error) {
	s, err := st.Study()
	if err != nil {
		return nil, err
	}
	meta, err := st.Meta()
	if err != nil {
		return nil, err
	}
	sess, err := st.Sessions()
	if err != nil {
		return nil, err
	}
	probes, err := st.Probes(false)
	if err != nil {
		return nil, err
	}
	mans, err := st.Manifests()
	if err != nil {
		return nil, err
	}
	a := &Analysis{Study: s, Meta: meta, Sessions: sess, Probes: probes, ByHash: map[string]*Condition{},
		Manifests: map[string]*page.Manifest{}, MinLoads: MinLoads(s.Runs), Stored: len(probes), Expected: len(s.Conditions) * s.Runs}
	for k, m := range mans {
		if len(m.Resources) > 0 {
			a.Manifests[k] = m
		}
	}
	return a, nil
}

// indexConditions creates the per-condition records and the variant
// labels (study order, baseline first). a.Conds[i] is the study's
// condition i, so spec.Study.BaselineTwins indexes both.
func (a *Analysis) indexConditions() {
	s := a.Study
	for _, c := range s.Conditions {
		ac := &Condition{Cond: c, Label: label(c.Values, s.Baseline), Gain: math.NaN(), ToWRedPct: math.NaN(), BoundMs: math.NaN(), PLTOverBound: math.NaN(),
			GainCI: noRatio, ToWGainCI: noRatio}
		a.Conds = append(a.Conds, ac)
		a.ByHash[c.Hash] = ac
	}
	a.BaseLabel = label(s.Baseline, s.Baseline)
	seenLabel := map[string]bool{a.BaseLabel: true}
	a.Labels = []string{a.BaseLabel}
	for _, c := range a.Conds {
		if !seenLabel[c.Label] {
			seenLabel[c.Label] = true
			a.Labels = append(a.Labels, c.Label)
		}
	}
}

// sample is one condition's successful loads: one value per run (its
// successful attempt, if any), with sums of the per-load counters.
type sample struct {
	plt, tow []float64
	val      []float64 // the chosen metric, over the loads that have it
	ids      []int64
	runsOK   map[int]bool
	runsAny  map[int]bool
	phases   probe.Phases
	gw       Gateway
	tls      []probe.TLSHandshakes
	errs     map[string]int
	retries  int
}

// lateEvidence is the PLTs of the successful loads whose emulator ran
// late, and of the on-time ones per condition: their reference.
type lateEvidence struct {
	late   []stats.CondSample
	onTime map[string][]float64
}

// collectSamples sorts the stored probes into per-condition samples.
func (a *Analysis) collectSamples() (map[string]*sample, lateEvidence) {
	samples := map[string]*sample{}
	late := lateEvidence{onTime: map[string][]float64{}}
	for _, p := range a.Probes {
		c := a.ByHash[p.CondHash]
		if c == nil {
			continue // a condition the study no longer has; the fingerprint check makes this rare
		}
		sm := samples[p.CondHash]
		if sm == nil {
			sm = &sample{runsOK: map[int]bool{}, runsAny: map[int]bool{}, errs: map[string]int{}}
			samples[p.CondHash] = sm
		}
		c.Attempts++
		sm.runsAny[p.Run] = true
		if p.Check.Problem != "" {
			c.CheckProblem = p.Check.Problem
		}
		r := p.Result
		if r.Failed {
			sm.errs[r.Error]++
			continue
		}
		if sm.runsOK[p.Run] {
			continue
		}
		sm.runsOK[p.Run] = true
		c.CritPath.add(r.Breakdown)
		c.Paint.add(r.Paint)
		a.addValue(c, sm, &r)
		sm.add(p.ID, r)
		a.countLate(&r, p.CondHash, &late)
		c.Resources = max(c.Resources, r.Resources)
	}
	return samples, late
}

// countLate counts one successful load and files its PLT as late (short
// of CPU, stats.Late) or on time for its condition.
func (a *Analysis) countLate(r *probe.Result, cond string, ev *lateEvidence) {
	a.OKLoads++
	linkLate, wait := r.LinkLateP99ms(), r.EndpointWaitP99ms()
	a.LateWorstMs = max(a.LateWorstMs, linkLate)
	a.WaitWorstMs = max(a.WaitWorstMs, wait)
	if !stats.Late(linkLate, wait) {
		ev.onTime[cond] = append(ev.onTime[cond], r.PLTms)
		return
	}
	ev.late = append(ev.late, stats.CondSample{Cond: cond, Value: r.PLTms})
	if linkLate > LateLimitMs {
		a.LinkLateLoads++
	}
	if wait > stats.WaitLimitMs {
		a.WaitLoads++
	}
}

// add counts one successful load.
func (sm *sample) add(id int64, r probe.Result) {
	sm.plt = append(sm.plt, r.PLTms)
	sm.tow = append(sm.tow, r.ToWms)
	sm.ids = append(sm.ids, id)
	sm.tls = append(sm.tls, r.TLS)
	sm.retries += r.Retries
	har.AddPhases(&sm.phases, r.Phases)
	sm.gw.QueueDrops += float64(r.Link.Down.PktsQueueDrop + r.Link.Up.PktsQueueDrop)
	sm.gw.RandomLoss += float64(r.Link.Down.PktsLost + r.Link.Up.PktsLost)
	sm.gw.QDelayP50ms += r.Link.Down.QDelayP50ms
	sm.gw.QDelayP95ms += r.Link.Down.QDelayP95ms
	sm.gw.PktsSent += float64(r.Link.Down.PktsOffered + r.Link.Up.PktsOffered)
	sm.gw.Connections += float64(r.Connections)
	sm.gw.LateP99ms += r.LinkLateP99ms()
	sm.gw.Retransmits += float64(probe.SumTCP(r.TCP).Retransmits)
	sm.gw.ServerRetransmits += float64(r.ServerTCP.Retransmits())
}

// summarizeSamples turns each condition's sample into its statistics.
func (a *Analysis) summarizeSamples(samples map[string]*sample) {
	for h, sm := range samples {
		c := a.ByHash[h]
		c.Loads = len(sm.runsAny)
		c.Failed = len(sm.runsAny) - len(sm.runsOK)
		c.PLT = stats.Summarize(sm.plt)
		c.ToW = stats.Summarize(sm.tow)
		c.Value = stats.Summarize(sm.val)
		c.Handshakes = summarizeTLS(sm.tls)
		c.Retries = sm.retries
		n := float64(len(sm.plt))
		if n > 0 {
			c.Phases = scalePhases(sm.phases, 1/n)
			g := sm.gw
			c.Gateway = Gateway{g.QueueDrops / n, g.RandomLoss / n, g.QDelayP50ms / n, g.QDelayP95ms / n, g.Retransmits / n, g.ServerRetransmits / n, g.PktsSent / n, g.Connections / n, g.LateP99ms / n}
			c.MedianProbe = nearest(sm.plt, sm.ids, c.PLT.Median)
		}
		for e, k := range sm.errs {
			c.Errors = append(c.Errors, fmt.Sprintf("%dx %s", k, e))
		}
		sort.Strings(c.Errors)
	}
}

// judgeLateLoads measures how far the late-emulator loads lie from the
// on-time loads of their conditions.
func (a *Analysis) judgeLateLoads(ev lateEvidence) {
	a.LateLoads = len(ev.late)
	a.LateShift = stats.LateShift(ev.late, ev.onTime)
}

// boundAndGain sets c's lower bound, and its gain and ToW reduction
// against its baseline twin base (spec.Study.BaselineTwins; nil = none).
func (a *Analysis) boundAndGain(c *Condition, base *Condition) {
	c.TooFew = c.PLT.N < a.MinLoads // successful loads; a metric's missing ones are counted apart (Missing)
	if m := a.Manifests[spec.ManifestKey(c.Condition)]; m != nil {
		c.BoundMs = spec.LowerBound(m, c.Condition).Total
		if c.Resources == 0 {
			c.Resources = len(m.Resources)
		}
		if c.PLT.N > 0 {
			c.PLTOverBound = c.PLT.Median / c.BoundMs
		}
	}
	if base == nil {
		return
	}
	if base == c {
		c.IsBaseline = true
		return
	}
	c.BaseHash = base.Hash
	if c.Value.N > 0 && base.Value.N > 0 {
		c.Gain = base.Value.Median / c.Value.Median
	}
	if c.ToW.N > 0 && base.ToW.N > 0 && base.ToW.Median > 0 {
		c.ToWRedPct = 100 * (base.ToW.Median - c.ToW.Median) / base.ToW.Median
	}
}

func nearest(vals []float64, ids []int64, target float64) int64 {
	best, bi := math.Inf(1), 0
	for i, v := range vals {
		if d := math.Abs(v - target); d < best {
			best, bi = d, i
		}
	}
	return ids[bi]
}

func scalePhases(p probe.Phases, f float64) probe.Phases {
	return probe.Phases{Blocked: p.Blocked * f, DNS: p.DNS * f, Connect: p.Connect * f, SSL: p.SSL * f, Send: p.Send * f, Wait: p.Wait * f, Receive: p.Receive * f}
}

// label names a condition's variant: its values of the baseline factors in
// factor order, e.g. "https iw3".
func label(values, baseline map[string]string) string {
	var parts []string
	if _, ok := baseline["protocol"]; ok {
		parts = append(parts, values["protocol"])
	}
	for _, f := range spec.FactorNames() {
		if _, ok := baseline[f]; !ok || f == "protocol" {
			continue
		}
		v := values[f]
		switch f {
		case "iw", "shards", "max_streams", "initial_window":
			v = shortName(f) + v
		default:
			v = f + "=" + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " ")
}

func shortName(f string) string {
	switch f {
	case "max_streams":
		return "streams"
	case "initial_window":
		return "win"
	}
	return f
}
