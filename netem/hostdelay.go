package netem

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"
)

// This file gives hosts of Config.Names their own distance: an extra
// round trip (Config.HostDelays) added to every packet toward the host
// after the uplink pipe, on the server side of the bottleneck. TCP sees
// it in each round trip (handshake, requests, ACK clocking) while the
// access link (rate, queue, loss, rtt) stays the one shared link; the
// whole extra round trip sits on the way in, so the downlink's queue and
// rate are unchanged.

// MaxHostDelay bounds one host's extra round trip.
const MaxHostDelay = 10 * time.Second

// hostDelayLineCap is how many packets one delay line holds; more are
// dropped (counted as a queue would) rather than stalling the uplink.
const hostDelayLineCap = 8192

// validateHostDelays checks Config.HostDelays against Config.Names.
func validateHostDelays(delays map[string]time.Duration, names []string) error {
	for n, d := range delays {
		if !slices.ContainsFunc(names, func(x string) bool { return canonicalName(x) == canonicalName(n) }) {
			return fmt.Errorf("netem: host delay for %q, which is not one of the testbed's host names", n)
		}
		if d < 0 || d > MaxHostDelay {
			return fmt.Errorf("netem: host delay %v for %s out of range 0..%v", d, n, MaxHostDelay)
		}
	}
	return nil
}

// hostDelayAddrs maps each delayed site's address to its extra round trip
// (sites' addresses are fixed by their place in Names: siteAddr).
func hostDelayAddrs(cfg *Config) map[netip.Addr]time.Duration {
	if len(cfg.HostDelays) == 0 {
		return nil
	}
	byName := map[string]time.Duration{}
	for n, d := range cfg.HostDelays {
		byName[canonicalName(n)] = d
	}
	out := map[netip.Addr]time.Duration{}
	for k, n := range cfg.Names {
		if d := byName[canonicalName(n)]; d > 0 {
			_, a := siteAddr(k, cfg.Shards)
			out[a] = d
		}
	}
	return out
}

// hostDelays holds packets toward delayed addresses: one FIFO line per
// distinct delay, so a host's packets keep their order.
type hostDelays struct {
	byAddr map[[4]byte]*delayLine
	lines  []*delayLine
}

type delayLine struct {
	d       time.Duration
	ch      chan delayedPkt
	stop    chan struct{} // closed by close: pending packets are dropped
	done    chan struct{}
	dropped atomic.Int64 // per-shard links: several pipes deliver at once
}

type delayedPkt struct {
	due time.Time
	pkt []byte
}

// newHostDelays starts a line per distinct delay, each writing its
// packets with write when they are due (nil when addrs is empty).
func newHostDelays(addrs map[netip.Addr]time.Duration, write func([]byte) error) *hostDelays {
	if len(addrs) == 0 {
		return nil
	}
	h := &hostDelays{byAddr: map[[4]byte]*delayLine{}}
	byDelay := map[time.Duration]*delayLine{}
	for a, d := range addrs {
		l := byDelay[d]
		if l == nil {
			l = &delayLine{d: d, ch: make(chan delayedPkt, hostDelayLineCap), stop: make(chan struct{}), done: make(chan struct{})}
			byDelay[d] = l
			h.lines = append(h.lines, l)
			go l.run(write)
		}
		h.byAddr[a.As4()] = l
	}
	return h
}

func (l *delayLine) run(write func([]byte) error) {
	defer close(l.done)
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for {
		var p delayedPkt
		select {
		case <-l.stop:
			return
		case p = <-l.ch:
		}
		if wait := time.Until(p.due); wait > 0 {
			t.Reset(wait)
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
		}
		_ = write(p.pkt) // a closed TUN at teardown; the pipe's own writes report errors
	}
}

// deliver sends pkt on (write) now, or through its destination's line.
func (h *hostDelays) deliver(pkt []byte, write func([]byte) error) error {
	if h == nil || len(pkt) < 20 || pkt[0]>>4 != 4 {
		return write(pkt)
	}
	l := h.byAddr[[4]byte(pkt[16:20])]
	if l == nil {
		return write(pkt)
	}
	select {
	case l.ch <- delayedPkt{due: time.Now().Add(l.d), pkt: slices.Clone(pkt)}:
	default:
		l.dropped.Add(1)
	}
	return nil
}

// close stops the lines after the pipes have stopped feeding them;
// packets still in a line are dropped (the testbed is going away).
func (h *hostDelays) close() error {
	if h == nil {
		return nil
	}
	var errs []error
	for _, l := range h.lines {
		close(l.stop)
		<-l.done
		if n := l.dropped.Load(); n > 0 {
			errs = append(errs, fmt.Errorf("netem: the %v host delay line dropped %d packets (more than %d in flight)", l.d, n, hostDelayLineCap))
		}
	}
	return errors.Join(errs...)
}
