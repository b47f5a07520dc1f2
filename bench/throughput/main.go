// Command throughput measures spdylab's SPDY server against node-spdy on
// loopback, side by side in one run, with spdylab's own SPDY client as the
// load generator for both:
//
//   - small: requests/s for 100-byte responses through ONE spdy/3.1 session
//     kept at -streams concurrent streams;
//   - large: MB/s of -large-size responses through one session with
//     -large-streams concurrent streams.
//
// Servers and workloads are interleaved (ours, node, ours, node, ...) for
// -rounds rounds so drift in machine load hits both alike; the table gives
// the median of the rounds and the ratio ours/node.
//
// Usage (bench/throughput.sh does this):
//
//	go build -o bin/spdylab ./cmd/spdylab
//	go run ./bench/throughput -spdylab bin/spdylab -node-dir interop/node
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/spdy"
)

type options struct {
	spdylab      string
	nodeDir      string
	duration     time.Duration
	rounds       int
	streams      int
	largeSize    int
	largeStreams int
	plain        bool
	profile      string
	clientProf   string
	serveArgs    string
}

func main() {
	var o options
	flag.StringVar(&o.spdylab, "spdylab", "bin/spdylab", "spdylab binary whose `serve` is measured")
	flag.StringVar(&o.nodeDir, "node-dir", "interop/node", "directory with server.js and node_modules (run scripts/deps.sh)")
	flag.DurationVar(&o.duration, "duration", 3*time.Second, "length of one measurement")
	flag.IntVar(&o.rounds, "rounds", 3, "interleaved rounds per server and workload")
	flag.IntVar(&o.streams, "streams", 100, "concurrent streams for the small-response workload")
	flag.IntVar(&o.largeSize, "large-size", 10<<20, "body size of the large-response workload, bytes")
	flag.IntVar(&o.largeStreams, "large-streams", 4, "concurrent streams for the large-response workload")
	flag.BoolVar(&o.plain, "plain", false, "SPDY over plain TCP instead of TLS with ALPN")
	flag.StringVar(&o.profile, "cpuprofile", "", "pass --cpuprofile FILE to spdylab serve: a CPU profile of our server over the whole run")
	flag.StringVar(&o.serveArgs, "serve-args", "", "extra space-separated flags for spdylab serve (e.g. \"--frame-size 65536\")")
	flag.StringVar(&o.clientProf, "client-cpuprofile", "", "write a CPU profile of the load generator (this program) to `FILE`")
	flag.Parse()
	if o.clientProf != "" {
		f, err := atomicfile.Create(o.clientProf)
		if err != nil {
			fmt.Fprintln(os.Stderr, "throughput:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer f.Commit()
		defer pprof.StopCPUProfile()
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// target is one server under test.
type target struct {
	name string
	addr string
	stop func()
}

func run(o options) error {
	if o.duration <= 0 || o.rounds < 1 || o.streams < 1 || o.largeSize < 1 || o.largeStreams < 1 {
		return errors.New("duration, rounds, streams, large-size and large-streams must be positive")
	}
	dir, err := os.MkdirTemp("", "spdylab-throughput-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var procs children
	defer procs.stop()
	ours, node, err := startServers(o, dir, &procs)
	if err != nil {
		return err
	}
	// Warm both up (JIT for node, page cache and connection setup paths).
	for _, t := range []*target{ours, node} {
		if _, _, err := load(t.addr, o.plain, "/_spdylab/bytes?n=100&seed=1", 10, 300*time.Millisecond); err != nil {
			return fmt.Errorf("warm-up against %s: %w", t.name, err)
		}
	}
	return compare(o, ours, node)
}

// children are the server processes the bench started.
type children []*exec.Cmd

// stop ends every child, SIGTERM first: spdylab serve writes its CPU
// profile on a clean exit.
func (c children) stop() {
	for _, p := range c {
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
}

// start runs a server and reads its address from the first line it prints.
func (c *children) start(name string, args []string, dir string, parse func(string) (string, error)) (*target, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	// Die with us: a killed benchmark must not leave servers running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	*c = append(*c, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%s printed no address: %w", name, err)
	}
	go io.Copy(io.Discard, out)
	addr, err := parse(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &target{name: name, addr: addr}, nil
}

// startServers starts spdylab serve and node-spdy with one throw-away
// certificate written to dir.
func startServers(o options, dir string, procs *children) (ours, node *target, err error) {
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := certs.WriteFiles(cert, key); err != nil {
		return nil, nil, err
	}
	bin, err := filepath.Abs(o.spdylab)
	if err != nil {
		return nil, nil, err
	}
	ourArgs := []string{bin, "serve", "--listen", "127.0.0.1:0", "--quiet", "--protocols", "spdy/3.1", "--cert", cert, "--key", key}
	nodeArgs := []string{"node", "--no-deprecation", "server.js", "--cert", cert, "--key", key}
	if o.plain {
		ourArgs = []string{bin, "serve", "--listen", "127.0.0.1:0", "--quiet", "--plain", "spdy/3.1"}
		nodeArgs = []string{"node", "--no-deprecation", "server.js", "--plain"}
	}
	ourArgs = append(ourArgs, strings.Fields(o.serveArgs)...)
	if o.profile != "" {
		p, err := filepath.Abs(o.profile)
		if err != nil {
			return nil, nil, err
		}
		ourArgs = append(ourArgs, "--cpuprofile", p)
	}
	ours, err = procs.start("spdylab", ourArgs, "", func(l string) (string, error) {
		u := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(l, "https://"), "http://"), "/")
		if u == l {
			return "", fmt.Errorf("first line %q is not a URL", l)
		}
		return u, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(o.nodeDir, "node_modules", "spdy")); err != nil {
		return nil, nil, fmt.Errorf("%s/node_modules/spdy missing: run scripts/deps.sh", o.nodeDir)
	}
	node, err = procs.start("node-spdy", nodeArgs, o.nodeDir, func(l string) (string, error) {
		var hello struct{ Port int }
		if err := json.Unmarshal([]byte(l), &hello); err != nil || hello.Port == 0 {
			return "", fmt.Errorf("first line %q is not {\"port\": N}", l)
		}
		return fmt.Sprintf("127.0.0.1:%d", hello.Port), nil
	})
	return ours, node, err
}

// compare runs each workload o.rounds times against both servers,
// interleaved, and prints the medians and their ratio.
func compare(o options, ours, node *target) error {
	type workload struct {
		name, unit string
		run        func(*target) (float64, error)
	}
	small := "/_spdylab/bytes?n=100&seed=1"
	large := fmt.Sprintf("/_spdylab/bytes?n=%d&seed=2", o.largeSize)
	workloads := []workload{
		{fmt.Sprintf("100 B responses, %d streams, 1 session", o.streams), "req/s", func(t *target) (float64, error) {
			n, _, err := load(t.addr, o.plain, small, o.streams, o.duration)
			return float64(n) / o.duration.Seconds(), err
		}},
		{fmt.Sprintf("%d MiB responses, %d streams, 1 session", o.largeSize>>20, o.largeStreams), "MB/s", func(t *target) (float64, error) {
			_, bytes, err := load(t.addr, o.plain, large, o.largeStreams, o.duration)
			return float64(bytes) / 1e6 / o.duration.Seconds(), err
		}},
	}
	mode := "TLS+ALPN"
	if o.plain {
		mode = "plain TCP"
	}
	fmt.Printf("spdy/3.1 over %s on loopback; load generator: spdylab's spdy client; %d rounds of %s, interleaved; GOMAXPROCS=%d, nproc=%d\n\n",
		mode, o.rounds, o.duration, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Printf("%-42s %-6s %14s %14s %8s\n", "workload", "unit", "spdylab", "node-spdy", "ratio")
	for _, w := range workloads {
		var a, b []float64
		for r := 0; r < o.rounds; r++ {
			for _, t := range []*target{ours, node} {
				v, err := w.run(t)
				if err != nil {
					return fmt.Errorf("%s against %s: %w", w.name, t.name, err)
				}
				if t == ours {
					a = append(a, v)
				} else {
					b = append(b, v)
				}
			}
		}
		ma, mb := stats.Median(a), stats.Median(b)
		fmt.Printf("%-42s %-6s %14.1f %14.1f %7.2fx\n", w.name, w.unit, ma, mb, ma/mb)
		fmt.Fprintf(os.Stderr, "  %s rounds: spdylab %s, node-spdy %s\n", w.unit, fmtAll(a), fmtAll(b))
	}
	return nil
}

func fmtAll(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(s, " ")
}

// load keeps `streams` requests for path in flight over one new session
// for d and returns completed responses and body bytes.
func load(addr string, plain bool, path string, streams int, d time.Duration) (int64, int64, error) {
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, 0, err
	}
	var c net.Conn = raw
	scheme := "http"
	if !plain {
		tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{spdy.ProtoSPDY31}})
		if err := tc.Handshake(); err != nil {
			raw.Close()
			return 0, 0, err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != spdy.ProtoSPDY31 {
			tc.Close()
			return 0, 0, fmt.Errorf("ALPN chose %q", p)
		}
		c, scheme = tc, "https"
	}
	cc, err := spdy.NewClientConn(c, &spdy.ClientConfig{Config: spdy.Config{
		Version:              spdy.ProtoSPDY31,
		InitialWindowSize:    16 << 20,
		SessionWindowSize:    64 << 20,
		MaxConcurrentStreams: 100,
	}})
	if err != nil {
		c.Close()
		return 0, 0, err
	}
	defer cc.Close()
	url := scheme + "://" + addr + path
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var reqs, bytes atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	buf := sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
				resp, err := cc.RoundTrip(req)
				if err != nil {
					if ctx.Err() == nil {
						errOnce.Do(func() { firstErr = err })
					}
					return
				}
				b := buf.Get().(*[]byte)
				n, err := io.CopyBuffer(io.Discard, resp.Body, *b)
				buf.Put(b)
				resp.Body.Close()
				bytes.Add(n)
				if err != nil {
					if ctx.Err() == nil {
						errOnce.Do(func() { firstErr = err })
					}
					return
				}
				if resp.StatusCode != 200 {
					errOnce.Do(func() { firstErr = fmt.Errorf("status %d", resp.StatusCode) })
					return
				}
				reqs.Add(1)
			}
		}()
	}
	wg.Wait()
	return reqs.Load(), bytes.Load(), firstErr
}
