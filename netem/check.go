package netem

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/ctxtime"
	"github.com/spdylab/spdylab/internal/stats"
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

// CheckOptions tune CheckLink. Zero values pick defaults that finish in a
// few seconds for the studies' links.
type CheckOptions struct {
	Pings      int           // RTT samples; 0 = enough for ~3 s, 10..50
	Transfer   time.Duration // duration of each bulk transfer; 0 = max(3 s, 30 RTTs), at most 10 s
	LossProbes int           // UDP probes for the loss estimate; 0 = 400
	SkipRate   bool          // no bulk transfers
	SkipLoss   bool          // no UDP probe train
	SkipDNS    bool          // no DNS lookup timing
	SkipBurst  bool          // no UDP burst trains (link rate and queue each way; burst.go)
	OnlyS1     bool          // no pings to s2..sN
}

// CheckReport is the outcome of CheckLink.
type CheckReport struct {
	Testbed      string             `json:"testbed"`
	Link         string             `json:"link"`
	Applied      Applied            `json:"applied"`
	RTTMeanms    float64            `json:"rtt_mean_ms"`
	RTTP50ms     float64            `json:"rtt_p50_ms"`
	RTTP99ms     float64            `json:"rtt_p99_ms"`
	Measurements []Measurement      `json:"measurements"`
	Bursts       []BurstTrain       `json:"bursts,omitempty"` // the UDP burst trains behind rate_* and queue_*
	Counters     probe.LinkCounters `json:"counters"`         // emulator counters during the check
	OK           bool               `json:"ok"`
}

// Failed lists the measurements out of tolerance.
func (r *CheckReport) Failed() []Measurement { return failed(r.Measurements) }

func failed(ms []Measurement) []Measurement {
	var out []Measurement
	for _, m := range ms {
		if !m.Pass {
			out = append(out, m)
		}
	}
	return out
}

// Check is the short self-check stored with every probe: a handful of TCP
// pings from the client to s1 and, on a rate-limited link, one UDP burst
// train each way that measures the link rate and the droptail queue
// (burst.go); when full, also a bulk TCP transfer each way.
func (tb *Testbed) Check(ctx context.Context, full bool) (probe.LinkCheck, error) {
	opt := CheckOptions{Pings: 5, SkipRate: true, SkipLoss: true, SkipDNS: true, OnlyS1: true}
	if full {
		opt = CheckOptions{Pings: 10, SkipLoss: true, SkipDNS: true, OnlyS1: true}
	}
	rep, err := tb.CheckLink(ctx, opt)
	lc := probe.LinkCheck{RTTms: rep.RTTP50ms, RTTConfiguredms: ms(tb.cfg.Link.RTT)}
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

// CheckLink measures the link between the client and s1 (RTT, goodput each
// way, loss each way, DNS lookup time) and compares each with what the
// configuration predicts.
func (tb *Testbed) CheckLink(ctx context.Context, opt CheckOptions) (rep CheckReport, err error) {
	rep = CheckReport{Testbed: tb.id, Link: Describe(tb.cfg), Applied: tb.applied}
	before := tb.Counters()
	defer func() { rep.Counters = diffCounters(tb.Counters(), before) }()
	rtt := tb.cfg.Link.RTT
	if tb.emu != nil {
		d, u := oneWayDelays(tb.cfg.Link)
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
	if !opt.SkipDNS && tb.cfg.DNS && tb.emu != nil {
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
func (tb *Testbed) checkRTT(ctx context.Context, ctl *probeConn, opt CheckOptions, rtt time.Duration, rep *CheckReport) error {
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
func (tb *Testbed) checkOtherRTTs(ctx context.Context, rep *CheckReport) error {
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
func (tb *Testbed) checkDNS(ctx context.Context, rtt time.Duration, rep *CheckReport) error {
	d, err := tb.dnsLookupTime(ctx)
	if err != nil {
		return err
	}
	dnsPkt := 20 + 8 + 12 + len(ServerName(1)) + 2 + 4 // IP+UDP+DNS header+question
	exp := ms(rtt) + ms(serialisation(tb.dirs.up, dnsPkt)) + ms(serialisation(tb.dirs.down, dnsPkt+16))
	rep.Measurements = append(rep.Measurements, judge(Measurement{Name: "dns", Unit: "ms", Configured: ms(rtt), Expected: exp,
		Measured: ms(d), Checked: true, Low: exp*0.95 - 0.5, High: exp*1.2 + 10, Note: "one A lookup of s1 over the link"}))
	return nil
}

// checkRates measures TCP goodput each way against the configured rate.
func (tb *Testbed) checkRates(ctx context.Context, opt CheckOptions, rtt time.Duration, rep *CheckReport) error {
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
			Measured: bps / 1e6, Note: fmt.Sprintf("TCP goodput (%s), second half of a %v transfer", tb.applied.CC, dur)}
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
func (tb *Testbed) checkLoss(ctx context.Context, opt CheckOptions, rep *CheckReport) error {
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

// ---- the measurement service on s1 ----
//
// One line-oriented TCP protocol on ProbePort:
//   PING           -> PONG                       (round trip)
//   SOURCE <ms>    -> data for <ms>, then close  (downlink goodput)
//   SINK           -> reads until EOF, then "<bytes> <ns>" for the second half
//   COUNT <id>     -> how many UDP probes of train <id> arrived
//   STAT <id> <want> -> what the service saw of burst train <id> (burst.go)
// and a UDP echo on ProbePort whose datagrams start with an 8-byte train id;
// the byte after the id marks burst trains, which are not echoed (burst.go).

type probeService struct {
	l  net.Listener
	pc *net.UDPConn
	wg sync.WaitGroup

	mu     sync.Mutex
	counts map[uint64]int
	trains map[uint64]*trainRecord // burst trains, until STAT collects them
}

// probeAddr starts the measurement service on server s (once) and returns
// its address.
func (tb *Testbed) probeAddr(s *Host) (string, error) {
	tb.probeMu.Lock()
	defer tb.probeMu.Unlock()
	if a, ok := tb.probeAddrs[s]; ok {
		return a, nil
	}
	addr := s.HostPort(ProbePort)
	if s.ns == nil {
		// Loopback testbeds share the caller's namespace (and may be
		// several): take any free port.
		addr = s.HostPort(0)
	}
	l, err := s.Listen("tcp4", addr)
	if err != nil {
		return "", fmt.Errorf("netem: check service on %s: %w", s.Name, err)
	}
	addr = l.Addr().String()
	pc, err := s.ListenPacket("udp4", addr)
	if err != nil {
		l.Close()
		return "", fmt.Errorf("netem: check service on %s: %w", s.Name, err)
	}
	ps := &probeService{l: l, pc: pc.(*net.UDPConn), counts: map[uint64]int{}, trains: map[uint64]*trainRecord{}}
	prepareTrainSocket(ps.pc)
	ps.wg.Add(2)
	go ps.serveTCP()
	go ps.serveUDP()
	tb.closeMu.Lock()
	tb.stop = append(tb.stop, ps.close)
	tb.closeMu.Unlock()
	if tb.probeAddrs == nil {
		tb.probeAddrs = map[*Host]string{}
	}
	tb.probeAddrs[s] = addr
	return addr, nil
}

func (ps *probeService) close() error {
	ps.l.Close()
	ps.pc.Close()
	ps.wg.Wait()
	return nil
}

func (ps *probeService) serveUDP() {
	defer ps.wg.Done()
	buf := make([]byte, 2048)
	oob := make([]byte, 128)
	for {
		n, from, at, err := readStamped(ps.pc, buf, oob)
		if err != nil {
			return
		}
		if n < 8 {
			continue
		}
		if ps.burstPacket(buf[:n], from, at) {
			continue
		}
		ps.mu.Lock()
		ps.counts[binary.BigEndian.Uint64(buf)]++
		ps.mu.Unlock()
		_, _ = ps.pc.WriteTo(buf[:n], from)
	}
}

func (ps *probeService) serveTCP() {
	defer ps.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := ps.l.Accept()
		if err != nil {
			return
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer c.Close()
			ps.handle(c)
		}()
	}
}

func (ps *probeService) handle(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "PING":
			if _, err := io.WriteString(c, "PONG\n"); err != nil {
				return
			}
		case "SOURCE":
			msec, err := strconv.Atoi(arg)
			if err != nil || msec <= 0 || msec > 60000 {
				return
			}
			buf := make([]byte, 64<<10)
			end := time.Now().Add(time.Duration(msec) * time.Millisecond)
			_ = c.SetWriteDeadline(end)
			for time.Now().Before(end) {
				if _, err := c.Write(buf); err != nil {
					break
				}
			}
			return
		case "SINK":
			bytes, dur := secondHalfRate(r)
			fmt.Fprintf(c, "%d %d\n", bytes, dur.Nanoseconds())
			return
		case "COUNT":
			id, err := strconv.ParseUint(arg, 10, 64)
			if err != nil {
				return
			}
			ps.mu.Lock()
			n := ps.counts[id]
			delete(ps.counts, id)
			ps.mu.Unlock()
			fmt.Fprintf(c, "%d\n", n)
		case "STAT":
			if err := ps.stat(c, arg); err != nil {
				return
			}
		default:
			return
		}
	}
}

// secondHalfRate reads r to EOF and returns the bytes that arrived in the
// second half of the transfer and that half's duration: the first half
// holds slow start, the second the steady state.
func secondHalfRate(r io.Reader) (int64, time.Duration) {
	type sample struct {
		at time.Time
		n  int
	}
	var samples []sample
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			samples = append(samples, sample{time.Now(), n})
		}
		if err != nil {
			break
		}
	}
	if len(samples) < 2 {
		return 0, 0
	}
	first, last := samples[0].at, samples[len(samples)-1].at
	mid := first.Add(last.Sub(first) / 2)
	var bytes int64
	var start time.Time
	for _, s := range samples {
		if s.at.Before(mid) {
			start = s.at // the last read before mid marks the window's start
			continue
		}
		bytes += int64(s.n)
	}
	if start.IsZero() {
		start = first
	}
	return bytes, last.Sub(start)
}

// ---- the client side ----

// probeConn is the client's TCP connection to a server's measurement
// service. Cancelling the context it was dialled with closes it.
type probeConn struct {
	c    net.Conn
	r    *bufio.Reader
	addr string // the service's host:port (TCP and UDP)
	stop func() bool
}

func (tb *Testbed) dialProbe(ctx context.Context, s *Host) (*probeConn, error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return nil, err
	}
	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return nil, fmt.Errorf("netem: check: connecting to %s: %w", s.Name, err)
	}
	return &probeConn{c: c, r: bufio.NewReader(c), addr: addr, stop: context.AfterFunc(ctx, func() { c.Close() })}, nil
}

func (pc *probeConn) Close() error {
	pc.stop()
	return pc.c.Close()
}

// ask writes one request and asks the kernel to acknowledge the answer at
// once, so no delayed ACK leaves later, in the middle of a burst train.
func (pc *probeConn) ask(req string) error {
	if _, err := io.WriteString(pc.c, req); err != nil {
		return err
	}
	if tc, ok := pc.c.(*net.TCPConn); ok {
		if sc, err := tc.SyscallConn(); err == nil {
			_ = sc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1) })
		}
	}
	return nil
}

// pings returns n round-trip times in milliseconds.
func (pc *probeConn) pings(n int) ([]float64, error) {
	var out []float64
	for range n {
		start := time.Now()
		if err := pc.ask("PING\n"); err != nil {
			return nil, fmt.Errorf("netem: check: ping: %w", err)
		}
		if _, err := pc.r.ReadString('\n'); err != nil {
			return nil, fmt.Errorf("netem: check: ping: %w", err)
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

func (tb *Testbed) tcpPings(ctx context.Context, s *Host, n int) ([]float64, error) {
	pc, err := tb.dialProbe(ctx, s)
	if err != nil {
		return nil, err
	}
	defer pc.Close()
	return pc.pings(n)
}

func (tb *Testbed) dnsLookupTime(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	ips, err := tb.client.Resolver().LookupNetIP(ctx, "ip4", ServerName(1))
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("netem: check: DNS lookup of %s: %w", ServerName(1), err)
	}
	if len(ips) != 1 || ips[0] != tb.servers[0].Addr {
		return 0, fmt.Errorf("netem: check: DNS lookup of %s gave %v, want %v", ServerName(1), ips, tb.servers[0].Addr)
	}
	return d, nil
}

// goodput runs one bulk transfer for dur and returns the steady-state
// goodput in bit/s measured at the receiver.
func (tb *Testbed) goodput(ctx context.Context, s *Host, dir string, dur time.Duration) (float64, error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return 0, err
	}
	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return 0, fmt.Errorf("netem: check: connecting to %s: %w", s.Name, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var bytes int64
	var span time.Duration
	if dir == "down" {
		if _, err := fmt.Fprintf(c, "SOURCE %d\n", dur.Milliseconds()); err != nil {
			return 0, err
		}
		bytes, span = secondHalfRate(c)
	} else {
		buf := make([]byte, 64<<10)
		if _, err := io.WriteString(c, "SINK\n"); err != nil {
			return 0, err
		}
		end := time.Now().Add(dur)
		for time.Now().Before(end) {
			if _, err := c.Write(buf); err != nil {
				return 0, fmt.Errorf("netem: check: upload: %w", err)
			}
		}
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			return 0, err
		}
		var ns int64
		if _, err := fmt.Fscan(c, &bytes, &ns); err != nil {
			return 0, fmt.Errorf("netem: check: reading the upload result: %w", err)
		}
		span = time.Duration(ns)
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if span <= 0 {
		return 0, fmt.Errorf("netem: check: %slink transfer moved too little data to measure", dir)
	}
	return float64(bytes) * 8 / span.Seconds(), nil
}

type lossEstimate struct {
	rate float64
	sent int // probes that could be lost in this direction
}

// lossTrain sends n UDP probes to s's echo service, paced to a quarter of
// the slower direction's rate so the queue never drops any, and derives
// each direction's loss from what the server counted and what came back.
func (tb *Testbed) lossTrain(ctx context.Context, s *Host, n int) (up, down lossEstimate, err error) {
	addr, err := tb.probeAddr(s)
	if err != nil {
		return up, down, err
	}
	pc, err := tb.client.ListenPacket("udp4", net.JoinHostPort(tb.client.Addr.String(), "0"))
	if err != nil {
		return up, down, err
	}
	defer pc.Close()
	dst, err := net.ResolveUDPAddr("udp4", addr)
	if err != nil {
		return up, down, err
	}
	const size = 64
	wire := float64((size + 28) * 8)
	slowest := math.Inf(1)
	for _, d := range []link.DirConfig{tb.dirs.down, tb.dirs.up} {
		if r := rateOf(d); r > 0 {
			slowest = min(slowest, r)
		}
	}
	gap := 200 * time.Microsecond
	if !math.IsInf(slowest, 1) {
		gap = max(gap, time.Duration(wire/(slowest/4)*float64(time.Second)))
	}
	id := uint64(time.Now().UnixNano())
	received := make(chan int, 1)
	go func() {
		buf := make([]byte, 2048)
		got := 0
		for {
			nr, _, err := pc.ReadFrom(buf)
			if err != nil {
				break
			}
			if nr >= 8 && binary.BigEndian.Uint64(buf) == id {
				got++
			}
		}
		received <- got
	}()
	pkt := make([]byte, size)
	binary.BigEndian.PutUint64(pkt, id)
	next := time.Now()
	for i := range n {
		binary.BigEndian.PutUint32(pkt[8:], uint32(i))
		if _, err := pc.WriteTo(pkt, dst); err != nil {
			return up, down, fmt.Errorf("netem: check: UDP probe: %w", err)
		}
		// Never catch up with a burst after oversleeping: the train must
		// stay far below the link rate so that only random loss drops it.
		next = later(next.Add(gap), time.Now())
		if err := ctxtime.Sleep(ctx, time.Until(next)); err != nil {
			return up, down, err
		}
	}
	// Wait out the propagation and any queue, then stop the receiver.
	d, u := oneWayDelays(tb.cfg.Link)
	if err := ctxtime.Sleep(ctx, d+u+500*time.Millisecond); err != nil {
		return up, down, err
	}
	pc.SetReadDeadline(time.Now())
	echoed := <-received

	c, err := tb.client.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return up, down, err
	}
	defer c.Close()
	var atServer int
	if _, err := fmt.Fprintf(c, "COUNT %d\n", id); err != nil {
		return up, down, err
	}
	if _, err := fmt.Fscan(c, &atServer); err != nil {
		return up, down, fmt.Errorf("netem: check: reading the probe count: %w", err)
	}
	if atServer > n || echoed > atServer {
		return up, down, errors.New("netem: check: probe counts inconsistent (duplicated packets?)")
	}
	up = lossEstimate{rate: 1 - float64(atServer)/float64(n), sent: n}
	down = lossEstimate{sent: atServer}
	if atServer > 0 {
		down.rate = 1 - float64(echoed)/float64(atServer)
	}
	return up, down, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
