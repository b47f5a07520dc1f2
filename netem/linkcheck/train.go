package linkcheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/ctxtime"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// The client side of the burst trains.

// checkBursts measures each rate-limited direction with one burst train
// and appends the rate and queue measurements. The two trains overlap
// (sendTrains) and the service's side of both comes back in one round trip
// at the end. A direction whose judged values fail gets a second train (a
// sender descheduled in the middle of a burst on a loaded host lets the
// link drain meanwhile), and the second train's values stand.
func (tb *checker) checkBursts(ctx context.Context, ctl *probeConn, rep *Report) error {
	if !tb.emulated {
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
func (tb *checker) sendTrains(ctx context.Context, addr string, plans []burstPlan) ([]*pendingTrain, error) {
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
func (tb *checker) waitCrossed(ctx context.Context, before probe.LinkCounters) error {
	_, u := tb.oneWayDelays()
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
func (tb *checker) sendTrain(ctx context.Context, addr string, p burstPlan, triggered chan<- probe.LinkCounters) (*pendingTrain, error) {
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
func (tb *checker) burstDown(ctx context.Context, sock *net.UDPConn, dst *net.UDPAddr, id uint64, p burstPlan, before probe.LinkCounters) (arrivals, error) {
	trigger := make([]byte, burstHeader+2)
	binary.BigEndian.PutUint64(trigger, id)
	trigger[8] = kindTrigger
	binary.BigEndian.PutUint32(trigger[9:], uint32(p.n))
	binary.BigEndian.PutUint16(trigger[13:], uint16(p.wire-udpOverhead))
	d, u := tb.oneWayDelays()
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
func (tb *checker) burstUp(ctx context.Context, sock *net.UDPConn, dst *net.UDPAddr, id uint64, p burstPlan, before probe.LinkCounters) (int, time.Duration, error) {
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
	_, u := tb.oneWayDelays()
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
func (tb *checker) waitQuiet(ctx context.Context, dir string) error {
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
func (tb *checker) offered(before probe.LinkCounters, dir string) bool {
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
func (tb *checker) trainSocket() (*net.UDPConn, error) {
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
