package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// The SPDY-over-SCTP section (study3-sctp and any study that runs
// spdy/3.1+sctp beside spdy/3.1): what the 2011 Delaware study reported.
// Per loss rate, the average page load time over TCP and over SCTP (each
// page weighted alike: the mean over pages of each page's mean PLT), their
// difference, and how many pages load more than 5% faster, within ±5%, or
// more than 5% slower over SCTP; then the SCTP variants (control stream
// off, COOKIE-ECHO not bundled) against the default SCTP condition, and the
// transport counters that explain the differences.

// sctpSameBand is the ±5% band within which a page counts as no faster
// and no slower over SCTP (the study's classification).
const sctpSameBand = 0.05

// sctpPair is one page at one loss: the TCP condition and an SCTP one.
type sctpPair struct {
	page, loss string
	tcp, sctp  *Condition
}

// sctpRow is one loss rate (or one variant at one loss) of the comparison.
type sctpRow struct {
	Loss                    string
	Variant                 string // "" = SCTP with the lab's defaults
	Pages                   int
	TCPms, SCTPms           float64 // mean over pages of each page's mean PLT
	Faster, Same, Slower    int     // pages, by SCTP's PLT against TCP's
	ServerFast, ServerTimer float64 // server retransmissions per SCTP load, fast / timeout
	ClientSACKs             float64 // SACKs the client sent per SCTP load
	Overtaken               float64 // messages delivered past head-of-line blocking, per load
	LostTCP, LostSCTP       float64 // packets the link dropped at random per load
}

// sctpVariant names an SCTP condition's non-default knobs ("" = defaults).
func sctpVariant(k probe.SCTP) string {
	var parts []string
	if k.NoControlStream {
		parts = append(parts, "no control stream")
	}
	if k.NoBundleCookie {
		parts = append(parts, "COOKIE-ECHO not bundled")
	}
	if k.Streams != 0 {
		parts = append(parts, fmt.Sprintf("%d streams", k.Streams))
	}
	if k.RTOMin != 0 || k.RTOInitial != 0 {
		parts = append(parts, fmt.Sprintf("RTO min %v initial %v", k.WithDefaults().RTOMin, k.WithDefaults().RTOInitial))
	}
	if k.Buffer != 0 {
		parts = append(parts, fmt.Sprintf("%.0f KiB buffers", float64(k.Buffer)/1024))
	}
	if k.CongestionControl != "" {
		parts = append(parts, k.CongestionControl+" congestion control")
	}
	return strings.Join(parts, ", ")
}

// sctpPairs matches every SCTP condition with the TCP (spdy/3.1) condition
// equal to it but for the protocol and the SCTP knobs.
func sctpPairs(conds []*Condition) []sctpPair {
	key := func(c *Condition) string {
		v := map[string]string{}
		for k, x := range c.Values {
			if k != "protocol" && !strings.HasPrefix(k, "sctp_") {
				v[k] = x
			}
		}
		return spec.ValuesKey(v)
	}
	tcp := map[string]*Condition{}
	for _, c := range conds {
		if c.Proto == probe.ProtoSPDY31 && c.TLS == probe.TLSNone {
			tcp[key(c)] = c
		}
	}
	var out []sctpPair
	for _, c := range conds {
		if c.Proto != probe.ProtoSPDY31SCTP {
			continue
		}
		if t, ok := tcp[key(c)]; ok {
			out = append(out, sctpPair{page: c.Values["page"], loss: c.Values["loss"], tcp: t, sctp: c})
		}
	}
	return out
}

// sctpRows computes the comparison from the paired conditions and the
// successful probes.
func sctpRows(pairs []sctpPair, probes []store.Probe) []sctpRow {
	byCond := map[string][]probe.Result{}
	for _, p := range probes {
		if !p.Result.Failed {
			byCond[p.CondHash] = append(byCond[p.CondHash], p.Result)
		}
	}
	meanOf := func(rs []probe.Result, f func(probe.Result) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		return stats.Mean(xs)
	}
	plt := func(r probe.Result) float64 { return r.PLTms }
	lost := func(r probe.Result) float64 { return float64(r.Link.Down.PktsLost + r.Link.Up.PktsLost) }
	counter := func(f func(*probe.SCTPCounters) uint64) func(probe.Result) float64 {
		return func(r probe.Result) float64 {
			if r.SCTP == nil {
				return 0
			}
			return float64(f(r.SCTP))
		}
	}
	type acc struct {
		row                                         sctpRow
		tcp, sctp, fast, timer, sacks, over, lt, ls []float64
	}
	rows := map[string]*acc{}
	var order []string
	for _, p := range pairs {
		t, s := byCond[p.tcp.Hash], byCond[p.sctp.Hash]
		if len(t) == 0 || len(s) == 0 {
			continue
		}
		variant := sctpVariant(p.sctp.SCTP)
		k := p.loss + "\x00" + variant
		a := rows[k]
		if a == nil {
			a = &acc{row: sctpRow{Loss: p.loss, Variant: variant}}
			rows[k] = a
			order = append(order, k)
		}
		mt, ms := meanOf(t, plt), meanOf(s, plt)
		a.tcp, a.sctp = append(a.tcp, mt), append(a.sctp, ms)
		switch d := (ms - mt) / mt; {
		case d < -sctpSameBand:
			a.row.Faster++
		case d > sctpSameBand:
			a.row.Slower++
		default:
			a.row.Same++
		}
		a.fast = append(a.fast, meanOf(s, counter(func(c *probe.SCTPCounters) uint64 { return c.Server.FastRetransmissions })))
		a.timer = append(a.timer, meanOf(s, counter(func(c *probe.SCTPCounters) uint64 { return c.Server.TimeoutRetransmissions })))
		a.sacks = append(a.sacks, meanOf(s, counter(func(c *probe.SCTPCounters) uint64 { return c.Client.SACKsSent })))
		a.over = append(a.over, meanOf(s, counter(func(c *probe.SCTPCounters) uint64 { return c.Client.MessagesOvertaken })))
		a.lt, a.ls = append(a.lt, meanOf(t, lost)), append(a.ls, meanOf(s, lost))
	}
	out := make([]sctpRow, 0, len(order))
	for _, k := range order {
		a := rows[k]
		r := a.row
		r.Pages = len(a.tcp)
		r.TCPms, r.SCTPms = stats.Mean(a.tcp), stats.Mean(a.sctp)
		r.ServerFast, r.ServerTimer = stats.Mean(a.fast), stats.Mean(a.timer)
		r.ClientSACKs, r.Overtaken = stats.Mean(a.sacks), stats.Mean(a.over)
		r.LostTCP, r.LostSCTP = stats.Mean(a.lt), stats.Mean(a.ls)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Variant != out[j].Variant {
			return out[i].Variant == "" || out[j].Variant != "" && out[i].Variant < out[j].Variant
		}
		return lossValue(out[i].Loss) < lossValue(out[j].Loss)
	})
	return out
}

func lossValue(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return math.Inf(1)
	}
	return v
}

// sctpTables are the section's tables; none when the study does not pair
// SPDY over SCTP with SPDY over TCP.
func sctpTables(a *Analysis) []table {
	rows := sctpRows(sctpPairs(a.Conds), a.Probes)
	if len(rows) == 0 {
		return nil
	}
	name := func(r sctpRow) string {
		if r.Variant == "" {
			return "SCTP (control stream, bundled)"
		}
		return "SCTP, " + r.Variant
	}
	plt := table{
		Title:   "SPDY over SCTP vs SPDY over TCP: average page load time",
		Caption: "Mean over pages of each page's mean PLT (ms); difference = SCTP − TCP (negative: SCTP faster); pages counted by SCTP's mean PLT against TCP's (±5% band).",
		Head:    []string{"loss", "SCTP variant", "pages", "TCP ms", "SCTP ms", "difference ms", "difference %", ">5% faster", "within ±5%", ">5% slower"},
	}
	ctr := table{
		Title:   "SPDY over SCTP: transport counters per load",
		Caption: "Means per load over pages. Retransmissions are the server's DATA chunks sent again: fast (reported missing by 3 SACKs) or after a retransmission timeout. Overtaken: messages the client received ahead of an earlier message of another stream (head-of-line blocking avoided). Lost: packets the link dropped at random, both directions.",
		Head:    []string{"loss", "SCTP variant", "fast retransmissions", "timeout retransmissions", "client SACKs sent", "overtaken messages", "lost pkts (TCP loads)", "lost pkts (SCTP loads)"},
	}
	num := func(x float64, prec int) cell { return cell{Text: fmtNum(x, prec), Class: "num"} }
	for _, r := range rows {
		diff := r.SCTPms - r.TCPms
		dc := num(diff, 0)
		if diff < 0 {
			dc.Class += " good"
		} else if diff > 0 {
			dc.Class += " bad"
		}
		plt.Rows = append(plt.Rows, []cell{{Text: r.Loss}, {Text: name(r)}, num(float64(r.Pages), 0), num(r.TCPms, 0), num(r.SCTPms, 0), dc,
			num(100*diff/r.TCPms, 1), num(float64(r.Faster), 0), num(float64(r.Same), 0), num(float64(r.Slower), 0)})
		ctr.Rows = append(ctr.Rows, []cell{{Text: r.Loss}, {Text: name(r)}, num(r.ServerFast, 1), num(r.ServerTimer, 1), num(r.ClientSACKs, 0),
			num(r.Overtaken, 1), num(r.LostTCP, 1), num(r.LostSCTP, 1)})
	}
	return []table{plt, ctr}
}

// SCTPLoads are the SCTP transport counters of `spdylab load`'s loads of
// one protocol: medians over the successful loads.
type SCTPLoads struct {
	ServerFastRetransmissions    float64 `json:"server_fast_retransmissions_median"`
	ServerTimeoutRetransmissions float64 `json:"server_timeout_retransmissions_median"`
	ClientRetransmissions        float64 `json:"client_retransmissions_median"`
	ClientSACKsSent              float64 `json:"client_sacks_sent_median"`
	MessagesOvertaken            float64 `json:"messages_overtaken_median"`
}

// summarizeSCTP is nil unless some successful load carried SCTP counters.
func summarizeSCTP(rs []probe.Result) *SCTPLoads {
	var fast, timer, cli, sacks, over []float64
	for _, r := range rs {
		if r.Failed || r.SCTP == nil {
			continue
		}
		c := r.SCTP
		fast = append(fast, float64(c.Server.FastRetransmissions))
		timer = append(timer, float64(c.Server.TimeoutRetransmissions))
		cli = append(cli, float64(c.Client.Retransmissions))
		sacks = append(sacks, float64(c.Client.SACKsSent))
		over = append(over, float64(c.Client.MessagesOvertaken))
	}
	if len(fast) == 0 {
		return nil
	}
	return &SCTPLoads{stats.Median(fast), stats.Median(timer), stats.Median(cli), stats.Median(sacks), stats.Median(over)}
}

func (s *SCTPLoads) print(w io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "  SCTP: server retransmissions %.0f fast / %.0f timeout, client retransmissions %.0f, client SACKs %.0f, messages overtaken %.0f (medians)\n",
		s.ServerFastRetransmissions, s.ServerTimeoutRetransmissions, s.ClientRetransmissions, s.ClientSACKsSent, s.MessagesOvertaken)
}
