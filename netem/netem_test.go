package netem

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// newTestbed builds a testbed and removes it when the test ends, checking
// that its namespaces are really gone.
func newTestbed(t *testing.T, cfg Config) *Testbed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertGone(t, tb.ID())
	})
	return tb
}

func assertGone(t *testing.T, id string) {
	t.Helper()
	ents, _ := os.ReadDir(netnsDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), Prefix+id+"-") {
			t.Errorf("namespace %s still exists", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(stateRoot, id)); err == nil {
		t.Errorf("state directory of %s still exists", id)
	}
}

func TestLoopbackHosts(t *testing.T) {
	tb := Loopback(3)
	defer tb.Close()
	if tb.Emulated() {
		t.Fatal("loopback testbed claims an emulated link")
	}
	if got := tb.Client().Addr.String(); got != "127.0.0.1" {
		t.Errorf("client address %s, want 127.0.0.1", got)
	}
	if len(tb.Servers()) != 3 || tb.Servers()[2].Name != "s3.spdylab.test" || tb.Servers()[2].Addr.String() != "127.0.0.4" {
		t.Fatalf("servers %+v", tb.Servers())
	}
	ips, err := tb.Client().Resolver().LookupNetIP(context.Background(), "ip4", "S2.spdylab.test.")
	if err != nil || len(ips) != 1 || ips[0].String() != "127.0.0.3" {
		t.Fatalf("lookup s2: %v %v", ips, err)
	}
	if _, err := tb.Client().Resolver().LookupHost(context.Background(), "s9.spdylab.test"); err == nil {
		t.Error("lookup of an unknown name succeeded")
	}
	// Listen on a server host, dial it by name from the client.
	l, err := tb.Servers()[1].Listen("tcp", "127.0.0.3:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			io.WriteString(c, "hello")
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	c, err := tb.Client().DialContext(context.Background(), "tcp", "s2.spdylab.test:"+port)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	if string(b) != "hello" {
		t.Errorf("read %q", b)
	}
	if c := tb.Counters(); c != (probe.LinkCounters{}) {
		t.Errorf("loopback counters %+v, want zero", c)
	}
}

func parseFlags(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v := RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	return v.Config()
}

func TestFlagsConfig(t *testing.T) {
	cfg, err := parseFlags(t, "--rtt", "100ms", "--down", "10mbit", "--up", "1mbit", "--queue", "50pkt",
		"--queue-up", "64kb", "--loss", "1%", "--loss-up", "0", "--iw", "3", "--cc", "reno", "--shards", "4",
		"--per-shard-links", "--no-dns", "--seed", "7", "--ge-down", "p=1%,r=30%")
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Link
	if l.RTT != 100*time.Millisecond || l.DownBps != 10e6 || l.UpBps != 1e6 || l.QueuePkts != 50 {
		t.Errorf("link %+v", l)
	}
	if l.QueueUp != (Queue{Bytes: 64000}) || l.QueueDown != (Queue{}) {
		t.Errorf("queue overrides down %+v up %+v", l.QueueDown, l.QueueUp)
	}
	if l.LossUp != 0 || l.LossDown != 0 || l.GEDown.P != 0.01 || l.GEDown.R != 0.3 {
		t.Errorf("loss: down %g up %g ge %+v (Gilbert-Elliott replaces Bernoulli loss downstream)", l.LossDown, l.LossUp, l.GEDown)
	}
	if cfg.TCP.IW != 3 || cfg.TCP.CC != "reno" || cfg.Shards != 4 || l.Shared || cfg.DNS || l.Seed != 7 {
		t.Errorf("config %+v", cfg)
	}
	d, u := l.OneWay()
	if d != 50*time.Millisecond || u != 50*time.Millisecond {
		t.Errorf("delays %v/%v", d, u)
	}
	cfg, err = parseFlags(t, "--rtt", "100ms", "--delay-down", "80ms")
	if err != nil {
		t.Fatal(err)
	}
	if d, u := cfg.Link.OneWay(); d != 80*time.Millisecond || u != 20*time.Millisecond {
		t.Errorf("--delay-down 80ms of 100ms: %v/%v", d, u)
	}
	cfg, _ = parseFlags(t)
	// The studies' defaults (probe.Fields).
	if cfg.DNS || !cfg.Link.Shared || cfg.TCP.CC != "" || cfg.TCP.IW != 0 || cfg.Link.QueuePkts != 100 || cfg.Link.Seed != 1 {
		t.Errorf("defaults %+v", cfg)
	}
}

func TestFlagErrorsNameFlagAndValue(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(bad, []byte("1\n2\nfast\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--down", "10mbps"}, []string{"--down", "10mbps"}},
		{[]string{"--up", "fast"}, []string{"--up", "fast"}},
		{[]string{"--loss", "150%"}, []string{"--loss", "150%"}},
		{[]string{"--loss-down", "x"}, []string{"--loss-down"}},
		{[]string{"--queue", "50 apples"}, []string{"--queue", "50 apples"}},
		{[]string{"--shards", "9"}, []string{"--shards", "9"}},
		{[]string{"--iw", "-1"}, []string{"--iw", "-1"}},
		{[]string{"--cc", "vegas-nonexistent"}, []string{"--cc", "vegas-nonexistent", "cubic"}},
		{[]string{"--ge-up", "p=1%"}, []string{"--ge-up", "r"}},
		{[]string{"--trace-down", bad}, []string{"--trace-down", bad, ":3", "fast"}},
		{[]string{"--trace-up", "/nonexistent/trace"}, []string{"--trace-up", "/nonexistent/trace"}},
		{[]string{"--rtt", "-5ms"}, []string{"--rtt", "between 0"}},
		{[]string{"--rtt", "10ms", "--delay-down", "20ms"}, []string{"--delay-down", "exceed"}},
		{[]string{"--rtt", "100ms", "--delay-down", "80ms", "--delay-up", "80ms"}, []string{"--rtt 100ms conflicts with --delay-down 80ms + --delay-up 80ms = 160ms"}},
		{[]string{"--dns", "--no-dns"}, []string{"--dns", "--no-dns"}},
	} {
		_, err := parseFlags(t, tc.args...)
		if err == nil {
			t.Errorf("%v: no error", tc.args)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not mention %q", tc.args, err, w)
			}
		}
	}
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{
		{Shards: 0},
		{Shards: 9},
		{Shards: 1, Name: "Bad_Name"},
		{Shards: 1, Link: probe.Link{LossDown: 2}},
		{Shards: 1, Link: probe.Link{DownBps: -1}},
		{Shards: 1, TCP: probe.TCP{IW: -3}},
		{Shards: 1, Link: probe.Link{TraceDown: "/nonexistent/trace"}},
	} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("New(%+v) accepted a bad configuration", cfg)
		}
	}
}

func TestPipeForClassifiesByServerAddress(t *testing.T) {
	pkt := make([]byte, 40)
	pkt[0] = 0x45
	copy(pkt[12:16], []byte{10, 200, 0, 1}) // client
	copy(pkt[16:20], []byte{10, 200, 3, 2}) // s3
	if got := pipeFor(pkt, 16, 4); got != 2 {
		t.Errorf("uplink packet to s3 -> pipe %d, want 2", got)
	}
	if got := pipeFor(pkt, 12, 4); got != 0 {
		t.Errorf("packet from the client -> pipe %d, want 0", got)
	}
	copy(pkt[16:20], []byte{10, 200, 0, 2}) // router (DNS)
	if got := pipeFor(pkt, 16, 4); got != 0 {
		t.Errorf("packet to the router -> pipe %d, want 0", got)
	}
	copy(pkt[16:20], []byte{10, 200, 6, 2}) // beyond the shards
	if got := pipeFor(pkt, 16, 4); got != 0 {
		t.Errorf("packet to an unknown server -> pipe %d, want 0", got)
	}
	if got := pipeFor(pkt[:10], 16, 4); got != 0 {
		t.Errorf("runt packet -> pipe %d", got)
	}
}

func TestHostsFileAndAnswers(t *testing.T) {
	names := map[string]netip.Addr{"s1.spdylab.test": netip.MustParseAddr("10.200.1.2")}
	if h := string(hostsFile(names, true)); !strings.Contains(h, "10.200.1.2\ts1.spdylab.test") {
		t.Errorf("hosts file without the server: %q", h)
	}
	if h := string(hostsFile(names, false)); strings.Contains(h, "s1.spdylab.test") {
		t.Errorf("hosts file for DNS clients lists the server: %q", h)
	}
}

// ---- real testbeds (root) ----

// exchange sends n lines from the client to a listener on s1 and reads
// each one back: TCP traffic across the link in both directions.
func exchange(tb *Testbed, n int) error {
	s1 := tb.Servers()[0]
	l, err := s1.Listen("tcp4", s1.HostPort(0))
	if err != nil {
		return err
	}
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if c, err := l.Accept(); err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	defer func() { <-done }()
	c, err := tb.Client().DialContext(context.Background(), "tcp4", l.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for i := range n {
		if _, err := fmt.Fprintf(c, "line %d\n", i); err != nil {
			return err
		}
		if _, err := r.ReadString('\n'); err != nil {
			return fmt.Errorf("echo of line %d: %w", i, err)
		}
	}
	return nil
}

// The link's RTT as the short check measures it: netem/linkcheck's
// TestShortCheckMeasuresTheRTT.
func TestDNSOverTheLink(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	const rtt = 40 * time.Millisecond
	tb := newTestbed(t, Config{Shards: 2, DNS: true, Link: probe.Link{RTT: rtt, Shared: true}})
	ctx := context.Background()
	tb.ResetCounters()
	start := time.Now()
	ips, err := tb.Client().Resolver().LookupNetIP(ctx, "ip4", "s2.spdylab.test")
	took := time.Since(start)
	if err != nil || len(ips) != 1 || ips[0] != tb.Servers()[1].Addr {
		t.Fatalf("lookup s2: %v %v", ips, err)
	}
	if took < rtt*9/10 {
		t.Errorf("DNS lookup took %v, less than the %v RTT: it did not cross the link", took, rtt)
	}
	c := tb.Counters()
	if c.Up.PktsDelivered == 0 || c.Down.PktsDelivered == 0 {
		t.Errorf("DNS lookup left no packets in the emulator's counters: %+v", c)
	}
	if _, err := tb.Client().Resolver().LookupHost(ctx, "nosuch.spdylab.test"); err == nil {
		t.Error("unknown name resolved")
	}
	// Servers resolve from memory: no packets.
	tb.ResetCounters()
	if ips, err := tb.Servers()[0].Resolver().LookupNetIP(ctx, "ip4", "client"); err != nil || ips[0] != tb.Client().Addr {
		t.Errorf("server lookup of client: %v %v", ips, err)
	}
	if c := tb.Counters(); c.Up.PktsOffered+c.Down.PktsOffered != 0 {
		t.Errorf("static lookup sent packets: %+v", c)
	}
}

func TestStaticResolverSendsNoPackets(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newTestbed(t, Config{Shards: 1, DNS: false, Link: probe.Link{RTT: 10 * time.Millisecond, Shared: true}})
	tb.ResetCounters()
	ips, err := tb.Client().Resolver().LookupNetIP(context.Background(), "ip4", "s1.spdylab.test")
	if err != nil || len(ips) != 1 || ips[0] != tb.Servers()[0].Addr {
		t.Fatalf("lookup: %v %v", ips, err)
	}
	if c := tb.Counters(); c.Up.PktsOffered+c.Down.PktsOffered != 0 {
		t.Errorf("static lookup crossed the link: %+v", c)
	}
	// Commands see the names in /etc/hosts, and run in the client namespace.
	out, err := tb.Client().Command(context.Background(), "sh", "-c", "cat /etc/hosts; cat /proc/net/dev").CombinedOutput()
	if err != nil {
		t.Fatalf("command: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "10.200.1.2\ts1.spdylab.test") {
		t.Errorf("command's /etc/hosts lacks s1:\n%s", out)
	}
	if !strings.Contains(string(out), tunName+":") {
		t.Errorf("command does not run in the client namespace (no %s in /proc/net/dev):\n%s", tunName, out)
	}
	// The exit status comes through.
	err = tb.Servers()[0].Command(context.Background(), "sh", "-c", "exit 7").Run()
	if ee, ok := err.(interface{ ExitCode() int }); !ok || ee.ExitCode() != 7 {
		t.Errorf("exit status: %v", err)
	}
	if err := tb.Client().Command(context.Background(), "no-such-program-spdylab").Run(); err == nil {
		t.Error("a missing program ran")
	}
}

func TestTCPKnobsApplied(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newTestbed(t, Config{Shards: 2, Link: probe.Link{Shared: false},
		TCP: probe.TCP{IW: 3, InitRwnd: 20, CC: "cubic", SlowStartAfterIdle: true}})
	a := tb.Applied()
	for _, s := range tb.Servers() {
		if a.InitCwnd[s.Name] != 3 || a.InitRwnd[s.Name] != 20 {
			t.Errorf("%s: initcwnd %d initrwnd %d, want 3 and 20", s.Name, a.InitCwnd[s.Name], a.InitRwnd[s.Name])
		}
		// Read the route back independently of Applied.
		nh, err := netlink.NewHandleAt(s.ns.handle)
		if err != nil {
			t.Fatal(err)
		}
		routes, err := nh.RouteList(nil, netlink.FAMILY_V4)
		nh.Close()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range routes {
			if r.Gw != nil && r.InitCwnd == 3 && r.InitRwnd == 20 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no route with initcwnd 3 initrwnd 20 in %+v", s.Name, routes)
		}
	}
	if a.ClientInitRwnd != 20 {
		t.Errorf("client initrwnd %d", a.ClientInitRwnd)
	}
	if !a.SlowStartAfterIdle || !a.NoMetricsSave {
		t.Errorf("sysctls: %+v", a)
	}
	// Congestion control: connections accepted by a server and made by the
	// client run cubic, whatever the namespace default is.
	s1 := tb.Servers()[0]
	l, err := s1.Listen("tcp4", s1.HostPort(8000))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := tb.Client().DialContext(context.Background(), "tcp4", "s1.spdylab.test:8000")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer sc.Close()
	for name, conn := range map[string]net.Conn{"server": sc, "client": c} {
		cc, err := tcpopt.Congestion(conn)
		if err != nil || cc != "cubic" {
			t.Errorf("%s connection runs %q (%v), want cubic", name, cc, err)
		}
	}
	var ssai string
	s1.Do(func() error { ssai = readSysctl("net/ipv4/tcp_slow_start_after_idle"); return nil })
	if ssai != "1" {
		t.Errorf("tcp_slow_start_after_idle in s1 = %q", ssai)
	}
}

func TestPerShardLinksCountEveryServer(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newTestbed(t, Config{Shards: 2, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: false}})
	_, up, err := tb.emu.pipeCounters()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(up); n != 2 {
		t.Fatalf("%d uplink pipes for 2 shards with per-shard links", n)
	}
	s2 := tb.Servers()[1]
	l, err := s2.Listen("tcp4", s2.HostPort(9000))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	tb.ResetCounters()
	c, err := tb.Client().DialContext(context.Background(), "tcp4", "s2.spdylab.test:9000")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(c)
	c.Close()
	if _, up, err = tb.emu.pipeCounters(); err != nil {
		t.Fatal(err)
	}
	if got := up[1].PktsOffered; got == 0 {
		t.Error("traffic to s2 did not use s2's pipe")
	}
	if got := up[0].PktsOffered; got != 0 {
		t.Errorf("traffic to s2 crossed s1's pipe (%d packets)", got)
	}
}

func TestPacketLog(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "packets.log")
	tb, err := New(context.Background(), Config{Shards: 1, PacketLogPath: path, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := exchange(tb, 10); err != nil {
		t.Fatal(err)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 10 {
		t.Fatalf("packet log has %d lines:\n%s", len(lines), b)
	}
	if !strings.Contains(string(b), "up") || !strings.Contains(string(b), "down") {
		t.Errorf("packet log does not name both directions:\n%s", lines[0])
	}
}

// ---- cleanup after crashes (helper processes) ----

const helperEnv = "SPDYLAB_NETEM_TEST_HELPER"

// TestHelperProcess is not a test: the cleanup tests re-run the test binary
// with helperEnv set, and this builds a testbed with a helper process in s1,
// prints "<testbed id> <helper pid> <emulator pid>" and then dies the way helperEnv says.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for the cleanup tests")
	}
	tb, err := New(context.Background(), Config{Shards: 1, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	sleeper := tb.Servers()[0].Command(context.Background(), "sleep", "60")
	if err := sleeper.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	// Start returns once /proc/self/exe runs; wait until it has entered the
	// namespace and exec'd sleep, or a Clean racing with its start-up
	// misses it (it is not in the namespace yet) and it enters afterwards.
	for deadline := time.Now().Add(10 * time.Second); !strings.HasPrefix(cmdline(sleeper.Process.Pid), "sleep") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	emuPID := 0
	if e, ok := tb.emu.(*emuProc); ok {
		emuPID = e.pid
	}
	fmt.Println(tb.ID(), sleeper.Process.Pid, emuPID)
	switch mode {
	case "wait":
		// Until the test kills us with SIGKILL.
		select {}
	case "panic-main":
		defer ClosePanicking()
		panic("helper panics with a live testbed")
	case "panic-goroutine":
		// A panic off the command's goroutine kills the process before any
		// deferred cleanup can run.
		done := make(chan struct{})
		go func() { panic("helper goroutine panics with a live testbed") }()
		<-done
	}
}

func runHelper(t *testing.T, mode string) (id string, sleeperPID int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("helper (%s) exited cleanly; output %q", mode, out)
	}
	if _, err := fmt.Sscan(string(out), &id, &sleeperPID); err != nil || strings.HasPrefix(string(out), "error") {
		t.Fatalf("helper (%s) output %q: %v", mode, out, err)
	}
	return id, sleeperPID
}

func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// A zombie waiting for its (new) parent to reap it runs no more.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func TestPanicInCommandRemovesTestbed(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	id, pid := runHelper(t, "panic-main")
	assertGone(t, id)
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !processGone(pid) {
		t.Errorf("helper process %d in the testbed survived", pid)
	}
}

func TestCleanRemovesLeftoversOfACrash(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	id, pid := runHelper(t, "panic-goroutine")
	// Nothing could clean up: the namespaces and the sleeper are still there.
	if _, err := os.Stat(filepath.Join(netnsDir, Prefix+id+"-s1")); err != nil {
		t.Fatalf("crashed helper left no namespace to clean (%v)", err)
	}
	if processGone(pid) {
		t.Fatalf("sleeper %d already gone", pid)
	}
	rep, err := Clean(false, false)
	if err != nil {
		t.Fatalf("Clean: %v", err)
	}
	if !slices.Contains(rep.Namespaces, Prefix+id+"-c") || !slices.Contains(rep.Killed, pid) {
		t.Errorf("Clean report %+v lacks %s or pid %d", rep, id, pid)
	}
	assertGone(t, id)
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !processGone(pid) {
		t.Errorf("sleeper %d survived Clean", pid)
	}
	// Our own live testbeds are never touched.
	tb := newTestbed(t, Config{Shards: 1})
	rep, err = Clean(false, false)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(rep.Namespaces, Prefix+tb.ID()+"-c") {
		t.Fatalf("Clean removed the live testbed %s", tb.ID())
	}
	if err := exchange(tb, 3); err != nil {
		t.Errorf("live testbed broken after Clean: %v", err)
	}
}

// CleanOwnedBy takes exactly the dead owner's testbeds: another crashed
// process's leftovers stay for their own owner's resume (or spdylab clean).
func TestCleanOwnedByTakesOnlyThatOwner(t *testing.T) {
	testutil.RequireRoot(t)
	// Not parallel: TestCleanRemovesLeftoversOfACrash's Clean would take
	// these dead helpers' testbeds too.
	idA, sleeperA := runHelper(t, "panic-goroutine")
	idB, sleeperB := runHelper(t, "panic-goroutine")
	ownerA := ownerPID(filepath.Join(stateRoot, idA))
	if ownerA <= 0 || ownerA == ownerPID(filepath.Join(stateRoot, idB)) {
		t.Fatalf("owner records: %d for %s, %d for %s", ownerA, idA, ownerPID(filepath.Join(stateRoot, idB)), idB)
	}
	rep, err := CleanOwnedBy(ownerA)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Namespaces, Prefix+idA+"-c") || !slices.Contains(rep.Killed, sleeperA) {
		t.Errorf("CleanOwnedBy(%d) report %+v lacks testbed %s", ownerA, rep, idA)
	}
	for _, n := range rep.Namespaces {
		if strings.Contains(n, idB) {
			t.Errorf("CleanOwnedBy(%d) removed %s of another owner", ownerA, n)
		}
	}
	assertGone(t, idA)
	if _, err := os.Stat(filepath.Join(netnsDir, Prefix+idB+"-c")); err != nil {
		t.Fatalf("the other owner's testbed %s is gone: %v", idB, err)
	}
	if processGone(sleeperB) {
		t.Errorf("the other owner's process %d was killed", sleeperB)
	}
	if rep, err := CleanOwnedBy(0); err != nil || len(rep.Namespaces) != 0 {
		t.Errorf("CleanOwnedBy(0) = %+v, %v: want nothing done", rep, err)
	}
	if _, err := CleanOwnedBy(ownerPID(filepath.Join(stateRoot, idB))); err != nil {
		t.Fatal(err)
	}
	assertGone(t, idB)
}

// A New that fails half way (here: cancelled after the namespaces exist)
// removes what it made.
func TestNewFailureRemovesEverything(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	name := fmt.Sprintf("f%d", time.Now().UnixNano()%100000000)
	tb, err := New(ctx, Config{Name: name, Shards: 2})
	if err == nil {
		tb.Close()
		t.Fatal("New with a cancelled context succeeded")
	}
	assertGone(t, name)
	// The name is free again.
	tb = newTestbed(t, Config{Name: name, Shards: 1})
	if _, err := New(context.Background(), Config{Name: name, Shards: 1}); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("second testbed with the same name: %v", err)
	}
}

// Programs started with Host.Command (nginx, Chromium, curl) use the
// namespace's default congestion control: New widens the global allowed
// list (append only) so the namespaces can default to the wanted one.
func TestCommandSeesConfiguredCC(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	if InUserNamespace() {
		t.Skip("widening tcp_allowed_congestion_control needs root in the initial namespace")
	}
	before := strings.Fields(readSysctl("net/ipv4/tcp_allowed_congestion_control"))
	tb := newTestbed(t, Config{Shards: 1, TCP: probe.TCP{CC: "cubic"}})
	after := strings.Fields(readSysctl("net/ipv4/tcp_allowed_congestion_control"))
	for _, cc := range append(before, "cubic") {
		if !slices.Contains(after, cc) {
			t.Errorf("tcp_allowed_congestion_control %q lacks %s (was %q)", after, cc, before)
		}
	}
	if a := tb.Applied(); a.CCDefault != "cubic" {
		t.Errorf("namespace default %q, want cubic", a.CCDefault)
	}
	for _, h := range []*Host{tb.Servers()[0], tb.Client()} {
		out, err := h.Command(context.Background(), "cat", "/proc/sys/net/ipv4/tcp_congestion_control").Output()
		if err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		if got := strings.TrimSpace(string(out)); got != "cubic" {
			t.Errorf("a program in %s sees congestion control %q, want cubic", h.Name, got)
		}
	}
}

// A congestion control the kernel lacks is refused with the name and
// what the kernel offers; what it offers (and the default "") passes.
func TestCheckCongestionControl(t *testing.T) {
	avail := strings.Fields(readSysctl("net/ipv4/tcp_available_congestion_control"))
	if len(avail) == 0 {
		t.Skip("no /proc/sys/net/ipv4/tcp_available_congestion_control here")
	}
	for _, cc := range append(avail, "") {
		if err := CheckCongestionControl(cc); err != nil {
			t.Errorf("%q (offered): %v", cc, err)
		}
	}
	err := CheckCongestionControl("no-such-cc")
	if err == nil || !strings.Contains(err.Error(), `"no-such-cc"`) || !strings.Contains(err.Error(), avail[0]) {
		t.Errorf("no-such-cc: %v, want an error naming it and what the kernel offers (%v)", err, avail)
	}
}
