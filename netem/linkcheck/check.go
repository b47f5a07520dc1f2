// Package linkcheck is the testbed's link self-check: it measures the
// emulated link between the client and the servers (RTT, rate and queue
// each way by UDP burst trains, TCP goodput, loss, DNS lookup time) through
// netem's exported API, and judges each value against what the testbed's
// configuration predicts. Check is the short check stored with every
// probe; Run is `spdylab link check`.
package linkcheck

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// ProbePort is where the testbed's measurement service listens on s1 (TCP
// and UDP) once a check has run. It is the old echo port, which no web
// server a user starts is likely to want.
const ProbePort = 7

// Per-packet overhead of the probes: IPv4 (20) + TCP with timestamps (32).
const tcpOverhead = 52

// tcpPayloadShare is the share of the link rate a bulk TCP transfer can
// turn into goodput with 1500-byte packets and TCP timestamps.
const tcpPayloadShare = float64(link.MTU-tcpOverhead) / link.MTU

// Measurement is one measured property of the link beside its configured
// value. Low..High is the accepted range; Checked is false for values that
// are reported for information only (then Pass is true).
type Measurement struct {
	Name       string  `json:"name"`
	Unit       string  `json:"unit"`
	Configured float64 `json:"configured"`
	Expected   float64 `json:"expected"` // what the configuration predicts for this probe
	Measured   float64 `json:"measured"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Checked    bool    `json:"checked"`
	Pass       bool    `json:"pass"`
	Note       string  `json:"note,omitempty"`
}

// Options tune Run. Zero values pick defaults that finish in a
// few seconds for the studies' links.
type Options struct {
	Pings      int           // RTT samples; 0 = enough for ~3 s, 10..50
	Transfer   time.Duration // duration of each bulk transfer; 0 = max(3 s, 30 RTTs), at most 10 s
	LossProbes int           // UDP probes for the loss estimate; 0 = 400
	SkipRate   bool          // no bulk transfers
	SkipLoss   bool          // no UDP probe train
	SkipDNS    bool          // no DNS lookup timing
	SkipBurst  bool          // no UDP burst trains (link rate and queue each way; burst.go)
	OnlyS1     bool          // no pings to s2..sN
}

// Report is the outcome of Run.
type Report struct {
	Testbed      string             `json:"testbed"`
	Link         string             `json:"link"`
	Applied      netem.Applied      `json:"applied"`
	RTTMeanms    float64            `json:"rtt_mean_ms"`
	RTTP50ms     float64            `json:"rtt_p50_ms"`
	RTTP99ms     float64            `json:"rtt_p99_ms"`
	Measurements []Measurement      `json:"measurements"`
	Bursts       []BurstTrain       `json:"bursts,omitempty"` // the UDP burst trains behind rate_* and queue_*
	Counters     probe.LinkCounters `json:"counters"`         // emulator counters during the check
	OK           bool               `json:"ok"`
}

// Failed lists the measurements out of tolerance.
func (r *Report) Failed() []Measurement { return failed(r.Measurements) }

func failed(ms []Measurement) []Measurement {
	var out []Measurement
	for _, m := range ms {
		if !m.Pass {
			out = append(out, m)
		}
	}
	return out
}

// checker runs one check on a testbed: the testbed and what the check
// reads of it.
type checker struct {
	*netem.Testbed
	cfg      netem.Config
	client   *netem.Host
	servers  []*netem.Host
	dirs     struct{ down, up link.DirConfig }
	emulated bool
}

func newChecker(tb *netem.Testbed) *checker {
	c := &checker{Testbed: tb, cfg: tb.Config(), client: tb.Client(), servers: tb.Servers(), emulated: tb.Emulated()}
	c.dirs.down, c.dirs.up = tb.LinkDirs()
	return c
}

// oneWayDelays are the emulator's delays of each direction (0 for Loopback).
func (tb *checker) oneWayDelays() (down, up time.Duration) {
	return tb.dirs.down.Delay, tb.dirs.up.Delay
}

// Check is the short self-check stored with every probe: a handful of TCP
// pings from the client to s1 and, on a rate-limited link, one UDP burst
// train each way that measures the link rate and the droptail queue
// (burst.go); when full, also a bulk TCP transfer each way.
func Check(ctx context.Context, tb *netem.Testbed, full bool) (probe.LinkCheck, error) {
	opt := Options{Pings: 5, SkipRate: true, SkipLoss: true, SkipDNS: true, OnlyS1: true}
	if full {
		opt = Options{Pings: 10, SkipLoss: true, SkipDNS: true, OnlyS1: true}
	}
	rep, err := Run(ctx, tb, opt)
	lc := probe.LinkCheck{RTTms: rep.RTTP50ms, RTTConfiguredms: ms(tb.Config().Link.RoundTrip())}
	if err != nil {
		lc.Problem = err.Error()
		return lc, err
	}
	fillLinkCheck(&lc, &rep)
	lc.OK = rep.OK
	var problems []string
	for _, m := range rep.Failed() {
		problems = append(problems, fmt.Sprintf("%s %.4g%s outside %.4g..%.4g", m.Name, m.Measured, m.Unit, m.Low, m.High))
	}
	lc.Problem = strings.Join(problems, "; ")
	return lc, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Run measures the link between the client and s1 (RTT, goodput each
// way, loss each way, DNS lookup time) and compares each with what the
// configuration predicts.
func Run(ctx context.Context, tb *netem.Testbed, opt Options) (Report, error) {
	return newChecker(tb).run(ctx, opt)
}

func (tb *checker) run(ctx context.Context, opt Options) (rep Report, err error) {
	rep = Report{Testbed: tb.ID(), Link: netem.Describe(tb.cfg), Applied: tb.Applied()}
	before := tb.Counters()
	defer func() { rep.Counters = diffCounters(tb.Counters(), before) }()
	rtt := tb.cfg.Link.RoundTrip()
	if tb.emulated {
		d, u := tb.oneWayDelays()
		rtt = d + u
	}
	// One control connection to s1 carries the pings and the burst trains'
	// questions, and stays open until the end: closing it would put its
	// FIN exchange on the link while a train measures the queue.
	ctl, err := tb.dialProbe(ctx, tb.servers[0])
	if err != nil {
		return rep, err
	}
	defer ctl.Close()
	if err := tb.checkRTT(ctx, ctl, opt, rtt, &rep); err != nil {
		return rep, err
	}
	if !opt.SkipBurst {
		if err := tb.checkBursts(ctx, ctl, &rep); err != nil {
			return rep, err
		}
	}
	if !opt.OnlyS1 {
		if err := tb.checkOtherRTTs(ctx, &rep); err != nil {
			return rep, err
		}
	}
	if !opt.SkipDNS && tb.cfg.DNS && tb.emulated {
		if err := tb.checkDNS(ctx, rtt, &rep); err != nil {
			return rep, err
		}
	}
	if !opt.SkipRate {
		if err := tb.checkRates(ctx, opt, rtt, &rep); err != nil {
			return rep, err
		}
	}
	if !opt.SkipLoss {
		if err := tb.checkLoss(ctx, opt, &rep); err != nil {
			return rep, err
		}
	}
	rep.OK = len(rep.Failed()) == 0
	return rep, nil
}

// checkRTT measures the RTT to s1 with TCP pings on the established control
// connection (the answer rides on data, so no delayed ACK is involved).
func (tb *checker) checkRTT(ctx context.Context, ctl *probeConn, opt Options, rtt time.Duration, rep *Report) error {
	down, up := tb.dirs.down, tb.dirs.up
	pings := opt.Pings
	if pings <= 0 {
		pings = 10
		if rtt > 0 {
			pings = min(max(int(3*time.Second/rtt), 10), 50)
		}
	}
	samples, err := ctl.pings(pings)
	if err != nil {
		return err
	}
	slices.Sort(samples)
	var sum float64
	for _, s := range samples {
		sum += s
	}
	rep.RTTMeanms = sum / float64(len(samples))
	rep.RTTP50ms = stats.QuantileSorted(samples, 0.5)
	rep.RTTP99ms = stats.QuantileSorted(samples, 0.99)
	pingPkt := tcpOverhead + len("PING\n")
	expRTT := ms(rtt) + ms(serialisation(down, pingPkt)) + ms(serialisation(up, pingPkt))
	m := Measurement{Name: "rtt", Unit: "ms", Configured: ms(rtt), Expected: expRTT, Measured: rep.RTTP50ms, Checked: true,
		Low: expRTT*0.95 - 0.5, High: expRTT*1.15 + 5, Note: fmt.Sprintf("median of %d TCP pings", len(samples))}
	if down.Trace != nil || up.Trace != nil {
		// A trace delivers only at its opportunities: a ping may wait for one.
		m.High += ms(traceGap(down.Trace)) + ms(traceGap(up.Trace))
	}
	rep.Measurements = append(rep.Measurements, judge(m))
	return nil
}

// checkOtherRTTs pings every server but s1 a few times, which shows a
// miswired link; each is judged as s1's RTT is.
func (tb *checker) checkOtherRTTs(ctx context.Context, rep *Report) error {
	i := slices.IndexFunc(rep.Measurements, func(m Measurement) bool { return m.Name == "rtt" })
	if i < 0 {
		return errors.New("netem: check: no RTT measured to s1")
	}
	m := rep.Measurements[i]
	for i, srv := range tb.servers[1:] {
		samples, err := tb.tcpPings(ctx, srv, 5)
		if err != nil {
			return err
		}
		slices.Sort(samples)
		other := m
		other.Name = fmt.Sprintf("rtt_s%d", i+2)
		other.Measured = stats.QuantileSorted(samples, 0.5)
		other.Note = fmt.Sprintf("median of %d TCP pings to %s", len(samples), srv.Name)
		rep.Measurements = append(rep.Measurements, judge(other))
	}
	return nil
}

// checkDNS times one A lookup of s1 across the link.
func (tb *checker) checkDNS(ctx context.Context, rtt time.Duration, rep *Report) error {
	d, err := tb.dnsLookupTime(ctx)
	if err != nil {
		return err
	}
	dnsPkt := 20 + 8 + 12 + len(netem.ServerName(1)) + 2 + 4 // IP+UDP+DNS header+question
	exp := ms(rtt) + ms(serialisation(tb.dirs.up, dnsPkt)) + ms(serialisation(tb.dirs.down, dnsPkt+16))
	rep.Measurements = append(rep.Measurements, judge(Measurement{Name: "dns", Unit: "ms", Configured: ms(rtt), Expected: exp,
		Measured: ms(d), Checked: true, Low: exp*0.95 - 0.5, High: exp*1.2 + 10, Note: "one A lookup of s1 over the link"}))
	return nil
}

// checkRates measures TCP goodput each way against the configured rate.
func (tb *checker) checkRates(ctx context.Context, opt Options, rtt time.Duration, rep *Report) error {
	dur := opt.Transfer
	if dur <= 0 {
		dur = min(max(3*time.Second, 30*rtt), 10*time.Second)
	}
	for _, dir := range []struct {
		name string
		cfg  link.DirConfig
		loss float64
	}{{"down", tb.dirs.down, tb.cfg.Link.LossDown}, {"up", tb.dirs.up, tb.cfg.Link.LossUp}} {
		bps, err := tb.goodput(ctx, tb.servers[0], dir.name, dur)
		if err != nil {
			return err
		}
		conf := rateOf(dir.cfg)
		m := Measurement{Name: dir.name, Unit: "Mbit/s", Configured: conf / 1e6, Expected: conf * tcpPayloadShare / 1e6,
			Measured: bps / 1e6, Note: fmt.Sprintf("TCP goodput (%s), second half of a %v transfer", tb.Applied().CC, dur)}
		switch {
		case conf == 0:
			m.Note += "; rate unlimited: informational"
		case dir.loss > 0 || dir.cfg.GE != nil:
			m.Note += "; random loss caps TCP goodput below the link rate: informational"
		default:
			m.Checked = true
			m.Low, m.High = m.Expected*0.75, m.Expected*1.05
		}
		rep.Measurements = append(rep.Measurements, judge(m))
	}
	return nil
}

// checkLoss sends a train of UDP probes each way and compares the loss
// rates with the configured ones.
func (tb *checker) checkLoss(ctx context.Context, opt Options, rep *Report) error {
	n := opt.LossProbes
	if n <= 0 {
		n = 400
	}
	upLoss, downLoss, err := tb.lossTrain(ctx, tb.servers[0], n)
	if err != nil {
		return err
	}
	for _, dir := range []struct {
		name     string
		cfg      link.DirConfig
		measured float64
		n        int
	}{{"loss_up", tb.dirs.up, upLoss.rate, n}, {"loss_down", tb.dirs.down, downLoss.rate, downLoss.sent}} {
		p := dir.cfg.Loss
		if dir.cfg.GE != nil {
			p = dir.cfg.GE.MeanLoss()
		}
		// Three standard errors of a binomial proportion, plus slack of
		// one probe and half a percent.
		tol := 3*math.Sqrt(p*(1-p)/float64(max(dir.n, 1))) + 1/float64(max(dir.n, 1)) + 0.005
		if dir.cfg.GE != nil {
			tol *= 3 // bursts make neighbouring probes' fates correlated
		}
		rep.Measurements = append(rep.Measurements, judge(Measurement{Name: dir.name, Unit: "%", Configured: 100 * p, Expected: 100 * p,
			Measured: 100 * dir.measured, Checked: true, Low: 100 * max(p-tol, 0), High: 100 * min(p+tol, 1),
			Note: fmt.Sprintf("%d UDP probes", dir.n)}))
	}
	return nil
}

func judge(m Measurement) Measurement {
	m.Pass = !m.Checked || (m.Measured >= m.Low && m.Measured <= m.High)
	return m
}

// rateOf is a direction's configured capacity in bit/s (0 = unlimited).
func rateOf(d link.DirConfig) float64 {
	if d.Trace != nil {
		return d.Trace.MeanRateBps()
	}
	return float64(d.RateBps)
}

// serialisation is the time a packet of size bytes occupies the link.
func serialisation(d link.DirConfig, size int) time.Duration {
	r := rateOf(d)
	if r <= 0 {
		return 0
	}
	if d.Trace != nil {
		return 0 // a trace delivers whole opportunities; see traceGap
	}
	return time.Duration(float64(size*8) / r * float64(time.Second))
}

// traceGap is the longest wait for a delivery opportunity in a trace.
func traceGap(t *link.Trace) time.Duration {
	if t == nil || t.Len() == 0 {
		return 0
	}
	// The mean gap bounds the typical wait; use a few of them.
	return 3 * t.Period() / time.Duration(t.Len())
}

func diffCounters(a, b probe.LinkCounters) probe.LinkCounters {
	d := func(x, y probe.LinkDir) probe.LinkDir {
		x.PktsOffered -= y.PktsOffered
		x.BytesOffered -= y.BytesOffered
		x.PktsDelivered -= y.PktsDelivered
		x.BytesDelivered -= y.BytesDelivered
		x.PktsQueueDrop -= y.PktsQueueDrop
		x.PktsLost -= y.PktsLost
		return x
	}
	return probe.LinkCounters{Down: d(a.Down, b.Down), Up: d(a.Up, b.Up)}
}
