package netem

// Burst trains: the short check's cheap measurement of the link rate and
// the droptail queue in each direction.
//
// Downlink: the client sends a trigger datagram to s1's measurement
// service, which answers with n packets written back to back to the
// client's UDP socket. Uplink: the client writes n packets back to back to
// the service, which records their arrivals without echoing them. The
// receiver stamps arrivals with the kernel's receive time (SO_TIMESTAMPNS),
// so neither side's scheduling delays enter the result.
//
// A burst written much faster than the link drains leaves one packet in
// service and the queue full behind it; the rest is dropped at the queue,
// but for one packet more for every packet the link finished while the
// burst was still being written (at 100 Mbit/s a 1200-packet burst takes
// the sender 3-10 ms, in which the link drains 30-100 packets; at 10
// Mbit/s a 41-packet burst drains none). The packets that get through
// leave the bottleneck back to back, so
//
//	rate  = (delivered-1) x wire bytes x 8 / (last arrival - first arrival)
//	queue = delivered - 1 - floor((sender's first to last write) x rate / (wire bytes x 8))
//
// where wire bytes are what the emulator charges a packet: its IP length
// (the TUN devices hand over IP packets without a link-layer header), UDP
// payload + 28. The emulator's own counters for the train's window say how
// many packets it dropped at the queue and lost at random.
//
// Cost: the probe size is chosen so that a queue-filling train drains in
// about burstTarget (100 ms) at the configured rate, within 200..1500
// bytes; a queue that would take longer than burstMaxDrain (1 s) to fill
// with 200-byte probes gets a rate-only train instead. At the studies'
// slowest links: study4's 1 Mbit/s / 256 kbit/s with 100-packet queues
// fills the uplink queue with 101 x 200 B in 0.63 s (downlink: 101 x 200 B,
// 0.16 s); study2's 256-packet queues are checked at 512 kbit/s and above
// (0.82 s at 512 kbit/s, 0.41 s at 1 Mbit/s); at 64..256 kbit/s they are not
// filled and a rate-only train of 10..30 probes of 200 B costs 0.25 s (64
// kbit/s) per direction. study1's 10/1 Mbit/s with 50-packet queues costs
// 61 ms down (1500 B probes) and 0.1 s up (245 B). Each train adds the
// one-way delays and a question to the service (one RTT) on top.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/ctxtime"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

const (
	udpOverhead   = 28 // IPv4 (20) + UDP (8): what a probe costs on the emulated wire beyond its payload
	burstHeader   = 13 // train id (8), kind (1), sequence number (4)
	burstMinWire  = 200
	burstMaxWire  = link.MTU
	burstTarget   = 100 * time.Millisecond // drain time the probe size aims at
	burstMaxDrain = time.Second            // longest queue-filling train
	burstRatePkts = 30                     // packets of a rate-only train, at most
	burstMinPkts  = 10                     // ... and at least
	burstMaxPkts  = 1500                   // cap on any train
)

// The byte after a datagram's train id says what it is. A loss-train probe
// (lossTrain) has the top byte of its 32-bit index there: 0 for any train
// shorter than 2^24 probes.
const (
	kindUp      = 'U' // uplink burst packet: recorded, not echoed
	kindTrigger = 'D' // asks for a downlink burst: count (uint32) and payload size (uint16) follow the header
	kindDown    = 'd' // downlink burst packet
)

// burstPlan is one direction's train.
type burstPlan struct {
	dir           string  // "down" or "up"
	rateBps       float64 // configured (a trace's mean rate)
	wire          int     // bytes per probe on the emulated wire (IP length)
	n             int     // packets written back to back
	fills         bool    // the train overfills the queue, which is then checked
	queue         int     // the droptail limit in probes of wire bytes (fills)
	queueNote     string  // how a byte limit converts, or why the queue is not checked
	informational string  // why nothing is judged ("" = judged)
}

// planBurst chooses the train for a direction; false when the direction
// has no rate limit (nothing to measure).
func planBurst(dir string, d link.DirConfig) (burstPlan, bool) {
	r := rateOf(d)
	if r <= 0 {
		return burstPlan{}, false
	}
	p := burstPlan{dir: dir, rateBps: r}
	switch {
	case d.Trace != nil:
		p.informational = "trace link"
	case d.Loss > 0 || d.GE != nil:
		p.informational = "random loss"
	}
	if d.QueuePkts > 0 || d.QueueBytes > 0 {
		wire := burstWire(r, d.QueuePkts+1)
		if d.QueuePkts == 0 {
			// A byte limit holds the same bytes whatever the probe size,
			// so the drain time does not depend on it: take probes that
			// resolve it to about 30 packets.
			wire = min(max(d.QueueBytes/30, burstMinWire), burstMaxWire)
		}
		q := queueInProbes(d, wire)
		n := q + 1 + max(10, q/5)
		if d.QueueBytes > 0 {
			p.queueNote = fmt.Sprintf("byte limit %d B = %d probes of %d B", d.QueueBytes, q, wire)
		}
		switch {
		case n > burstMaxPkts:
			p.queueNote = fmt.Sprintf("queue of %d packets not checked: a burst would need %d packets", q, n)
		case drainTime(q+1, wire, r) > burstMaxDrain:
			p.queueNote = fmt.Sprintf("queue of %d packets not checked: filling it with %d B probes takes %.1f s",
				q, wire, drainTime(q+1, wire, r).Seconds())
		default:
			p.wire, p.n, p.fills, p.queue = wire, n, true, q
			return p, true
		}
	}
	p.wire = burstWire(r, burstRatePkts)
	p.n = min(max(int(burstTarget.Seconds()*r/8/float64(p.wire)), burstMinPkts), burstRatePkts)
	return p, true
}

// burstWire is the probe size (IP bytes) with which pkts probes drain in
// burstTarget at r bit/s, within burstMinWire..burstMaxWire.
func burstWire(r float64, pkts int) int {
	return min(max(int(burstTarget.Seconds()*r/8/float64(pkts)), burstMinWire), burstMaxWire)
}

// drainTime is how long pkts probes of wire bytes occupy a link of r bit/s.
func drainTime(pkts, wire int, r float64) time.Duration {
	return time.Duration(float64(pkts*wire*8) / r * float64(time.Second))
}

// queueInProbes is the droptail limit in probes of wire bytes: the packet
// limit, or as many probes as fit the byte limit, whichever is smaller.
func queueInProbes(d link.DirConfig, wire int) int {
	q := d.QueuePkts
	if d.QueueBytes > 0 {
		if qb := d.QueueBytes / wire; q == 0 || qb < q {
			q = qb
		}
	}
	return q
}

// dispersionRate is the link rate in bit/s that spaced delivered
// back-to-back packets of wire bytes over span (first to last arrival).
func dispersionRate(delivered, wire int, span time.Duration) float64 {
	if delivered < 2 || span <= 0 {
		return 0
	}
	return float64(delivered-1) * float64(wire) * 8 / span.Seconds()
}

// queueFromBurst is the droptail limit a burst that overfilled the queue
// shows: every delivered packet but the one in service waited, less those
// let in because the link drained packets while the burst was written.
func queueFromBurst(delivered, drained int) int { return max(delivered-1-drained, 0) }

// drainedWhileSent is how many packets the link finished while the sender
// was still writing the burst: each made room for one more. The first
// finishes one packet time after the burst's first packet arrived.
func drainedWhileSent(sendSpan time.Duration, wire int, r float64) int {
	if sendSpan <= 0 || r <= 0 {
		return 0
	}
	return int(math.Floor(sendSpan.Seconds() * r / 8 / float64(wire)))
}

// burstResult is what one train did.
type burstResult struct {
	sent      int           // packets written
	delivered int           // packets the receiver got
	span      time.Duration // first to last arrival
	kernel    bool          // arrival times are kernel receive timestamps
	sendSpan  time.Duration // first to last write at the sender
	link      probe.LinkDir // the emulator's counters of the direction during the train
	others    int           // packets besides the train that crossed the direction meanwhile
	repeated  bool          // a second train, after the first failed
}

// BurstTrain is one burst train of a check, for the JSON report.
type BurstTrain struct {
	Dir              string  `json:"dir"`
	WireBytes        int     `json:"wire_bytes"`
	Sent             int     `json:"sent"`
	Delivered        int     `json:"delivered"`
	QueueDrops       uint64  `json:"queue_drops"` // emulator, during the train
	Lost             uint64  `json:"lost"`
	SpanMs           float64 `json:"span_ms"`
	SendSpanMs       float64 `json:"send_span_ms"`
	KernelTimestamps bool    `json:"kernel_timestamps"`
	Repeated         bool    `json:"repeated,omitempty"`
	QueueNote        string  `json:"queue_note,omitempty"` // a byte limit's conversion, or why the queue is not checked
}

func (res burstResult) train(p burstPlan) BurstTrain {
	return BurstTrain{Dir: p.dir, WireBytes: p.wire, Sent: res.sent, Delivered: res.delivered,
		QueueDrops: res.link.PktsQueueDrop, Lost: res.link.PktsLost, SpanMs: ms(res.span),
		SendSpanMs: ms(res.sendSpan), KernelTimestamps: res.kernel, Repeated: res.repeated, QueueNote: p.queueNote}
}

// burstMeasurements judges a train: the rate always, the queue when the
// train overfilled it.
func burstMeasurements(p burstPlan, res burstResult) []Measurement {
	r := p.rateBps / 1e6
	how := fmt.Sprintf("%d of %d UDP probes of %d B delivered (emulator: %d dropped at the queue, %d lost)",
		res.delivered, res.sent, p.wire, res.link.PktsQueueDrop, res.link.PktsLost)
	if emu := int(res.link.PktsDelivered) - res.others; emu > res.delivered {
		how += fmt.Sprintf("; the receiver missed %d the emulator delivered", emu-res.delivered)
	}
	if !res.kernel {
		how += "; user-space arrival times"
	}
	if res.repeated {
		how += "; second train"
	}
	rate := Measurement{Name: "rate_" + p.dir, Unit: "Mbit/s", Configured: r, Expected: r,
		Measured: dispersionRate(res.delivered, p.wire, res.span) / 1e6, Note: "burst dispersion: " + how}
	expectDelivered := p.n
	if p.fills {
		expectDelivered = p.queue + 1
	}
	switch {
	case p.informational != "":
		rate.Note += "; " + p.informational + ": informational"
	case expectDelivered < 3:
		rate.Note += "; too few packets to time: informational"
	default:
		rate.Checked = true
		rate.Low, rate.High = 0.85*r, 1.1*r
	}
	out := []Measurement{judge(rate)}
	if !p.fills {
		if p.queueNote != "" {
			out[0].Note += "; " + p.queueNote
		}
		return out
	}
	q := p.queue
	// The tolerance: a few packets, 2% of deep queues (the drain estimate's
	// error), and every other packet that shared the queue.
	tol := 3 + q/50 + res.others
	drained := drainedWhileSent(res.sendSpan, p.wire, p.rateBps)
	qm := Measurement{Name: "queue_" + p.dir, Unit: "pkts", Configured: float64(q), Expected: float64(q),
		Measured: float64(queueFromBurst(res.delivered, drained)), Low: float64(max(q-tol, 0)), High: float64(q + tol),
		Note: fmt.Sprintf("burst of %d written in %.2f ms, delivered - 1 - %d drained meanwhile: %s", p.n, ms(res.sendSpan), drained, how)}
	if p.queueNote != "" {
		qm.Note += "; " + p.queueNote
	}
	if p.informational != "" {
		qm.Note += "; " + p.informational + ": informational"
	} else {
		qm.Checked = true
	}
	return append(out, judge(qm))
}

// fillLinkCheck copies the measured rates and queues into lc, with a note
// saying what the burst trains found.
func fillLinkCheck(lc *probe.LinkCheck, rep *CheckReport) {
	lc.DownMbps, lc.UpMbps = measured(rep, "rate_down").Measured, measured(rep, "rate_up").Measured
	if lc.DownMbps == 0 { // no train: TCP goodput of a full check, if any
		lc.DownMbps = measured(rep, "down").Measured
	}
	if lc.UpMbps == 0 {
		lc.UpMbps = measured(rep, "up").Measured
	}
	lc.QueueDownPkts, lc.QueueUpPkts = int(measured(rep, "queue_down").Measured), int(measured(rep, "queue_up").Measured)
	var notes []string
	for _, t := range rep.Bursts {
		rm, qm := measured(rep, "rate_"+t.Dir), measured(rep, "queue_"+t.Dir)
		s := fmt.Sprintf("%s %.4g Mbit/s (configured %.4g)", t.Dir, rm.Measured, rm.Configured)
		if qm.Name != "" {
			s += fmt.Sprintf(", queue %.0f pkts (configured %.0f", qm.Measured, qm.Configured)
			if t.QueueNote != "" {
				s += ": " + t.QueueNote
			}
			s += ")"
		} else if t.QueueNote != "" {
			s += ", " + t.QueueNote
		}
		s += fmt.Sprintf(": %d of %d delivered, %d dropped at the queue", t.Delivered, t.Sent, t.QueueDrops)
		if t.Lost > 0 {
			s += fmt.Sprintf(", %d lost", t.Lost)
		}
		if !rm.Checked {
			s += " (informational)"
		}
		notes = append(notes, s)
	}
	lc.Note = strings.Join(notes, "; ")
}

func measured(rep *CheckReport, name string) Measurement {
	for _, m := range rep.Measurements {
		if m.Name == name {
			return m
		}
	}
	return Measurement{}
}

// ---- the client side ----

// checkBursts measures each rate-limited direction with one burst train
// and appends the rate and queue measurements. The two trains overlap
// (sendTrains) and the service's side of both comes back in one round trip
// at the end. A direction whose judged values fail gets a second train (a
// sender descheduled in the middle of a burst on a loaded host lets the
// link drain meanwhile), and the second train's values stand.
func (tb *Testbed) checkBursts(ctx context.Context, ctl *probeConn, rep *CheckReport) error {
	if tb.emu == nil {
		return nil
	}
	var plans []burstPlan
	for _, d := range []struct {
		name string
		cfg  link.DirConfig
	}{{"down", tb.dirs.down}, {"up", tb.dirs.up}} {
		if plan, ok := planBurst(d.name, d.cfg); ok {
			plans = append(plans, plan)
		}
	}
	trains, err := tb.sendTrains(ctx, ctl.addr, plans)
	if err != nil {
		return err
	}
	sts, err := ctl.stats(trains)
	if err != nil {
		return err
	}
	for i, pt := range trains {
		res := pt.finish(sts[i])
		ms := burstMeasurements(pt.plan, res)
		if len(failed(ms)) > 0 {
			again, err := tb.sendTrain(ctx, ctl.addr, pt.plan, nil)
			if err != nil {
				return err
			}
			st, err := ctl.stats([]*pendingTrain{again})
			if err != nil {
				return err
			}
			res = again.finish(st[0])
			res.repeated = true
			ms = burstMeasurements(pt.plan, res)
		}
		rep.Measurements = append(rep.Measurements, ms...)
		rep.Bursts = append(rep.Bursts, res.train(pt.plan))
	}
	return nil
}

var trainSeq atomic.Uint64

// pendingTrain is a train that has crossed the link, waiting for the
// service's side of it.
type pendingTrain struct {
	plan burstPlan
	id   uint64
	res  burstResult // sent and sendSpan (uplink), the emulator's counters
	got  arrivals    // what the client received (downlink)
	want int         // uplink packets the emulator delivered to the service
}

// sendTrains sends the trains of plans (a downlink one first, an uplink
// one second). With both they overlap, for the directions share nothing but
// the hosts: the uplink train starts as soon as the downlink's trigger has
// crossed the uplink, while the downlink train is still on its way.
func (tb *Testbed) sendTrains(ctx context.Context, addr string, plans []burstPlan) ([]*pendingTrain, error) {
	if len(plans) < 2 {
		var out []*pendingTrain
		for _, p := range plans {
			pt, err := tb.sendTrain(ctx, addr, p, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, pt)
		}
		return out, nil
	}
	triggered := make(chan probe.LinkCounters, 1)
	downDone := make(chan struct{})
	var down *pendingTrain
	var downErr error
	go func() {
		defer close(downDone)
		down, downErr = tb.sendTrain(ctx, addr, plans[0], triggered)
	}()
	var upErr error
	var up *pendingTrain
	select {
	case before := <-triggered:
		upErr = tb.waitCrossed(ctx, before)
	case <-downDone:
	}
	if upErr == nil {
		up, upErr = tb.sendTrain(ctx, addr, plans[1], nil)
	}
	<-downDone
	if err := errors.Join(downErr, upErr); err != nil {
		return nil, err
	}
	return []*pendingTrain{down, up}, nil
}

// waitCrossed waits (at most a second more than the uplink delay) until a
// packet has reached the uplink since before and nothing is in flight there.
func (tb *Testbed) waitCrossed(ctx context.Context, before probe.LinkCounters) error {
	_, u := oneWayDelays(tb.cfg.Link)
	end := time.Now().Add(u + time.Second)
	for time.Now().Before(end) {
		c := dirOf(diffCounters(tb.Counters(), before), "up")
		if c.PktsOffered > 0 && settled(c) {
			return nil
		}
		if err := ctxtime.Sleep(ctx, time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// sendTrain sends one train in p's direction to the service at addr once
// the direction is quiet, and waits until the emulator has none of it in
// flight. A downlink train hands triggered (when not nil) the counters from
// just before its trigger left.
func (tb *Testbed) sendTrain(ctx context.Context, addr string, p burstPlan, triggered chan<- probe.LinkCounters) (*pendingTrain, error) {
	sock, err := tb.trainSocket()
	if err != nil {
		return nil, err
	}
	defer sock.Close()
	stop := context.AfterFunc(ctx, func() { sock.Close() })
	defer stop()
	dst, err := net.ResolveUDPAddr("udp4", addr)
	if err != nil {
		return nil, err
	}
	if err := tb.waitQuiet(ctx, p.dir); err != nil {
		return nil, err
	}
	before := tb.Counters()
	pt := &pendingTrain{plan: p, id: uint64(time.Now().UnixNano()) + trainSeq.Add(1)}
	if p.dir == "down" {
		if triggered != nil {
			triggered <- before
		}
		pt.got, err = tb.burstDown(ctx, sock, dst, pt.id, p, before)
	} else {
		pt.res.sent, pt.res.sendSpan, err = tb.burstUp(ctx, sock, dst, pt.id, p, before)
	}
	if err != nil {
		return nil, err
	}
	pt.res.link = dirOf(diffCounters(tb.Counters(), before), p.dir)
	if p.dir == "up" {
		pt.res.others = max(int(pt.res.link.PktsOffered)-pt.res.sent, 0)
		pt.want = min(p.n, max(int(pt.res.link.PktsDelivered)-pt.res.others, 0))
	}
	return pt, nil
}

// finish completes the train's result with the service's side of it.
func (pt *pendingTrain) finish(st trainStat) burstResult {
	res, got := pt.res, pt.got
	if pt.plan.dir == "down" {
		res.sent, res.sendSpan = st.sent, st.sendSpan
		res.others = max(int(res.link.PktsOffered)-res.sent, 0)
	} else {
		got = st.arrivals
	}
	res.delivered, res.span, res.kernel = got.count, got.last.Sub(got.first), got.count > 0 && !got.userTime
	return res
}

// burstDown asks the service for a downlink train and receives it until
// the emulator has nothing of it left in flight. A trigger lost on the way
// up (random loss) is sent once more.
func (tb *Testbed) burstDown(ctx context.Context, sock *net.UDPConn, dst *net.UDPAddr, id uint64, p burstPlan, before probe.LinkCounters) (arrivals, error) {
	trigger := make([]byte, burstHeader+2)
	binary.BigEndian.PutUint64(trigger, id)
	trigger[8] = kindTrigger
	binary.BigEndian.PutUint32(trigger[9:], uint32(p.n))
	binary.BigEndian.PutUint16(trigger[13:], uint16(p.wire-udpOverhead))
	d, u := oneWayDelays(tb.cfg.Link)
	gap := drainTime(1, p.wire, p.rateBps)
	idle := max(5*time.Millisecond, 2*gap)
	hard := time.Now().Add(2*(d+u+250*time.Millisecond) + 3*drainTime(p.n, p.wire, p.rateBps) + time.Second)
	var got arrivals
	var sentAt, settledAt time.Time
	tries := 0
	buf, oob := make([]byte, 2048), make([]byte, 128)
	for {
		if sentAt.IsZero() || got.count == 0 && tries < 2 && time.Since(sentAt) > d+u+250*time.Millisecond && !tb.offered(before, "down") {
			if _, err := sock.WriteToUDP(trigger, dst); err != nil {
				return got, fmt.Errorf("netem: check: burst trigger: %w", err)
			}
			sentAt = time.Now()
			tries++
		}
		deadline := time.Now().Add(idle)
		if got.count == 0 {
			deadline = later(deadline, sentAt.Add(d+u+gap+5*time.Millisecond))
		}
		sock.SetReadDeadline(earlier(deadline, hard))
		n, _, at, err := readStamped(sock, buf, oob)
		if err == nil {
			if n >= burstHeader && binary.BigEndian.Uint64(buf) == id && buf[8] == kindDown {
				got.add(at)
			}
			continue
		}
		if ctx.Err() != nil {
			return got, ctx.Err()
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return got, fmt.Errorf("netem: check: receiving a burst: %w", err)
		}
		if !time.Now().Before(hard) {
			return got, nil
		}
		c := dirOf(diffCounters(tb.Counters(), before), "down")
		if !settled(c) || c.PktsOffered < uint64(p.n) {
			continue
		}
		// Everything the emulator had is delivered; the last packets may
		// still be on their way up the client's stack.
		if got.count >= int(c.PktsDelivered)-max(int(c.PktsOffered)-p.n, 0) {
			return got, nil
		}
		if settledAt.IsZero() {
			settledAt = time.Now()
		} else if time.Since(settledAt) > 50*time.Millisecond {
			return got, nil
		}
	}
}

// burstUp writes an uplink train and waits until the emulator has nothing
// of it left in flight.
func (tb *Testbed) burstUp(ctx context.Context, sock *net.UDPConn, dst *net.UDPAddr, id uint64, p burstPlan, before probe.LinkCounters) (int, time.Duration, error) {
	pkt := make([]byte, p.wire-udpOverhead)
	binary.BigEndian.PutUint64(pkt, id)
	pkt[8] = kindUp
	var first, last time.Time
	for i := range p.n {
		binary.BigEndian.PutUint32(pkt[9:], uint32(i))
		if _, err := sock.WriteToUDP(pkt, dst); err != nil {
			return i, 0, fmt.Errorf("netem: check: burst: %w", err)
		}
		last = time.Now()
		if i == 0 {
			first = last
		}
	}
	expect := p.n
	if p.fills {
		expect = p.queue + 1
	}
	_, u := oneWayDelays(tb.cfg.Link)
	drain := drainTime(expect, p.wire, p.rateBps)
	hard := last.Add(u + 3*drain + time.Second)
	if err := ctxtime.Sleep(ctx, time.Until(last.Add(u+drain*9/10))); err != nil {
		return p.n, 0, err
	}
	poll := max(time.Millisecond, drainTime(1, p.wire, p.rateBps)/2)
	for time.Now().Before(hard) {
		c := dirOf(diffCounters(tb.Counters(), before), "up")
		if settled(c) && c.PktsOffered >= uint64(p.n) {
			break
		}
		if err := ctxtime.Sleep(ctx, poll); err != nil {
			return p.n, 0, err
		}
	}
	return p.n, last.Sub(first), nil
}

// waitQuiet waits (at most a second) until the emulator has no packet in
// flight in dir, so a train starts on an empty link.
func (tb *Testbed) waitQuiet(ctx context.Context, dir string) error {
	end := time.Now().Add(time.Second)
	for time.Now().Before(end) {
		if settled(dirOf(tb.Counters(), dir)) {
			return nil
		}
		if err := ctxtime.Sleep(ctx, time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// offered reports whether the emulator has seen any packet in dir since before.
func (tb *Testbed) offered(before probe.LinkCounters, dir string) bool {
	return dirOf(diffCounters(tb.Counters(), before), dir).PktsOffered > 0
}

func settled(d probe.LinkDir) bool {
	return d.PktsDelivered+d.PktsLost+d.PktsQueueDrop >= d.PktsOffered
}

func dirOf(c probe.LinkCounters, dir string) probe.LinkDir {
	if dir == "down" {
		return c.Down
	}
	return c.Up
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// trainSocket is a UDP socket on the client for one train.
func (tb *Testbed) trainSocket() (*net.UDPConn, error) {
	pc, err := tb.client.ListenPacket("udp4", net.JoinHostPort(tb.client.Addr.String(), "0"))
	if err != nil {
		return nil, fmt.Errorf("netem: check: %w", err)
	}
	c := pc.(*net.UDPConn)
	prepareTrainSocket(c)
	return c, nil
}

// prepareTrainSocket asks for kernel receive timestamps and a receive
// buffer that holds a whole train even when the reader falls behind.
// Both are best effort: without timestamps arrivals are stamped on read.
func prepareTrainSocket(c *net.UDPConn) {
	sc, err := c.SyscallConn()
	if err != nil {
		return
	}
	forced := false
	_ = sc.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		forced = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 4<<20) == nil
	})
	if !forced {
		_ = c.SetReadBuffer(4 << 20)
	}
}

// stamp is an arrival time: the kernel's receive timestamp when the
// socket delivered one, else the time of the read.
type stamp struct {
	at     time.Time
	kernel bool
}

func readStamped(c *net.UDPConn, buf, oob []byte) (int, *net.UDPAddr, stamp, error) {
	n, oobn, _, from, err := c.ReadMsgUDP(buf, oob)
	if err != nil {
		return 0, nil, stamp{}, err
	}
	if ns := ReceiveTimestamp(oob[:oobn]); ns != 0 {
		return n, from, stamp{time.Unix(0, ns), true}, nil
	}
	return n, from, stamp{time.Now(), false}, nil
}

// ReceiveTimestamp extracts the kernel's receive time (SCM_TIMESTAMPNS, ns
// since the epoch) from a datagram's control messages, 0 if none: the link
// check's bursts and bench/link's pings both read it.
func ReceiveTimestamp(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			return int64(binary.NativeEndian.Uint64(m.Data[0:8]))*1e9 + int64(binary.NativeEndian.Uint64(m.Data[8:16]))
		}
	}
	return 0
}

// arrivals counts a train's packets at its receiver.
type arrivals struct {
	count       int
	first, last time.Time
	userTime    bool // some arrival had no kernel timestamp
}

func (a *arrivals) add(s stamp) {
	if a.count == 0 {
		a.first = s.at
	}
	a.last = s.at
	a.count++
	a.userTime = a.userTime || !s.kernel
}

// trainStat is the service's answer to STAT.
type trainStat struct {
	arrivals               // uplink trains: what arrived
	sent     int           // downlink trains: packets written
	sendSpan time.Duration // ... first to last write
}

// stats asks the service what it saw of each train (one request each,
// written together: one round trip), each answer once it has read the
// train's wanted packets.
func (pc *probeConn) stats(trains []*pendingTrain) ([]trainStat, error) {
	if len(trains) == 0 {
		return nil, nil
	}
	var req strings.Builder
	for _, pt := range trains {
		fmt.Fprintf(&req, "STAT %d %d\n", pt.id, pt.want)
	}
	if err := pc.ask(req.String()); err != nil {
		return nil, fmt.Errorf("netem: check: burst statistics: %w", err)
	}
	out := make([]trainStat, len(trains))
	for i := range out {
		line, err := pc.r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("netem: check: burst statistics: %w", err)
		}
		var first, last, span int64
		var kernel bool
		st := &out[i]
		if _, err := fmt.Sscan(line, &st.count, &first, &last, &kernel, &st.sent, &span); err != nil {
			return nil, fmt.Errorf("netem: check: burst statistics %q: %w", strings.TrimSpace(line), err)
		}
		st.first, st.last, st.userTime, st.sendSpan = time.Unix(0, first), time.Unix(0, last), !kernel, time.Duration(span)
	}
	return out, nil
}

// ---- the service side ----

// trainRecord is what the service knows of one burst train until STAT
// collects it.
type trainRecord struct {
	arrivals
	sending  bool
	sent     int
	sendSpan time.Duration
}

// burstPacket handles a burst train's datagram; false for anything else.
func (ps *probeService) burstPacket(pkt []byte, from *net.UDPAddr, at stamp) bool {
	if len(pkt) < burstHeader {
		return false
	}
	id := binary.BigEndian.Uint64(pkt)
	switch pkt[8] {
	case kindUp:
		ps.mu.Lock()
		rec := ps.trains[id]
		if rec == nil {
			rec = &trainRecord{}
			ps.trains[id] = rec
		}
		rec.add(at)
		ps.mu.Unlock()
	case kindTrigger:
		if len(pkt) < burstHeader+2 {
			return true
		}
		n, size := int(binary.BigEndian.Uint32(pkt[9:])), int(binary.BigEndian.Uint16(pkt[13:]))
		if n < 1 || n > burstMaxPkts || size < burstHeader || size > burstMaxWire-udpOverhead {
			return true
		}
		ps.mu.Lock()
		_, seen := ps.trains[id] // a repeated trigger
		if !seen {
			ps.trains[id] = &trainRecord{sending: true}
			ps.wg.Add(1)
			go ps.sendBurst(id, n, size, from)
		}
		ps.mu.Unlock()
	default:
		return false
	}
	return true
}

// sendBurst writes n packets of size bytes back to back to the client.
func (ps *probeService) sendBurst(id uint64, n, size int, to *net.UDPAddr) {
	defer ps.wg.Done()
	pkt := make([]byte, size)
	binary.BigEndian.PutUint64(pkt, id)
	pkt[8] = kindDown
	var first, last time.Time
	sent := 0
	for i := range n {
		binary.BigEndian.PutUint32(pkt[9:], uint32(i))
		if _, err := ps.pc.WriteToUDP(pkt, to); err != nil {
			if errors.Is(err, net.ErrClosed) {
				break
			}
			continue
		}
		last = time.Now()
		if sent == 0 {
			first = last
		}
		sent++
	}
	ps.mu.Lock()
	if rec := ps.trains[id]; rec != nil {
		rec.sending, rec.sent, rec.sendSpan = false, sent, last.Sub(first)
	}
	ps.mu.Unlock()
}

// stat answers "STAT <id> <want>" with "<arrived> <first ns> <last ns>
// <kernel timestamps> <sent> <send span ns>" once want packets of the train
// arrived and any downlink burst is written (or after 250 ms), and forgets
// the train.
func (ps *probeService) stat(w io.Writer, arg string) error {
	f := strings.Fields(arg)
	if len(f) != 2 {
		return errors.New("STAT wants an id and a count")
	}
	id, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return err
	}
	want, err := strconv.Atoi(f[1])
	if err != nil {
		return err
	}
	var rec trainRecord
	for end := time.Now().Add(250 * time.Millisecond); ; {
		ps.mu.Lock()
		r := ps.trains[id]
		ready := r != nil && r.count >= want && !r.sending
		if ready || !time.Now().Before(end) {
			if r != nil {
				rec = *r
			}
			delete(ps.trains, id)
			ps.mu.Unlock()
			break
		}
		ps.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	var first, last int64
	if rec.count > 0 {
		first, last = rec.first.UnixNano(), rec.last.UnixNano()
	}
	_, err = fmt.Fprintf(w, "%d %d %d %t %d %d\n", rec.count, first, last, !rec.userTime, rec.sent, rec.sendSpan.Nanoseconds())
	return err
}
