package linkcheck

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/netem"
)

// The measurement service on s1.
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

// services maps each server that runs the measurement service to its
// host:port, until its testbed closes.
var services struct {
	sync.Mutex
	addrs map[*netem.Host]string
}

// probeAddr starts the measurement service on server s (once per testbed)
// and returns its address. The testbed's Close stops it.
func (tb *checker) probeAddr(s *netem.Host) (string, error) {
	services.Lock()
	defer services.Unlock()
	if a, ok := services.addrs[s]; ok {
		return a, nil
	}
	addr := s.HostPort(ProbePort)
	if s.Namespace() == "" {
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
	tb.AtClose(func() error {
		services.Lock()
		delete(services.addrs, s)
		services.Unlock()
		return ps.close()
	})
	if services.addrs == nil {
		services.addrs = map[*netem.Host]string{}
	}
	services.addrs[s] = addr
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

// ---- burst trains (burst.go) ----

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
