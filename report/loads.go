package report

import (
	"cmp"
	"fmt"
	"io"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// LoadSummary is what `spdylab load --json` prints per protocol.
type LoadSummary struct {
	Page              string          `json:"page"`
	Proto             string          `json:"proto"`
	Runs              int             `json:"runs"`
	Failed            int             `json:"failed"`
	PLTMedianMs       float64         `json:"plt_median_ms"`
	PLTP25Ms          float64         `json:"plt_p25_ms"`
	PLTP75Ms          float64         `json:"plt_p75_ms"`
	ToWMedianMs       float64         `json:"tow_median_ms"`
	ToWP25Ms          float64         `json:"tow_p25_ms"`
	ToWP75Ms          float64         `json:"tow_p75_ms"`
	PhasesMedian      probe.Phases    `json:"phases_median_ms"` // median over loads of each phase summed over the load's entries
	Resources         int             `json:"resources"`        // of the last successful load
	Pushed            float64         `json:"pushed_median"`
	Connections       float64         `json:"connections_median"`
	Retransmits       float64         `json:"client_retransmits_median"` // segments the client resent (its TCP_INFO)
	ServerRetransmits float64         `json:"server_retransmits_median"` // segments the servers resent (theirs): the downlink's loss recovery
	QueueDrops        float64         `json:"queue_drops_median"`        // both directions
	TLS               TLSStats        `json:"tls_handshakes"`            // handshakes and their round trips per load (medians)
	PLTms             []float64       `json:"plt_ms"`
	ToWms             []float64       `json:"tow_ms"`
	Errors            []string        `json:"errors,omitempty"`
	Condition         probe.Condition `json:"condition"`
	Ignored           []string        `json:"ignored,omitempty"` // settings of the condition Proto ignores (probe.IgnoredBy)
	// Adaptive is each successful load's Result.Adaptive, in run order:
	// what the servers' adaptive mechanisms did, or that they found no
	// signal and the static setting held.
	Adaptive  []string         `json:"adaptive,omitempty"`
	LinkCheck *probe.LinkCheck `json:"link_check,omitempty"` // before the first load (emulated links only)
	SCTP      *SCTPLoads       `json:"sctp,omitempty"`       // spdy/3.1+sctp loads only (sctp.go)
	// CritPath is the median over loads of each critical-path category
	// (probe.Breakdown; why.go); absent without breakdowns.
	CritPath map[string]float64 `json:"critical_path_median_ms,omitempty"`
	// Retries is how many requests the successful loads sent again after
	// the server did not process them (REFUSED_STREAM, GOAWAY), together.
	Retries int `json:"retries,omitempty"`
	// Paint are the loads' paint metrics (paint.go); absent without any.
	Paint *PaintSummary `json:"paint,omitempty"`
	// Against is the gain against the baseline protocol (CompareWith);
	// absent for the baseline itself and with fewer than 2 loads a side.
	Against *LoadGain `json:"against_baseline,omitempty"`
	// Metric is what Against's gain and the critical path are of
	// (SummarizeLoadsWith; "" = PLT), and MetricMs its values over the
	// successful loads that have it, when it is not PLT.
	Metric   string    `json:"metric,omitempty"`
	MetricMs []float64 `json:"metric_ms,omitempty"`
	// cp are the loads' critical paths, for the answer (LoadAnswer), and
	// vals the chosen metric's values (PLT's by default).
	cp     CritPath
	vals   []float64
	metric probe.Metric
}

// LoadJudge is what `spdylab load --metric` judges its loads on: the
// metric (the zero value is PLT) and the page's manifest, from which a
// paint metric's critical path (the chain that ends at the paint's
// resource) is computed; without it a paint metric has no critical path.
type LoadJudge struct {
	Metric   probe.Metric
	Manifest *page.Manifest
}

// LoadGain is one protocol's gains against the baseline protocol's loads
// of the same page, with their 95% intervals (as the report's, see
// IntervalNote); null bounds without an interval.
type LoadGain struct {
	Baseline   string        `json:"baseline"`
	Metric     string        `json:"metric,omitempty"` // what Gain is of ("" = PLT)
	Gain       *float64      `json:"gain"`             // median baseline / median of the metric
	GainBounds               // as in conditions.json
	plt, tow   stats.RatioCI // plt: the gain in the chosen metric
	title      string        // the metric's title
}

// LoadBaseline is the protocol `spdylab load` compares the others with:
// HTTPS, the lab's baseline, when it is loaded, else the first one given.
func LoadBaseline(protos []string) string {
	for _, p := range protos {
		if p == probe.ProtoHTTPS {
			return p
		}
	}
	if len(protos) == 0 {
		return ""
	}
	return protos[0]
}

// CompareWith sets s.Against from base's loads, when s is another protocol
// and both have at least 2 successful loads: one load a side says nothing
// about the noise.
func (s *LoadSummary) CompareWith(base LoadSummary) {
	if s.Proto == base.Proto || len(s.vals) < 2 || len(base.vals) < 2 {
		return
	}
	gain, tow := stats.MedianRatio(base.vals, s.vals), stats.MedianRatio(base.ToWms, s.ToWms)
	s.Against = &LoadGain{Baseline: base.Proto, Gain: num(gain.Ratio), GainBounds: gainBounds(gain, tow), plt: gain, tow: tow,
		Metric: s.Metric, title: s.metricTitle()}
}

// metricTitle is the chosen metric as the summary names it.
func (s *LoadSummary) metricTitle() string {
	if s.metric.Name == "" {
		return "PLT"
	}
	return s.metric.Title
}

func (g *LoadGain) baseline() string {
	if g == nil {
		return ""
	}
	return g.Baseline
}

// print writes the gains as lines of the summary.
func (g *LoadGain) print(w io.Writer) {
	if g == nil {
		return
	}
	line := func(what string, r stats.RatioCI, sig Significance) {
		verdict := string(sig)
		if sig == TooFewLoads {
			verdict = fmt.Sprintf("too few loads for an interval: %d a side needed", stats.MinIntervalN)
		}
		fmt.Fprintf(w, "  %s gain vs %s: %s (%s)\n", what, g.Baseline, withInterval(r.Ratio, r.Lo, r.Hi, r.TooFew, 2, 1), verdict)
	}
	line(cmp.Or(g.title, "PLT"), g.plt, g.Significance)
	if g.title != "ToW" {
		line("ToW", g.tow, g.ToWSignificance)
	}
}

// SummarizeLoads summarises one protocol's loads of one page for `spdylab
// load`: the same statistics (internal/stats) as the report's conditions.
func SummarizeLoads(name, proto string, cond probe.Condition, rs []probe.Result) LoadSummary {
	return SummarizeLoadsWith(name, proto, cond, rs, LoadJudge{})
}

// SummarizeLoadsWith is SummarizeLoads judged on j's metric: the gain
// against the baseline (CompareWith), the critical path and the answer
// are the metric's.
func SummarizeLoadsWith(name, proto string, cond probe.Condition, rs []probe.Result, j LoadJudge) LoadSummary {
	s := summarizeLoads(name, proto, cond, rs)
	s.metric = j.Metric
	if j.Metric.Name == "" || j.Metric.Name == probe.MetricPLT {
		return s
	}
	s.Metric, s.vals, s.MetricMs = j.Metric.Name, nil, []float64{}
	var cp CritPath
	for i := range rs {
		v, ok := j.Metric.Of(&rs[i])
		if !ok {
			continue
		}
		s.vals = append(s.vals, v)
		if j.Metric.IsPaint() {
			b, _ := explainLoad(&rs[i], j.Manifest, j.Metric.Name)
			cp.add(b)
		} else {
			cp.add(rs[i].Breakdown)
		}
	}
	s.MetricMs = s.vals
	s.CritPath, s.cp = cp.Medians(), cp
	return s
}

func summarizeLoads(name, proto string, cond probe.Condition, rs []probe.Result) LoadSummary {
	cond.Proto = proto
	s := LoadSummary{Page: name, Proto: proto, Runs: len(rs), Condition: cond, Ignored: probe.IgnoredBy(cond, proto), PLTms: []float64{}, ToWms: []float64{}}
	var ph [7][]float64
	var pushed, conns, retrans, serverRetrans, drops []float64
	var tls []probe.TLSHandshakes
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Failed {
			s.Failed++
			if !seen[r.Error] {
				seen[r.Error] = true
				s.Errors = append(s.Errors, r.Error)
			}
			continue
		}
		s.PLTms = append(s.PLTms, r.PLTms)
		s.ToWms = append(s.ToWms, r.ToWms)
		if r.Adaptive != "" {
			s.Adaptive = append(s.Adaptive, r.Adaptive)
		}
		p := r.Phases
		for i, v := range []float64{p.Blocked, p.DNS, p.Connect, p.SSL, p.Send, p.Wait, p.Receive} {
			ph[i] = append(ph[i], v)
		}
		s.Resources = r.Resources
		pushed = append(pushed, float64(r.Pushed))
		conns = append(conns, float64(r.Connections))
		retrans = append(retrans, float64(probe.SumTCP(r.TCP).Retransmits))
		serverRetrans = append(serverRetrans, float64(r.ServerTCP.Retransmits()))
		drops = append(drops, float64(r.Link.Down.PktsQueueDrop+r.Link.Up.PktsQueueDrop))
		tls = append(tls, r.TLS)
		s.Retries += r.Retries
	}
	s.fillMedians(ph, pushed, conns, retrans, serverRetrans, drops)
	var cp CritPath
	for _, r := range rs {
		if !r.Failed {
			cp.add(r.Breakdown)
		}
	}
	s.CritPath, s.cp = cp.Medians(), cp
	s.vals = s.PLTms
	var paint PaintLoads
	for _, r := range rs {
		if !r.Failed {
			paint.add(r.Paint)
		}
	}
	s.Paint = paint.Summary()
	s.TLS = summarizeTLS(tls)
	s.SCTP = summarizeSCTP(rs)
	return s
}

// fillMedians sets the summary statistics from the successful loads' values
// with the report's definitions (internal/stats). Without a successful load
// they stay 0: --json output cannot carry NaN.
func (s *LoadSummary) fillMedians(ph [7][]float64, pushed, conns, retrans, serverRetrans, drops []float64) {
	if len(s.PLTms) == 0 {
		return
	}
	plt, tow := stats.Summarize(s.PLTms), stats.Summarize(s.ToWms)
	s.PLTMedianMs, s.PLTP25Ms, s.PLTP75Ms = plt.Median, plt.P25, plt.P75
	s.ToWMedianMs, s.ToWP25Ms, s.ToWP75Ms = tow.Median, tow.P25, tow.P75
	s.PhasesMedian = probe.Phases{
		Blocked: stats.Median(ph[0]), DNS: stats.Median(ph[1]), Connect: stats.Median(ph[2]), SSL: stats.Median(ph[3]),
		Send: stats.Median(ph[4]), Wait: stats.Median(ph[5]), Receive: stats.Median(ph[6]),
	}
	s.Pushed, s.Connections = stats.Median(pushed), stats.Median(conns)
	s.Retransmits, s.ServerRetransmits, s.QueueDrops = stats.Median(retrans), stats.Median(serverRetrans), stats.Median(drops)
}

// Print writes the summary as `spdylab load` shows it.
func (s LoadSummary) Print(w io.Writer) {
	fmt.Fprintf(w, "\n%s: %d loads, %d failed\n", s.Proto, s.Runs, s.Failed)
	if s.Failed == s.Runs {
		for _, e := range s.Errors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
		return
	}
	fmt.Fprintf(w, "  %-4s %10s %10s %10s\n", "", "p25 ms", "median ms", "p75 ms")
	fmt.Fprintf(w, "  %-4s %10.1f %10.1f %10.1f\n", "PLT", s.PLTP25Ms, s.PLTMedianMs, s.PLTP75Ms)
	fmt.Fprintf(w, "  %-4s %10.1f %10.1f %10.1f\n", "ToW", s.ToWP25Ms, s.ToWMedianMs, s.ToWP75Ms)
	p := s.PhasesMedian
	fmt.Fprintf(w, "  phases (median over loads of the sum over requests, ms):\n")
	fmt.Fprintf(w, "  %9s %9s %9s %9s %9s %9s %9s\n", "blocked", "dns", "connect", "ssl", "send", "wait", "receive")
	fmt.Fprintf(w, "  %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", p.Blocked, p.DNS, p.Connect, p.SSL, p.Send, p.Wait, p.Receive)
	fmt.Fprintf(w, "  resources %d, pushed %.0f, connections %.0f, retransmits client %.0f / server %.0f, link queue drops %.0f (medians)\n",
		s.Resources, s.Pushed, s.Connections, s.Retransmits, s.ServerRetransmits, s.QueueDrops)
	if s.TLS.Full+s.TLS.Resumed > 0 {
		fmt.Fprintf(w, "  TLS round trips %s per load (medians; handshakes only, TCP's not counted)\n", s.TLS)
	}
	printCritPath(w, s.CritPath)
	s.Paint.print(w)
	if s.Retries > 0 {
		fmt.Fprintf(w, "  retries %d: requests sent again after the server refused them (REFUSED_STREAM, GOAWAY), all loads together\n", s.Retries)
	}
	for i, a := range s.Adaptive {
		fmt.Fprintf(w, "  load %d: %s\n", i+1, a)
	}
	s.SCTP.print(w)
	s.Against.print(w)
	for _, e := range s.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

// RunLine is the line `spdylab load` prints after each successful load
// (run is 0-based). A load whose connections, the client's or the
// servers', took retransmission timeouts says how many, how long TCP spent
// recovering from them and what the link dropped: a load seconds slower
// than its siblings is nearly always timeouts, and timeouts without link
// drops to match point at packets lost outside the emulator
// (BENCHMARKS.md "tiny-queue stalls").
func RunLine(r probe.Result, run, runs int) string {
	line := fmt.Sprintf("run %d/%d %-8s PLT %8.1f ms  ToW %8.1f ms  conns %d", run+1, runs, r.Condition.Proto, r.PLTms, r.ToWms, r.Connections)
	rtos, rtoMs := timeouts(r)
	if rtos == 0 {
		return line
	}
	l := r.Link
	drops := l.Down.PktsQueueDrop + l.Up.PktsQueueDrop + l.Down.PktsLost + l.Up.PktsLost
	return line + fmt.Sprintf("  timeouts %d (%.1f s recovering), link drops %d", rtos, float64(rtoMs)/1000, drops)
}

// timeouts sums the retransmission timeouts of a load's connections on
// both sides and the time spent recovering from them (TCP_INFO, Linux 6.7+).
func timeouts(r probe.Result) (n, ms uint64) {
	c := probe.SumTCP(r.TCP)
	n, ms = c.RTOs, c.RTOTimems
	if r.ServerTCP != nil {
		n += r.ServerTCP.Sum.RTOs
		ms += r.ServerTCP.Sum.RTOTimems
	}
	return n, ms
}
