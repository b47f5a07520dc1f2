package report

// The report's figures: sweeps, the streams regression, phase breakdowns
// and waterfalls.

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// numericX maps a factor value to a plot coordinate.
func numericX(f, v string) (float64, bool) {
	switch f {
	case "rtt":
		d, err := time.ParseDuration(v)
		return float64(d) / float64(time.Millisecond), err == nil
	case "rate":
		down, _, _ := strings.Cut(v, "/")
		bps, err := units.ParseRate(down)
		return float64(bps) / 1e6, err == nil && bps > 0
	case "loss":
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		return x, err == nil
	case "iw", "shards", "max_streams", "initial_window":
		x, err := strconv.Atoi(v)
		return float64(x), err == nil
	}
	return 0, false
}

var axisName = map[string]string{
	"rtt": "RTT (ms)", "rate": "down rate (Mbit/s, log)", "loss": "random loss (%)", "iw": "server initcwnd (segments)",
	"shards": "servers (shards)", "max_streams": "SPDY max concurrent streams", "initial_window": "initial stream window (bytes)",
}

// sweepFigures: for every numeric factor the study varies, the % reduction
// in ToW and the median PLT against it along each of its sweeps (sweeps.go),
// one line per page and variant. Plus the streams x RTT heatmap and the
// m-vs-r regression when streams vary.
func sweepFigures(a *Analysis) ([]figure, []table, error) {
	var figs []figure
	var tabs []table
	for _, f := range a.Study.Varied {
		if _, ok := axisName[f]; !ok {
			continue
		}
		if _, isBase := a.Study.Baseline[f]; isBase {
			continue
		}
		fs, err := sweepOf(a, f)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, fs...)
	}
	varied := map[string]bool{}
	for _, v := range a.Study.Varied {
		varied[v] = true
	}
	if varied["max_streams"] {
		if varied["rtt"] {
			tabs = append(tabs, heatmaps(a)...)
		}
		fig, t, err := streamsRegression(a)
		if err != nil {
			return nil, nil, err
		}
		if fig != nil {
			figs = append(figs, *fig)
		}
		tabs = append(tabs, t)
	}
	return figs, tabs, nil
}

// sweepAxis names factor f's x axis; a log axis only pays when the rates
// span a decade or more.
func sweepAxis(a *Analysis, f string) (name string, logX bool) {
	if f == "rate" {
		var xs []float64
		for _, c := range a.Conds {
			if x, ok := numericX(f, c.Values[f]); ok {
				xs = append(xs, x)
			}
		}
		if lo, hi := minMax(xs); len(xs) > 0 && hi >= 10*lo {
			logX = true
		}
	}
	name = axisName[f]
	if f == "rate" && !logX {
		name = "down rate (Mbit/s)"
	}
	return name, logX
}

// sweepOf draws factor f's ToW reduction and PLT figures.
func sweepOf(a *Analysis, f string) ([]figure, error) {
	xName, logX := sweepAxis(a, f)
	var figs []figure
	for _, ch := range sweepCharts(a, f) {
		if len(ch.red) > 0 {
			svg, leg, err := linePlot("Reduction in time on wire vs "+f+ch.title, xName, "ToW reduction vs "+a.BaseLabel+" (%)", ch.red, logX, true)
			if err != nil {
				return nil, err
			}
			caption := "100 × (ToW_base − ToW) / ToW_base of the medians; above the dashed line the variant spends less time on the wire. Bars: 95% intervals (How to read intervals); a point without one has too few loads or is a mean of several conditions."
			figs = append(figs, figure{Title: "ToW reduction vs " + f + ch.title, Caption: joinCaption(caption, ch.caption), SVG: template.HTML(svg), Legend: leg})
		}
		svg, leg, err := linePlot("Median page load time vs "+f+ch.title, xName, "median PLT (ms)", ch.plt, logX, false)
		if err != nil {
			return nil, err
		}
		figs = append(figs, figure{Title: "PLT vs " + f + ch.title, Caption: ch.caption, SVG: template.HTML(svg), Legend: leg})
	}
	return figs, nil
}

// joinCaption puts two caption sentences together, either may be empty.
func joinCaption(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// streamsRegression finds, per page and RTT, the smallest max_streams m at
// which SPDY's median ToW beats the baseline's, and fits m = a + b r
// against the page's resource count r by least squares.
func streamsRegression(a *Analysis) (*figure, table, error) {
	t := table{Title: "Streams SPDY needs to beat " + a.BaseLabel + " (m) against resources (r)",
		Caption: "m = smallest max concurrent streams whose median ToW is below the baseline's; – = never within the tested range",
		Head:    []string{"page", "resources r", "rtt", "m"}}
	byPage := map[string][]*Condition{}
	for _, c := range a.Conds {
		if !c.IsBaseline {
			byPage[c.Values["page"]] = append(byPage[c.Values["page"]], c)
		}
	}
	var xs, ys []float64
	var pts []Series
	for _, pg := range distinct(a, "page") {
		cs := byPage[pg]
		byRTT := map[string][]*Condition{}
		for _, c := range cs {
			byRTT[c.Values["rtt"]] = append(byRTT[c.Values["rtt"]], c)
		}
		rtts := distinct(a, "rtt")
		sortNumeric("rtt", rtts)
		s := Series{Name: pg}
		for _, rtt := range rtts {
			list := byRTT[rtt]
			sort.Slice(list, func(i, j int) bool {
				x, _ := numericX("max_streams", list[i].Values["max_streams"])
				y, _ := numericX("max_streams", list[j].Values["max_streams"])
				return x < y
			})
			m := math.NaN()
			r := 0
			for _, c := range list {
				r = max(r, c.Resources)
				if !math.IsNaN(c.ToWRedPct) && c.ToWRedPct > 0 {
					m, _ = numericX("max_streams", c.Values["max_streams"])
					break
				}
			}
			t.Rows = append(t.Rows, []cell{{Text: pg}, {Text: strconv.Itoa(r), Class: "num"}, {Text: rtt}, {Text: fmtNum(m, 0), Class: "num"}})
			if !math.IsNaN(m) && r > 0 {
				xs, ys = append(xs, float64(r)), append(ys, m)
				s.X, s.Y = append(s.X, float64(r)), append(s.Y, m)
			}
		}
		pts = append(pts, s)
	}
	if len(xs) == 0 {
		return nil, t, nil
	}
	ia, ib, ok := leastSquares(xs, ys)
	if ok {
		t.Caption += fmt.Sprintf(". Fit: m = %.2f + %.4f × r over %d points.", ia, ib, len(xs))
	}
	svg, leg, err := scatterFit("Streams needed to beat "+a.BaseLabel+" vs page resources", "resources in the page (r)", "max streams needed (m)", pts, ia, ib, ok)
	if err != nil {
		return nil, t, err
	}
	return &figure{Title: "m vs r", Caption: "one point per page and RTT; dashed: least-squares fit", SVG: template.HTML(svg), Legend: leg}, t, nil
}

// leastSquares fits y = a + b x; ok is false when x has no spread.
func leastSquares(x, y []float64) (a, b float64, ok bool) {
	n := float64(len(x))
	mx, my := stats.Mean(x), stats.Mean(y)
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if n < 2 || sxx == 0 {
		return my, 0, false
	}
	b = sxy / sxx
	return my - b*mx, b, true
}

// breakdownFigures: HAR phase bars per variant and the chosen metric's
// CDFs per variant.
func breakdownFigures(a *Analysis) ([]figure, error) {
	var figs []figure
	names := []string{"blocked", "dns", "connect", "ssl", "send", "wait", "receive"}
	parts := make([]Series, len(names))
	for i, n := range names {
		parts[i].Name = n
	}
	var cats []string
	var cdf []Series
	for _, l := range a.Labels {
		var sum [7]float64
		n := 0.0
		var plts []float64
		for _, c := range a.condsOf(l) {
			if c.PLT.N == 0 {
				continue
			}
			p := c.Phases
			for i, v := range []float64{p.Blocked, p.DNS, p.Connect - p.SSL, p.SSL, p.Send, p.Wait, p.Receive} {
				sum[i] += math.Max(v, 0)
			}
			n++
		}
		for _, p := range a.Probes {
			c := a.ByHash[p.CondHash]
			if c == nil || c.Label != l || c.Refused != "" {
				continue
			}
			if v, ok := a.Metric.Of(&p.Result); ok {
				plts = append(plts, v)
			}
		}
		if n == 0 {
			continue
		}
		cats = append(cats, l)
		for i := range parts {
			parts[i].Y = append(parts[i].Y, sum[i]/n)
		}
		cdf = append(cdf, Series{Name: fmt.Sprintf("%s (%d loads)", l, len(plts)), X: plts})
	}
	if len(cats) == 0 {
		return nil, nil
	}
	var colors []string
	for _, pc := range phaseColors {
		colors = append(colors, pc.color)
	}
	svg, leg, err := stackedBars("HAR phases per load, summed over requests (mean over conditions)", "ms (summed over all requests)", cats, parts, colors)
	if err != nil {
		return nil, err
	}
	figs = append(figs, figure{Title: "Phase breakdown", Caption: "Each load's HAR timings summed over its requests, averaged over the conditions. connect excludes ssl (HAR counts ssl inside connect). Multiplexing trades connect/ssl for wait.", SVG: template.HTML(svg), Legend: leg})
	title := a.MetricTitle()
	svg, leg, err = cdfPlot(strings.ToUpper(a.Metric.Long[:1])+a.Metric.Long[1:]+", all successful loads that have it", title+" (ms)", cdf)
	if err != nil {
		return nil, err
	}
	figs = append(figs, figure{Title: title + " CDF", Caption: "every successful load of every condition that has a " + a.Metric.Title + ", by variant", SVG: template.HTML(svg), Legend: leg})
	return figs, nil
}

// waterfalls: the median load of each variant on the study's first bench
// group that has loads for every variant.
func waterfalls(a *Analysis, st *store.Store) []figure {
	var out []figure
	for _, g := range spec.Groups(a.Study) {
		ok := true
		for _, c := range g.Conds {
			if a.ByHash[c.Hash].MedianProbe == 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, c := range g.Conds {
			p, err := st.ProbeByID(a.ByHash[c.Hash].MedianProbe)
			if err != nil {
				continue
			}
			svg, err := WaterfallPathSVG(p.Result.HAR, probeTitle(p), pathOf(p, a.Manifests[spec.ManifestKey(c.Condition)]))
			if err != nil {
				out = append(out, figure{Title: "waterfall", Caption: err.Error()})
				continue
			}
			out = append(out, figure{Title: probeTitle(p), SVG: template.HTML(svg)})
		}
		break
	}
	return out
}
