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

func main() {
	rates := flag.String("rates", "1mbit,5mbit,20mbit", "link rates (both directions)")
	rtt := flag.Duration("rtt", 100*time.Millisecond, "link round-trip time")
	seconds := flag.Float64("seconds", 4, "transfer size in seconds of link capacity")
	reps := flag.Int("reps", 3, "repetitions (medians reported)")
	only := flag.String("only", "goodput,setup", "scenarios")
	flag.Parse()
	defer netem.ClosePanicking()
	for _, r := range strings.Split(*rates, ",") {
		bps, err := units.ParseRate(r)
		if err != nil {
			fail(err)
		}
		if err := runRate(bps, *rtt, *seconds, *reps, *only); err != nil {
			fail(err)
		}
	}
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
}

func sctpConfig(buffers int, bundle bool) *sctp.Config {
	return &sctp.Config{RTOMin: 200 * time.Millisecond, SendBuffer: buffers, ReceiveBuffer: buffers,
		MaxBurst: sctp.MaxBurstUnlimited, SACKEveryPacket: true, BundleCookieEcho: bundle}
}

func burst4(c *sctp.Config) *sctp.Config { c.MaxBurst = 4; return c }

func runRate(bps int64, rtt time.Duration, seconds float64, reps int, only string) error {
	ctx := context.Background()
	bdp := int(float64(bps) / 8 * rtt.Seconds())
	queue := max(bdp/1500, 20)
	tb, err := netem.New(ctx, netem.Config{Shards: 1, Link: probe.Link{DownBps: bps, UpBps: bps, RTT: rtt, QueuePkts: queue, Shared: true}})
	if err != nil {
		return err
	}
	defer tb.Close()
	big := max(4*bdp, 256<<10)
	stop, err := startServers(tb, sctpConfig(big, false))
	if err != nil {
		return err
	}
	defer stop()
	size := int(float64(bps) / 8 * seconds)
	fmt.Printf("\n## %s, RTT %v, queue %d packets, %d-byte response\n\n", units.FormatRate(bps), rtt, queue, size)
	if strings.Contains(only, "goodput") {
		fmt.Println("| transport | goodput Mbit/s (median) | share of link rate | vs TCP | queue drops (median) | SCTP retransmissions fast / timeout of DATA chunks (last run) | emulator late p99 ms |")
		fmt.Println("|---|---|---|---|---|---|---|")
		var tcp float64
		for _, tr := range []transport{{"TCP (plain SPDY)", nil}, {"SCTP, 64 KB buffers (study)", sctpConfig(64<<10, true)}, {fmt.Sprintf("SCTP, %d KB buffers (2 BDP)", 2*bdp>>10), sctpConfig(max(2*bdp, 64<<10), true)}, {fmt.Sprintf("SCTP, %d KB buffers (4 BDP)", big>>10), sctpConfig(big, true)}, {fmt.Sprintf("SCTP, %d KB buffers, max burst 4", big>>10), burst4(sctpConfig(big, true))}} {
			var runs []float64
			var drops, late []float64
			retx := "-"

			for range reps {
				tb.ResetCounters()
				g, err := goodput(ctx, tb, tr, size)
				lc := tb.Counters()
				drops = append(drops, float64(lc.Down.PktsQueueDrop))
				late = append(late, lc.Down.LateP99ms)
				if a := lastServed.Load(); tr.sctp != nil && a != nil {
					c := a.Counters()
					retx = fmt.Sprintf("%d / %d of %d", c.FastRetransmissions, c.TimeoutRetransmissions, c.DataChunksSent)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", tr.name, err)
				}
				runs = append(runs, g)
			}
			g := median(runs)
			if tr.sctp == nil {
				tcp = g
			}
			fmt.Printf("| %s | %.2f | %.1f%% | %.1f%% | %.0f | %s | %.1f |\n", tr.name, g/1e6, 100*g/float64(bps), 100*g/tcp, median(drops), retx, median(late))
		}
	}
	if strings.Contains(only, "setup") {
		fmt.Println("\n| transport | dial to first response byte (median) | round trips |")
		fmt.Println("|---|---|---|")
		for _, tr := range []transport{{"TCP (plain SPDY)", nil}, {"SCTP, DATA bundled with COOKIE-ECHO", sctpConfig(64<<10, true)}, {"SCTP, not bundled (lksctp)", sctpConfig(64<<10, false)}} {
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

// startServers serves plain SPDY on TCP and SPDY over SCTP (control stream)
// on UDP, both on s1 port 80.
func startServers(tb *netem.Testbed, cfg *sctp.Config) (stop func(), err error) {
	s1 := tb.Servers()[0]
	srv := &spdy.Server{Handler: handler()}
	tl, err := s1.Listen("tcp", s1.HostPort(port))
	if err != nil {
		return nil, err
	}
	pc, err := s1.ListenPacket("udp4", s1.HostPort(port))
	if err != nil {
		tl.Close()
		return nil, err
	}
	sl, err := sctp.Listen(pc, *cfg)
	if err != nil {
		tl.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			go srv.ServeConn(ctx, c)
		}
	}()
	go func() {
		for {
			a, err := sl.Accept()
			if err != nil {
				return
			}
			lastServed.Store(a)
			go srv.ServeSCTP(ctx, a, spdy.SCTPOptions{ControlStream: true})
		}
	}()
	return func() { cancel(); tl.Close(); sl.Close() }, nil
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
	raddr, err := net.ResolveUDPAddr("udp4", s1.HostPort(port))
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
