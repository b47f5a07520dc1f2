package link

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// MaxDelay bounds the one-way delay a pipe accepts; the longest study RTT
// is a few seconds (GEO satellite), far inside it.
const MaxDelay = 30 * time.Second

// DirConfig is one direction of an emulated link.
type DirConfig struct {
	RateBps    int64         // 0 = unlimited (ignored when Trace != nil)
	Trace      *Trace        // Mahimahi delivery trace (ms timestamps, 1500-byte opportunities, wraps)
	Delay      time.Duration // one-way propagation delay
	QueuePkts  int           // droptail limits on packets waiting; both 0 = unlimited
	QueueBytes int
	Loss       float64         // Bernoulli probability
	GE         *GilbertElliott // bursty loss instead of Loss
	Seed       int64           // loss RNG seed (mixed with the pipe's name)
	// Log, when set, receives one line per packet arriving at the pipe:
	//   <ms since Start> <pipe> <bytes> <pass|drop|loss> <packets queued ahead> <queueing ms>
	// It is written synchronously on the arrival path through a 64 KiB
	// buffer that is flushed on Close.
	Log io.Writer
}

func (c *DirConfig) validate() error {
	switch {
	case c.RateBps < 0:
		return fmt.Errorf("rate %d bit/s is negative", c.RateBps)
	case c.Delay < 0 || c.Delay > MaxDelay:
		return fmt.Errorf("delay %v is outside 0..%v", c.Delay, MaxDelay)
	case c.QueuePkts < 0 || c.QueueBytes < 0:
		return fmt.Errorf("queue limit %d packets / %d bytes is negative", c.QueuePkts, c.QueueBytes)
	case math.IsNaN(c.Loss) || c.Loss < 0 || c.Loss > 1:
		return fmt.Errorf("loss probability %v is outside 0..1", c.Loss)
	case c.GE != nil && c.Loss > 0:
		return fmt.Errorf("both Bernoulli loss (%v) and a Gilbert-Elliott model are set; choose one", c.Loss)
	}
	if c.GE != nil {
		if err := c.GE.Validate(); err != nil {
			return fmt.Errorf("Gilbert-Elliott model: %v", err)
		}
	}
	if c.Trace != nil && c.Trace.Len() == 0 {
		return fmt.Errorf("trace %s is empty", c.Trace.Name)
	}
	return nil
}

// Pipe is one direction of an emulated link: random loss, then a droptail
// queue in front of a fixed-rate or trace-driven serialiser, then a
// constant propagation delay. Enqueue is safe for concurrent use; deliver
// is called from the pipe's own delay-line thread, one packet at a time and
// in arrival order.
type Pipe struct {
	name    string
	cfg     DirConfig
	deliver func(pkt []byte) error
	// inline: no rate, no trace, no delay: packets are delivered straight
	// from Enqueue without a thread hop.
	inline bool

	mu      sync.Mutex
	state   int // pipeNew, pipeRunning, pipeClosed
	started int64
	bn      *bottleneck
	loss    *lossModel
	log     *bufio.Writer
	logLine []byte
	ring    ring
	ctr     counters
	qdelay  histogram
	late    histogram // delivery time minus scheduled time
	rtErr   error
	lastArr int64

	inflight sync.WaitGroup // inline deliveries under way, awaited by Close

	wake uint32 // futex word: bumped on Close and when the ring becomes non-empty
	done chan struct{}

	spinNs      atomic.Int64 // time the delay line spent spinning (CPU cost of precision)
	deliverErrs atomic.Uint64
	lastErr     atomic.Value // error
}

const (
	pipeNew = iota
	pipeRunning
	pipeClosed
)

type counters struct {
	pktsOffered, bytesOffered     uint64
	pktsDelivered, bytesDelivered uint64
	pktsQueueDrop, pktsLost       uint64
}

// NewPipe checks cfg and returns a stopped pipe; Start starts it. deliver
// receives each packet when it leaves the far end of the link; it must not
// keep pkt after returning (the buffer is reused). A deliver error is
// counted (DeliverErrors) and the packet is treated as delivered by the link.
func NewPipe(name string, cfg DirConfig, deliver func(pkt []byte) error) (*Pipe, error) {
	if deliver == nil {
		return nil, fmt.Errorf("link %s: deliver callback is nil", name)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("link %s: %v", name, err)
	}
	p := &Pipe{name: name, cfg: cfg, deliver: deliver, done: make(chan struct{})}
	p.inline = cfg.Trace == nil && cfg.RateBps == 0 && cfg.Delay == 0
	p.loss = newLossModel(name, cfg.Seed, cfg.Loss, cfg.GE)
	if cfg.Log != nil {
		p.log = bufio.NewWriterSize(cfg.Log, 64<<10)
	}
	return p, nil
}

// Name is the name given to NewPipe.
func (p *Pipe) Name() string { return p.name }

// Config is the configuration the pipe runs with.
func (p *Pipe) Config() DirConfig { return p.cfg }

// Start starts the delay line. A trace's time zero is the moment of Start.
// Packets enqueued before Start or after Close are discarded uncounted.
func (p *Pipe) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case pipeRunning:
		return fmt.Errorf("link %s: already started", p.name)
	case pipeClosed:
		return fmt.Errorf("link %s: closed", p.name)
	}
	p.started = monoNow()
	p.lastArr = p.started
	p.bn = newBottleneck(p.cfg.RateBps, p.cfg.Trace, p.started, p.cfg.QueuePkts, p.cfg.QueueBytes)
	p.state = pipeRunning
	if p.inline {
		close(p.done)
		return nil
	}
	ready := make(chan error)
	go p.run(ready)
	p.rtErr = <-ready // run does not touch p.mu until it has reported
	return nil
}

// Close stops the pipe, discarding packets still in flight, and waits for
// the delay-line thread to exit. It is idempotent.
func (p *Pipe) Close() error {
	p.mu.Lock()
	was := p.state
	p.state = pipeClosed
	p.mu.Unlock()
	if was == pipeNew {
		return p.flushLog()
	}
	futexWakeAll(&p.wake)
	<-p.done
	p.inflight.Wait()
	return p.flushLog()
}

func (p *Pipe) flushLog() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.log == nil {
		return nil
	}
	if err := p.log.Flush(); err != nil {
		return fmt.Errorf("link %s: packet log: %w", p.name, err)
	}
	return nil
}

// Enqueue hands the pipe a packet arriving at the bottleneck. The packet is
// copied; the caller may reuse pkt at once.
func (p *Pipe) Enqueue(pkt []byte) {
	if len(pkt) == 0 {
		return
	}
	p.mu.Lock()
	if p.state != pipeRunning {
		p.mu.Unlock()
		return
	}
	now := monoNow()
	// Concurrent callers may read the clock in one order and take the lock
	// in the other; the bottleneck needs non-decreasing arrival times.
	if now < p.lastArr {
		now = p.lastArr
	}
	p.lastArr = now
	size := len(pkt)
	p.ctr.pktsOffered++
	p.ctr.bytesOffered += uint64(size)

	if p.loss.lose() {
		p.ctr.pktsLost++
		p.logPacket(now, size, "loss", p.bn.queueLen(now), 0)
		p.mu.Unlock()
		return
	}
	v := p.bn.arrive(now, size)
	if !v.accepted {
		p.ctr.pktsQueueDrop++
		p.logPacket(now, size, "drop", v.queued, 0)
		p.mu.Unlock()
		return
	}
	sojourn := v.finish - now
	p.qdelay.record(sojourn)
	p.logPacket(now, size, "pass", v.queued, sojourn)

	if p.inline {
		p.ctr.pktsDelivered++
		p.ctr.bytesDelivered += uint64(size)
		p.inflight.Add(1)
		p.mu.Unlock()
		p.callDeliver(pkt)
		p.inflight.Done()
		return
	}
	wasEmpty := p.ring.len() == 0
	p.ring.push(v.finish+int64(p.cfg.Delay), pkt)
	p.mu.Unlock()
	if wasEmpty {
		futexWakeAll(&p.wake)
	}
}

func (p *Pipe) logPacket(now int64, size int, event string, queued int, sojourn int64) {
	if p.log == nil {
		return
	}
	p.logLine = fmt.Appendf(p.logLine[:0], "%.3f %s %d %s %d %.3f\n", float64(now-p.started)/1e6, p.name, size, event, queued, float64(sojourn)/1e6)
	// Hand the writer whole lines only, so pipes sharing one log writer
	// never interleave inside a line.
	if p.log.Available() < len(p.logLine) {
		p.log.Flush()
	}
	p.log.Write(p.logLine)
}

func (p *Pipe) callDeliver(pkt []byte) {
	if err := p.deliver(pkt); err != nil {
		p.deliverErrs.Add(1)
		p.lastErr.Store(err)
	}
}

// Counters returns the counters since Start or the last ResetCounters.
// Packets in flight at a reset are counted as delivered in the new period.
func (p *Pipe) Counters() probe.LinkDir {
	p.mu.Lock()
	defer p.mu.Unlock()
	return probe.LinkDir{
		PktsOffered:    p.ctr.pktsOffered,
		BytesOffered:   p.ctr.bytesOffered,
		PktsDelivered:  p.ctr.pktsDelivered,
		BytesDelivered: p.ctr.bytesDelivered,
		PktsQueueDrop:  p.ctr.pktsQueueDrop,
		PktsLost:       p.ctr.pktsLost,
		QDelayP50ms:    ms(p.qdelay.quantile(0.50)),
		QDelayP95ms:    ms(p.qdelay.quantile(0.95)),
		QDelayP99ms:    ms(p.qdelay.quantile(0.99)),
		QDelayMaxms:    ms(time.Duration(p.qdelay.max)),
		LateP99ms:      ms(p.late.quantile(0.99)),
		LateMaxms:      ms(time.Duration(p.late.max)),
	}
}

// ResetCounters zeroes the counters and both histograms.
func (p *Pipe) ResetCounters() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctr = counters{}
	p.qdelay.reset()
	p.late.reset()
}

// DeliverErrors is how many deliver calls failed, and the last error.
func (p *Pipe) DeliverErrors() (uint64, error) {
	err, _ := p.lastErr.Load().(error)
	return p.deliverErrs.Load(), err
}

// Timing describes how precisely the pipe releases packets: how late each
// packet left compared with its exact scheduled time (since the last
// ResetCounters), and whether the delay-line thread got real-time priority.
type Timing struct {
	RealTime    bool   // the delay-line thread runs SCHED_FIFO
	RealTimeErr string // why not, when RealTime is false
	Packets     uint64 // packets measured
	LateP50     time.Duration
	LateP99     time.Duration
	LateMax     time.Duration
	Spin        time.Duration // CPU time spent spinning before deliveries since Start
}

// Timing reports the delay line's precision.
func (p *Pipe) Timing() Timing {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := Timing{RealTime: p.rtErr == nil && !p.inline && p.state != pipeNew, Packets: p.late.total,
		LateP50: p.late.quantile(0.5), LateP99: p.late.quantile(0.99), LateMax: time.Duration(p.late.max),
		Spin: time.Duration(p.spinNs.Load())}
	if p.rtErr != nil {
		t.RealTimeErr = p.rtErr.Error()
	}
	return t
}

// Spinning after an early wake-up costs CPU, so the delay line wakes at most
// this much before a packet is due, and otherwise learns how late the kernel
// usually wakes it and aims that much early. Samples are clipped before they
// enter the average so that one stall of the whole machine (milliseconds,
// common on a loaded VM) does not make the line spin for the next packets.
const (
	maxEarlyWake  = 100 * time.Microsecond
	initEarlyWake = 20 * time.Microsecond
)

// run is the delay line: it owns a locked OS thread (which exits with the
// goroutine, so its real-time priority never returns to Go's thread pool),
// sleeps until the oldest packet is due and delivers every due packet.
// Delivery times are non-decreasing (a constant delay after a FIFO link), so
// the head of the ring is always the next packet due.
func (p *Pipe) run(ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread dies with us
	defer close(p.done)
	ready <- makeThreadPrecise()

	early := int64(initEarlyWake)
	var batch []slotRef
	for {
		p.mu.Lock()
		if p.state == pipeClosed {
			p.ring.clear()
			p.mu.Unlock()
			return
		}
		seq := atomic.LoadUint32(&p.wake)
		if p.ring.len() == 0 {
			p.mu.Unlock()
			futexWaitUntil(&p.wake, seq, 0)
			continue
		}
		due := p.ring.headTime()
		p.mu.Unlock()

		now := monoNow()
		if due-now > early {
			target := due - early
			if futexWaitUntil(&p.wake, seq, target) {
				// Learn the usual wake-up lateness (clipped EWMA, 1/16 weight).
				lateness := min(monoNow()-target, 2*early+int64(10*time.Microsecond))
				early += (lateness - early) / 16
				early = min(max(early, 0), int64(maxEarlyWake))
			}
			now = monoNow()
		}
		if now < due && due-now <= int64(maxEarlyWake) {
			spinStart := now
			for now < due {
				now = monoNow() // spin the last few microseconds
			}
			p.spinNs.Add(now - spinStart)
		}
		if now < due {
			continue
		}

		p.mu.Lock()
		batch = p.ring.due(now, batch[:0])
		p.mu.Unlock()
		for i := range batch {
			// Lateness is measured at the moment of handing over, so it
			// covers the wake-up and not the deliver callback's own work.
			batch[i].late = monoNow() - batch[i].at
			p.callDeliver(batch[i].pkt)
		}
		p.mu.Lock()
		for i := range batch {
			p.ctr.pktsDelivered++
			p.ctr.bytesDelivered += uint64(len(batch[i].pkt))
			p.late.record(batch[i].late)
		}
		p.ring.pop(len(batch))
		p.mu.Unlock()
	}
}
