package link

import "time"

// bottleneck decides, at the instant a packet arrives, when the packet will
// start and finish being serialised onto the link and whether the droptail
// queue refuses it. Because the whole future of a FIFO link is known at
// arrival, the rate and the queue are exact whatever the precision of the
// timers that later release the packet; only the delay line has to sleep
// precisely.
//
// All times are nanoseconds on one monotonic clock; the caller passes them
// in, which keeps this type free of clocks and goroutines.
type bottleneck struct {
	rateBps   int64  // 0 = unlimited (when trace is nil)
	trace     *Trace // Mahimahi schedule instead of a rate
	traceBase int64  // the instant the trace's offset 0 refers to

	limitPkts  int // droptail limits on packets waiting; 0 = none
	limitBytes int

	// Packets accepted but not yet started on the link, oldest first. Their
	// start times are non-decreasing, so expiring them is popping the front.
	waiting      []waitingPkt
	waitingHead  int
	waitingBytes int

	// Fixed-rate link: when the last accepted packet finishes, with the
	// sub-nanosecond remainder kept as a fraction numerator over rateBps so
	// long runs do not drift.
	linkFree     int64
	linkFreeFrac int64

	// Trace link: the opportunity that finished the last accepted packet and
	// the bytes it had left over for the next one.
	lastOpp  int64 // -1 before the first packet
	leftover int
}

type waitingPkt struct {
	start int64
	size  int
}

// verdict is what happens to one arriving packet.
type verdict struct {
	accepted bool
	start    int64 // transmission starts (first byte on the wire)
	finish   int64 // transmission ends (last byte on the wire)
	queued   int   // packets waiting ahead of this one when it arrived
}

func newBottleneck(rateBps int64, trace *Trace, traceBase int64, limitPkts, limitBytes int) *bottleneck {
	return &bottleneck{rateBps: rateBps, trace: trace, traceBase: traceBase,
		limitPkts: limitPkts, limitBytes: limitBytes, lastOpp: -1}
}

// unlimited reports whether packets pass without serialisation delay.
func (b *bottleneck) unlimited() bool { return b.trace == nil && b.rateBps <= 0 }

// expire forgets waiting packets whose transmission has started by now.
func (b *bottleneck) expire(now int64) {
	for b.waitingHead < len(b.waiting) && b.waiting[b.waitingHead].start <= now {
		b.waitingBytes -= b.waiting[b.waitingHead].size
		b.waitingHead++
	}
	if b.waitingHead == len(b.waiting) {
		b.waiting, b.waitingHead = b.waiting[:0], 0
	} else if b.waitingHead > 1024 && b.waitingHead*2 > len(b.waiting) {
		// Compact so the slice does not grow without bound under load.
		n := copy(b.waiting, b.waiting[b.waitingHead:])
		b.waiting, b.waitingHead = b.waiting[:n], 0
	}
}

// queueLen is the number of packets waiting (not yet on the wire) at now.
func (b *bottleneck) queueLen(now int64) int {
	b.expire(now)
	return len(b.waiting) - b.waitingHead
}

// arrive schedules a packet of size bytes arriving at now. Arrivals must be
// passed in non-decreasing time order.
func (b *bottleneck) arrive(now int64, size int) verdict {
	if b.unlimited() {
		return verdict{accepted: true, start: now, finish: now}
	}
	b.expire(now)
	queued := len(b.waiting) - b.waitingHead
	if b.limitPkts > 0 && queued >= b.limitPkts ||
		b.limitBytes > 0 && b.waitingBytes+size > b.limitBytes {
		return verdict{queued: queued}
	}
	var start, finish int64
	if b.trace != nil {
		start, finish = b.arriveTrace(now, size)
	} else {
		start, finish = b.arriveRate(now, size)
	}
	if start > now {
		b.waiting = append(b.waiting, waitingPkt{start: start, size: size})
		b.waitingBytes += size
	}
	return verdict{accepted: true, start: start, finish: finish, queued: queued}
}

func (b *bottleneck) arriveRate(now int64, size int) (start, finish int64) {
	// The link is free at linkFree + linkFreeFrac/rateBps.
	base, frac := b.linkFree, b.linkFreeFrac
	if now > base || now == base && frac == 0 {
		base, frac = now, 0
	}
	start = base
	if frac > 0 {
		start++ // the first whole nanosecond at which the link is free
	}
	num := frac + int64(size)*8*int64(time.Second)
	finish = base + num/b.rateBps
	b.linkFree, b.linkFreeFrac = finish, num%b.rateBps
	return start, finish
}

// arriveTrace follows Mahimahi's link_queue: opportunities are consumed in
// order by the packets in the queue; a packet may span several
// opportunities; bytes an opportunity has left after finishing a packet go
// to the next packet only if that packet is already queued at that instant;
// opportunities that find the queue empty are wasted.
func (b *bottleneck) arriveTrace(now int64, size int) (start, finish int64) {
	t := b.trace
	var cur int64
	budget := OpportunityBytes
	if b.lastOpp >= 0 && b.traceBase+t.oppTime(b.lastOpp) > now {
		// The link is still busy with earlier packets at now.
		cur = b.lastOpp
		if b.leftover > 0 {
			budget = b.leftover
		} else {
			cur++
		}
	} else {
		cur = t.firstOppAfter(now - b.traceBase)
	}
	start = b.traceBase + t.oppTime(cur)
	need := size
	for need > budget {
		need -= budget
		cur++
		budget = OpportunityBytes
	}
	b.lastOpp, b.leftover = cur, budget-need
	return start, b.traceBase + t.oppTime(cur)
}
