// Command sctpbench measures SPDY over SCTP against SPDY over plain TCP on
// one emulated link (needs root: it builds netem testbeds):
//
//   - goodput: one session downloads one response at each rate (0% loss),
//     reported as a share of the link rate and as SCTP/TCP;
//
//   - setup: round trips from dialling to the first response byte (the
//     SYN_REPLY) over TCP, SCTP with DATA bundled with COOKIE-ECHO, and SCTP
//     without (lksctp's behaviour).
//
//     go run ./bench/sctp [-rates 1mbit,5mbit,20mbit] [-rtt 100ms] [-seconds 4] [-reps 3] [-only goodput,setup]
//     [-cc rfc2581,htcp] [-bufbdp 4] [-maxburst unlimited,4] [-study=true]
//     [-initcwnd 10] [-cwndburst=false]
//
// The goodput table has TCP, the study's SCTP settings (64 KB buffers) and
// one SCTP row per combination of -cc, -bufbdp and -maxburst. Both ends of
// an SCTP row use its settings (the sender's congestion control and max
// burst are the ones that matter): each row has its own listener.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/spdy"
)

const port = 80

// matrix is the SCTP settings the goodput table compares.
type matrix struct {
	ccs       []string
	bufBDPs   []float64 // send and receive buffers in BDPs (at least minBuffer); bdpPlusQueue = BDP + queue
	maxBursts []int     // sctp.Config.MaxBurst values
	study     bool      // include the study's row (64 KB buffers)
}

func main() {
	rates := flag.String("rates", "1mbit,5mbit,20mbit", "link rates (both directions)")
	rtt := flag.Duration("rtt", 100*time.Millisecond, "link round-trip time")
	seconds := flag.Float64("seconds", 4, "transfer size in seconds of link capacity")
	reps := flag.Int("reps", 3, "repetitions (medians reported)")
	only := flag.String("only", "goodput,setup", "scenarios")
	ccs := flag.String("cc", "rfc2581", "SCTP congestion control modules: "+strings.Join(sctp.CongestionControls, ","))
	bufs := flag.String("bufbdp", "2,4", "SCTP send/receive buffers as multiples of the BDP, or q for BDP + the queue's bytes")
	bursts := flag.String("maxburst", "unlimited,4", "SCTP max burst values (unlimited or packets)")
	study := flag.Bool("study", true, "include the study's SCTP settings (64 KB buffers, unlimited max burst)")
	initCwnd := flag.Int("initcwnd", -1, "usrsctp's initial cwnd in packets for every SCTP row (process-wide sysctl; -1 = keep the stack's 3)")
	cwndBurst := flag.Bool("cwndburst", true, "usrsctp's cwnd-based max burst (process-wide sysctl sctp_use_cwnd_based_maxburst)")
	flag.Parse()
	defer netem.ClosePanicking()
	if err := tune(*initCwnd, *cwndBurst); err != nil {
		fail(err)
	}
	m, err := parseMatrix(*ccs, *bufs, *bursts)
	if err != nil {
		fail(err)
	}
	m.study = *study
	for _, r := range strings.Split(*rates, ",") {
		bps, err := units.ParseRate(r)
		if err != nil {
			fail(err)
		}
		if err := runRate(bps, *rtt, *seconds, *reps, *only, m); err != nil {
			fail(err)
		}
	}
}

// tune sets the process-wide usrsctp settings and prints them.
func tune(initCwnd int, cwndBurst bool) error {
	t := sctp.Tuning()
	if initCwnd >= 0 {
		t.InitialCwnd = initCwnd
	}
	t.CwndBasedMaxBurst = cwndBurst
	if err := sctp.SetTuning(t); err != nil {
		return err
	}
	fmt.Printf("usrsctp: initial cwnd %d packets (capped at max burst), cwnd-based max burst %v\n", t.InitialCwnd, t.CwndBasedMaxBurst)
	return nil
}

func parseMatrix(ccs, bufs, bursts string) (matrix, error) {
	m := matrix{ccs: strings.Split(ccs, ",")}
	for _, cc := range m.ccs {
		if !slices.Contains(sctp.CongestionControls, cc) {
			return m, fmt.Errorf("-cc %q: want one of %v", cc, sctp.CongestionControls)
		}
	}
	for _, b := range strings.Split(bufs, ",") {
		if b == "q" {
			m.bufBDPs = append(m.bufBDPs, bdpPlusQueue)
			continue
		}
		f, err := strconv.ParseFloat(b, 64)
		if err != nil || f <= 0 {
			return m, fmt.Errorf("-bufbdp %q: want a positive number", b)
		}
		m.bufBDPs = append(m.bufBDPs, f)
	}
	for _, b := range strings.Split(bursts, ",") {
		n, err := strconv.Atoi(b)
		switch {
		case b == "unlimited":
			n = sctp.MaxBurstUnlimited
		case err != nil || n <= 0:
			return m, fmt.Errorf("-maxburst %q: want unlimited or a packet count", b)
		}
		m.maxBursts = append(m.maxBursts, n)
	}
	return m, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sctpbench:", err)
	netem.CloseAll()
	os.Exit(1)
}

// transport is one way of carrying the SPDY session.
type transport struct {
	name string
	sctp *sctp.Config // nil = plain TCP
	port int          // the SCTP row's own listener (UDP port on s1)
}

func sctpConfig(buffers int, bundle bool) *sctp.Config {
	return &sctp.Config{RTOMin: 200 * time.Millisecond, SendBuffer: buffers, ReceiveBuffer: buffers,
		MaxBurst: sctp.MaxBurstUnlimited, SACKEveryPacket: true, BundleCookieEcho: bundle}
}

func burstName(n int) string {
	if n == sctp.MaxBurstUnlimited {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

// bdpPlusQueue in matrix.bufBDPs sizes the buffers to the BDP plus the
// link's queue (full packets): the most the path holds without a drop.
const bdpPlusQueue = -1

// minBuffer keeps a row's buffers above the server's 16 KB SPDY frames
// (one message each) with room to spare.
const minBuffer = 24 << 10

// goodputTransports is TCP, the study's SCTP and the matrix's rows.
func goodputTransports(m matrix, bdp, queue int) []transport {
	trs := []transport{{name: "TCP (plain SPDY)"}}
	if m.study {
		trs = append(trs, transport{name: "SCTP, 64 KB buffers (study)", sctp: sctpConfig(64<<10, true)})
	}
	for _, cc := range m.ccs {
		for _, b := range m.bufBDPs {
			for _, mb := range m.maxBursts {
				buf, size := max(int(b*float64(bdp)), minBuffer), fmt.Sprintf("%g BDP", b)
				if b == bdpPlusQueue {
					buf, size = max(bdp+queue*1500, minBuffer), "BDP + queue"
				}
				c := sctpConfig(buf, true)
				c.CongestionControl, c.MaxBurst = cc, mb
				trs = append(trs, transport{name: fmt.Sprintf("SCTP %s, %s (%d KB), max burst %s", cc, size, buf>>10, burstName(mb)), sctp: c})
			}
		}
	}
	return trs
}

func setupTransports() []transport {
	return []transport{{name: "TCP (plain SPDY)"}, {name: "SCTP, DATA bundled with COOKIE-ECHO", sctp: sctpConfig(64<<10, true)}, {name: "SCTP, not bundled (lksctp)", sctp: sctpConfig(64<<10, false)}}
}

func runRate(bps int64, rtt time.Duration, seconds float64, reps int, only string, m matrix) error {
	ctx := context.Background()
	bdp := int(float64(bps) / 8 * rtt.Seconds())
	queue := max(bdp/1500, 20)
	tb, err := netem.New(ctx, netem.Config{Name: "scbench", Shards: 1, Link: probe.Link{DownBps: bps, UpBps: bps, RTT: rtt, QueuePkts: queue, Shared: true}})
	if err != nil {
		return err
	}
	defer tb.Close()
	gp, setup := goodputTransports(m, bdp, queue), setupTransports()
	stop, err := startServers(tb, gp, setup)
	if err != nil {
		return err
	}
	defer stop()
	size := int(float64(bps) / 8 * seconds)
	fmt.Printf("\n## %s, RTT %v, queue %d packets, %d-byte response\n\n", units.FormatRate(bps), rtt, queue, size)
	if strings.Contains(only, "goodput") {
		if err := goodputTable(ctx, tb, gp, bps, size, reps); err != nil {
			return err
		}
	}
	if strings.Contains(only, "setup") {
		return setupTable(ctx, tb, setup, rtt, reps)
	}
	return nil
}

// goodputTable measures the rows interleaved (rep 1 of every row, then rep
// 2, ...), so a change of the host's load spreads over all of them.
func goodputTable(ctx context.Context, tb *netem.Testbed, trs []transport, bps int64, size, reps int) error {
	fmt.Println("| transport | goodput Mbit/s (median) | share of link rate | vs TCP | queue drops (median) | SCTP retransmissions fast / timeout of DATA chunks (last run) | emulator late p99 ms |")
	fmt.Println("|---|---|---|---|---|---|---|")
	runs, drops, late := make([][]float64, len(trs)), make([][]float64, len(trs)), make([][]float64, len(trs))
	retx := make([]string, len(trs))
	for range reps {
		for i, tr := range trs {
			tb.ResetCounters()
			g, err := goodput(ctx, tb, tr, size)
			lc := tb.Counters()
			drops[i] = append(drops[i], float64(lc.Down.PktsQueueDrop))
			late[i] = append(late[i], lc.Down.LateP99ms)
			retx[i] = "-"
			if a := lastServed.Load(); tr.sctp != nil && a != nil {
				c := a.Counters()
				retx[i] = fmt.Sprintf("%d / %d of %d", c.FastRetransmissions, c.TimeoutRetransmissions, c.DataChunksSent)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", tr.name, err)
			}
			runs[i] = append(runs[i], g)
		}
	}
	tcp := median(runs[0])
	for i, tr := range trs {
		g := median(runs[i])
		fmt.Printf("| %s | %.2f | %.1f%% | %.1f%% | %.0f | %s | %.1f |\n", tr.name, g/1e6, 100*g/float64(bps), 100*g/tcp, median(drops[i]), retx[i], median(late[i]))
	}
	return nil
}

func setupTable(ctx context.Context, tb *netem.Testbed, trs []transport, rtt time.Duration, reps int) error {
	fmt.Println("\n| transport | dial to first response byte (median) | round trips |")
	fmt.Println("|---|---|---|")
	for _, tr := range trs {
		var runs []float64
		for range reps {
			d, err := firstByte(ctx, tb, tr)
			if err != nil {
				return fmt.Errorf("%s: %w", tr.name, err)
			}
			runs = append(runs, d.Seconds())
		}
		d := median(runs)
		fmt.Printf("| %s | %.0f ms | %.2f |\n", tr.name, d*1000, d/rtt.Seconds())
	}
	return nil
}

func handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		buf := make([]byte, 64<<10)
		for n > 0 {
			k := min(n, len(buf))
			if _, err := w.Write(buf[:k]); err != nil {
				return
			}
			n -= k
		}
	})
}

// lastServed is the association the server accepted last (its counters
// explain the sender's side of a goodput run).
var lastServed atomic.Pointer[sctp.Assoc]

// startServers serves plain SPDY on TCP port 80 of s1 and SPDY over SCTP
// (control stream) for each SCTP transport on a UDP port of its own, with
// the transport's Config (setting its port in the caller's slices).
func startServers(tb *netem.Testbed, groups ...[]transport) (stop func(), err error) {
	s1 := tb.Servers()[0]
	srv := &spdy.Server{Handler: handler()}
	tl, err := s1.Listen("tcp", s1.HostPort(port))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	closers := []func() error{tl.Close}
	stop = func() {
		cancel()
		for _, c := range closers {
			c()
		}
	}
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			go srv.ServeConn(ctx, c)
		}
	}()
	next := 8000
	for _, trs := range groups {
		for i := range trs {
			if trs[i].sctp == nil {
				continue
			}
			trs[i].port, next = next, next+1
			pc, err := s1.ListenPacket("udp4", s1.HostPort(trs[i].port))
			if err != nil {
				stop()
				return nil, err
			}
			sl, err := sctp.Listen(pc, *trs[i].sctp)
			if err != nil {
				stop()
				return nil, err
			}
			closers = append(closers, sl.Close)
			go acceptSCTP(ctx, srv, sl)
		}
	}
	return stop, nil
}

func acceptSCTP(ctx context.Context, srv *spdy.Server, sl *sctp.Listener) {
	for {
		a, err := sl.Accept()
		if err != nil {
			return
		}
		lastServed.Store(a)
		go srv.ServeSCTP(ctx, a, spdy.SCTPOptions{ControlStream: true})
	}
}

// dial opens a client session over tr from the testbed's client.
func dial(ctx context.Context, tb *netem.Testbed, tr transport) (*spdy.ClientConn, error) {
	s1 := tb.Servers()[0]
	cfg := &spdy.ClientConfig{Config: spdy.Config{InitialWindowSize: 16 << 20, SessionWindowSize: 16 << 20}}
	if tr.sctp == nil {
		c, err := tb.Client().DialContext(ctx, "tcp", s1.HostPort(port))
		if err != nil {
			return nil, err
		}
		return spdy.NewClientConn(c, cfg)
	}
	pc, err := tb.Client().ListenPacket("udp4", ":0")
	if err != nil {
		return nil, err
	}
	raddr, err := net.ResolveUDPAddr("udp4", s1.HostPort(tr.port))
	if err != nil {
		pc.Close()
		return nil, err
	}
	a, err := sctp.Dial(ctx, pc, raddr, *tr.sctp)
	if err != nil {
		return nil, err
	}
	return spdy.NewClientConnSCTP(a, cfg, spdy.SCTPOptions{ControlStream: true})
}

func get(ctx context.Context, cc *spdy.ClientConn, size int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://s1.spdylab.test/"+strconv.Itoa(size), nil)
	if err != nil {
		return nil, err
	}
	return cc.RoundTrip(req)
}

// goodput is body bits per second from sending the request to the last byte,
// on a session whose handshake is already done.
func goodput(ctx context.Context, tb *netem.Testbed, tr transport, size int) (float64, error) {
	cc, err := dial(ctx, tb, tr)
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	if _, err := cc.Ping(ctx); err != nil {
		return 0, err
	}
	start := time.Now()
	resp, err := get(ctx, cc, size)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if int(n) != size {
		return 0, fmt.Errorf("got %d of %d bytes", n, size)
	}
	return float64(n) * 8 / time.Since(start).Seconds(), nil
}

// firstByte is the time from dialling to the response headers of a small GET.
func firstByte(ctx context.Context, tb *netem.Testbed, tr transport) (time.Duration, error) {
	start := time.Now()
	cc, err := dial(ctx, tb, tr)
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	resp, err := get(ctx, cc, 100)
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return d, nil
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
