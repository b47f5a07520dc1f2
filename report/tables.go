package report

// The report's tables: summary, gains, heatmaps, gateway, bounds and
// conditions.

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// variants returns the non-baseline labels.
func (a *Analysis) variants() []string {
	var out []string
	for _, l := range a.Labels {
		if l != a.BaseLabel {
			out = append(out, l)
		}
	}
	return out
}

func (a *Analysis) condsOf(label string) []*Condition {
	var out []*Condition
	for _, c := range a.Conds {
		if c.Label == label {
			out = append(out, c)
		}
	}
	return out
}

// summaryTables: per variant, the CableLabs summary (best, average, worst
// gain; cases with gain >= 1 and >= 2; pages A and B at 0% loss).
func summaryTables(a *Analysis) []table {
	t := table{Title: "Summary: gain against " + a.BaseLabel,
		Caption: "Gain = median " + a.MetricTitle() + " of the baseline / median " + a.MetricTitle() + " of the variant, per condition (CableLabs' definition); > 1 means the variant is faster. A case is one combination of the other factors. Won / lost: cases whose 95% interval of the gain lies entirely above / below 1; undecided: it contains 1; too few loads: no interval (see How to read intervals). The four add up to the cases.",
		Head:    []string{"variant", "cases", "best", "average", "worst", "gain ≥ 1", "gain ≥ 2", "won", "lost", "undecided", "too few loads", "page A at 0% loss (avg)", "page B at 0% loss (avg)"}}
	for _, l := range a.variants() {
		var gains []float64
		var verdicts verdictCounts
		atZero := map[string][]float64{}
		for _, c := range a.condsOf(l) {
			if math.IsNaN(c.Gain) {
				continue
			}
			gains = append(gains, c.Gain)
			verdicts.add(c.Significance)
			if c.Values["loss"] == "0%" {
				atZero[c.Values["page"]] = append(atZero[c.Values["page"]], c.Gain)
			}
		}
		avgAt := func(pg string) cell {
			if g := atZero[pg]; len(g) > 0 {
				return gainCell(stats.Mean(g))
			}
			return cell{Text: "–"}
		}
		if len(gains) == 0 {
			t.Rows = append(t.Rows, []cell{{Text: l}, {Text: "0"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}, {Text: "–"}})
			continue
		}
		lo, hi := minMax(gains)
		n1, n2 := 0, 0
		for _, g := range gains {
			if g >= 1 {
				n1++
			}
			if g >= 2 {
				n2++
			}
		}
		t.Rows = append(t.Rows, []cell{{Text: l}, {Text: strconv.Itoa(len(gains)), Class: "num"}, gainCell(hi), gainCell(stats.Mean(gains)), gainCell(lo),
			{Text: fmt.Sprintf("%d of %d", n1, len(gains)), Class: "num"}, {Text: fmt.Sprintf("%d of %d", n2, len(gains)), Class: "num"},
			countCell(verdicts.Won, "num good"), countCell(verdicts.Lost, "num bad"), countCell(verdicts.Undecided, "num"), countCell(verdicts.TooFew, "num"),
			avgAt("pageA"), avgAt("pageB")})
	}
	// The page A / B columns are CableLabs'; other studies do without.
	hasAB := false
	for _, p := range distinct(a, "page") {
		if p == "pageA" || p == "pageB" {
			hasAB = true
		}
	}
	if !hasAB {
		t.Head = t.Head[:len(t.Head)-2]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:len(t.Rows[i])-2]
		}
	}
	return []table{t}
}

// gainTables are Study 1's tables: for each page x servers cell and each
// channel cell, the max, mean and min gain over the other factors, one
// table pair per variant. Only made when the study varies them.
func gainTables(a *Analysis) []table {
	varied := map[string]bool{}
	for _, v := range a.Study.Varied {
		varied[v] = true
	}
	var siteF, chanF []string
	for _, f := range []string{"page", "shards"} {
		if varied[f] {
			siteF = append(siteF, f)
		}
	}
	for _, f := range []string{"rate", "rtt", "loss", "queue"} {
		if varied[f] {
			chanF = append(chanF, f)
		}
	}
	var out []table
	for _, l := range a.variants() {
		for _, dims := range [][]string{siteF, chanF} {
			if len(dims) == 0 {
				continue
			}
			type agg struct {
				key      []string
				gain     []float64
				verdicts verdictCounts
			}
			var order []string
			cells := map[string]*agg{}
			for _, c := range a.condsOf(l) {
				var key []string
				for _, f := range dims {
					key = append(key, c.Values[f])
				}
				k := strings.Join(key, "\x00")
				if cells[k] == nil {
					cells[k] = &agg{key: key}
					order = append(order, k)
				}
				if !math.IsNaN(c.Gain) {
					cells[k].gain = append(cells[k].gain, c.Gain)
					cells[k].verdicts.add(c.Significance)
				}
			}
			t := table{Title: fmt.Sprintf("Gain of %s over %s by %s", l, a.BaseLabel, strings.Join(dims, " × ")),
				Caption: "max, mean and min of the per-condition gains over every other factor; won / lost / undecided / too few loads: how many of the n conditions have a 95% interval of the gain entirely above 1, entirely below 1, containing 1, or none",
				Head:    append(append([]string{}, dims...), "max", "mean", "min", "n", "won / lost / undecided / too few")}
			for _, k := range order {
				ag := cells[k]
				row := []cell{}
				for _, v := range ag.key {
					row = append(row, cell{Text: v})
				}
				if len(ag.gain) == 0 {
					row = append(row, cell{Text: "–"}, cell{Text: "–"}, cell{Text: "–"}, cell{Text: "0", Class: "num"}, cell{Text: "–", Class: "num"})
				} else {
					lo, hi := minMax(ag.gain)
					row = append(row, gainCell(hi), gainCell(stats.Mean(ag.gain)), gainCell(lo), cell{Text: strconv.Itoa(len(ag.gain)), Class: "num"},
						cell{Text: ag.verdicts.String(), Class: "num"})
				}
				t.Rows = append(t.Rows, row)
			}
			out = append(out, t)
		}
	}
	return out
}

// heatmaps: ToW reduction per max streams (rows) x RTT (columns), one per
// page, as a coloured table.
func heatmaps(a *Analysis) []table {
	var out []table
	pages := distinct(a, "page")
	rtts := distinct(a, "rtt")
	streams := distinct(a, "max_streams")
	sortNumeric("rtt", rtts)
	sortNumeric("max_streams", streams)
	for _, pg := range pages {
		t := table{Title: "ToW reduction (%) of SPDY by max streams × RTT: " + pg,
			Caption: "green: SPDY spends less time on the wire than " + a.BaseLabel + "; red: more. In brackets the 95% interval; ✓ marks a reduction whose interval excludes 0 (won or lost beyond the noise).",
			Head:    append([]string{"max streams"}, rtts...)}
		for _, s := range streams {
			row := []cell{{Text: s}}
			for _, r := range rtts {
				v, text := math.NaN(), "–"
				for _, c := range a.Conds {
					if c.Values["page"] == pg && c.Values["rtt"] == r && c.Values["max_streams"] == s && !c.IsBaseline && !math.IsNaN(c.ToWRedPct) {
						v, text = c.ToWRedPct, towRedIntervalCell(c).Text
						if c.ToWSignificance == Won || c.ToWSignificance == Lost {
							text += " ✓"
						}
					}
				}
				row = append(row, cell{Text: text, Class: "num", Style: heatColor(v)})
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

func heatColor(v float64) template.CSS {
	if math.IsNaN(v) {
		return ""
	}
	x := math.Max(-1, math.Min(1, v/50))
	if x >= 0 {
		return template.CSS(fmt.Sprintf("background: rgba(0,158,115,%.2f)", 0.1+0.8*x))
	}
	return template.CSS(fmt.Sprintf("background: rgba(213,94,0,%.2f)", 0.1+0.8*-x))
}

func distinct(a *Analysis, f string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range a.Conds {
		if v := c.Values[f]; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func sortNumeric(f string, v []string) {
	sort.SliceStable(v, func(i, j int) bool {
		x, _ := numericX(f, v[i])
		y, _ := numericX(f, v[j])
		return x < y
	})
}

func gatewayTable(a *Analysis) table {
	t := table{Title: "Gateway and TCP counters per load",
		Caption: "Means over conditions of per-load means: packets the bottleneck's droptail queue dropped and the random loss it applied (both directions), downlink queueing delay, TCP retransmissions counted by the client's sockets and by the servers' (TCP_INFO on each side: the servers send most bytes, so theirs repair the downlink's losses; loads over QUIC or SCTP count none here), packets offered to the bottleneck, connections opened, and the emulator's own timing error (99th percentile of how late it released packets; well under 1 ms when the emulator had the CPU it needed).",
		Head:    []string{"variant", "queue drops", "random loss", "qdelay p50 (ms)", "qdelay p95 (ms)", "client retransmits", "server retransmits", "packets sent", "connections", "emulator late p99 (ms)"}}
	for _, l := range a.Labels {
		var g Gateway
		n := 0.0
		for _, c := range a.condsOf(l) {
			if c.PLT.N == 0 {
				continue
			}
			x := c.Gateway
			g.QueueDrops += x.QueueDrops
			g.RandomLoss += x.RandomLoss
			g.QDelayP50ms += x.QDelayP50ms
			g.QDelayP95ms += x.QDelayP95ms
			g.Retransmits += x.Retransmits
			g.ServerRetransmits += x.ServerRetransmits
			g.PktsSent += x.PktsSent
			g.Connections += x.Connections
			g.LateP99ms += x.LateP99ms
			n++
		}
		if n == 0 {
			continue
		}
		row := []cell{{Text: l}}
		for _, v := range []float64{g.QueueDrops, g.RandomLoss, g.QDelayP50ms, g.QDelayP95ms, g.Retransmits, g.ServerRetransmits, g.PktsSent, g.Connections} {
			row = append(row, cell{Text: fmtNum(v/n, 1), Class: "num"})
		}
		lateCell := cell{Text: fmtNum(g.LateP99ms/n, 2), Class: "num"}
		if g.LateP99ms/n > LateLimitMs {
			lateCell.Class += " bad"
		}
		row = append(row, lateCell)
		t.Rows = append(t.Rows, row)
	}
	return t
}

func boundTable(a *Analysis) table {
	t := table{Title: "Distance from the lower bound",
		Caption: "bound = max(chain, volume): setup RTTs (DNS if on, TCP 1, TLS 1.2: 2 / 1.3: 1), then one RTT per level of the longest discovery chain plus the bytes each step waits for at the down rate; or setup + 1 RTT + all bytes at the down rate. No protocol can load the page faster. PLT / bound: 1 is perfect.",
		Head:    []string{"variant", "conditions", "median PLT / bound (mean)", "best", "worst"}}
	for _, l := range a.Labels {
		var r []float64
		for _, c := range a.condsOf(l) {
			if !math.IsNaN(c.PLTOverBound) {
				r = append(r, c.PLTOverBound)
			}
		}
		if len(r) == 0 {
			continue
		}
		lo, hi := minMax(r)
		t.Rows = append(t.Rows, []cell{{Text: l}, {Text: strconv.Itoa(len(r)), Class: "num"}, {Text: fmtNum(stats.Mean(r), 2), Class: "num"}, {Text: fmtNum(lo, 2), Class: "num"}, {Text: fmtNum(hi, 2), Class: "num"}})
	}
	return t
}

func conditionsTable(a *Analysis) table {
	var cols []string
	for _, f := range a.Study.Varied {
		cols = append(cols, f)
	}
	t := table{Title: "All conditions",
		Caption: fmt.Sprintf("Medians over successful loads with [p25 – p75]. ⚠ = fewer than %d successful loads. TLS RTs: the load's TLS handshake round trips (TLS 1.2 full 2, resumed 1; TLS 1.3 1; QUIC 1, 0 with 0-RTT; TCP's own not counted), then its full and resumed handshakes (and 0-RTT ones), medians per load; – without TLS. Server retx: TCP segments the servers retransmitted per load (mean; their TCP_INFO, the downlink's loss recovery). Gain and ToW reduction with their 95%% intervals; green / red: won / lost (interval entirely above / below 1). Probe ids link to `spdylab report DIR --waterfall ID`.", a.MinLoads),
		Head:    append(append([]string{}, cols...), "loads", "failed", "PLT ms", "ToW ms", "TLS RTs", "gain", "ToW red. %", "bound ms", "PLT/bound", "server retx", "median probe")}
	ignoredAny := false
	for _, c := range a.Conds {
		row := []cell{}
		ignored := probe.IgnoredBy(c.Condition, c.Proto)
		for _, f := range cols {
			text := c.Values[f]
			if slices.Contains(ignored, f) {
				text += " (ignored by " + c.Proto + ")"
				ignoredAny = true
			}
			row = append(row, cell{Text: text})
		}
		warn := ""
		if c.TooFew {
			warn = " ⚠"
		}
		failed := cell{Text: strconv.Itoa(c.Failed), Class: "num"}
		if c.Failed > 0 {
			failed.Class += " bad"
			failed.Text += " (" + strings.Join(c.Errors, "; ") + ")"
		}
		if c.CheckProblem != "" {
			warn += " (link check: " + c.CheckProblem + ")"
		}
		row = append(row,
			cell{Text: strconv.Itoa(c.Loads), Class: "num"}, failed,
			cell{Text: fmt.Sprintf("%s [%s – %s]%s", fmtNum(c.PLT.Median, 0), fmtNum(c.PLT.P25, 0), fmtNum(c.PLT.P75, 0), warn), Class: "num"},
			cell{Text: fmt.Sprintf("%s [%s – %s]", fmtNum(c.ToW.Median, 0), fmtNum(c.ToW.P25, 0), fmtNum(c.ToW.P75, 0)), Class: "num"},
			cell{Text: c.Handshakes.String(), Class: "num"},
			gainIntervalCell(c), towRedIntervalCell(c),
			cell{Text: fmtNum(c.BoundMs, 0), Class: "num"}, cell{Text: fmtNum(c.PLTOverBound, 2), Class: "num"},
			cell{Text: fmtNum(c.Gateway.ServerRetransmits, 1), Class: "num"},
			cell{Text: strconv.FormatInt(c.MedianProbe, 10), Class: "num"})
		t.Rows = append(t.Rows, row)
	}
	if ignoredAny {
		t.Caption += " A value ignored by a protocol is a setting of the others (probe's scoped settings): that protocol's loads ran at its default, beside the others' in one bench."
	}
	addRetriesColumn(&t, a)
	return t
}

// addRetriesColumn adds to the conditions table, when some condition's
// loads sent requests again after the server did not process them, how
// many each did: those requests cost round trips the PLT includes. Loads
// that keep to the server's stream limit have none, so the column is
// usually absent.
func addRetriesColumn(t *table, a *Analysis) {
	retried := false
	for _, c := range a.Conds {
		retried = retried || c.Retries > 0
	}
	if !retried {
		return
	}
	t.Caption += " Retries: requests the successful loads sent again after the server refused them (REFUSED_STREAM, or beyond a GOAWAY), all loads together."
	t.Head = append(t.Head, "retries")
	for i, c := range a.Conds {
		cl := "num"
		if c.Retries > 0 {
			cl += " warn"
		}
		t.Rows[i] = append(t.Rows[i], cell{Text: strconv.Itoa(c.Retries), Class: cl})
	}
}
