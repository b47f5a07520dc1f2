package linkcheck

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
	"fmt"
	"math"
	"strings"
	"time"

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
func fillLinkCheck(lc *probe.LinkCheck, rep *Report) {
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

func measured(rep *Report, name string) Measurement {
	for _, m := range rep.Measurements {
		if m.Name == name {
			return m
		}
	}
	return Measurement{}
}
