package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

func TestLoadCommandJSONOverLoopback(t *testing.T) {
	bin := spdylabBinary(t)
	work, har := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "load", "--no-link", "--runs", "2", "--json", "--page", "pageC",
		"--proto", "https,h2", "--work-dir", work, "--har", har)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spdylab load: %v\n%s", err, stderr.String())
	}
	var protos []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var s map[string]any
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("output line is not JSON: %q", sc.Text())
		}
		for _, k := range []string{"plt_median_ms", "plt_p25_ms", "plt_p75_ms", "tow_median_ms", "runs", "failed", "proto", "condition", "phases_median_ms"} {
			if _, ok := s[k]; !ok {
				t.Fatalf("summary lacks %q: %s", k, sc.Text())
			}
		}
		if s["runs"].(float64) != 2 || s["failed"].(float64) != 0 {
			t.Fatalf("runs %v failed %v, want 2 and 0 (stderr: %s)", s["runs"], s["failed"], stderr.String())
		}
		if s["plt_median_ms"].(float64) <= 0 || s["plt_p25_ms"].(float64) > s["plt_p75_ms"].(float64) {
			t.Fatalf("implausible PLT quantiles: %s", sc.Text())
		}
		protos = append(protos, s["proto"].(string))
	}
	if strings.Join(protos, ",") != "https,h2" {
		t.Fatalf("summaries for %v, want https then h2", protos)
	}
	hars, _ := filepath.Glob(filepath.Join(har, "*.har"))
	if len(hars) != 4 {
		t.Fatalf("%d HAR files, want 4 (2 runs x 2 protocols)", len(hars))
	}
	if tmp, _ := filepath.Glob(filepath.Join(har, ".*")); len(tmp) > 0 {
		t.Fatalf("temporary files left in the HAR dir: %v", tmp)
	}
}

func TestLoadCommandRejectsBadFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"page":         {[]string{"--page", "pageZ"}, `--page "pageZ": unknown page`},
		"proto":        {[]string{"--proto", "spdy/1"}, `--proto "spdy/1"`},
		"runs":         {[]string{"--runs", "0"}, "--runs 0"},
		"tls":          {[]string{"--tls", "0.9"}, `--tls "0.9"`},
		"false start":  {[]string{"--false-start"}, "false_start true: Go's crypto/tls client"},
		"rsa on 1.3":   {[]string{"--tls", "1.3", "--tls-kx", "rsa"}, "TLS 1.3 has no RSA key exchange"},
		"stack":        {[]string{"--stack", "2011"}, `--stack "2011"`},
		"push":         {[]string{"--push", "all"}, `--push "all"`},
		"shard mode":   {[]string{"--shard-mode", "x"}, `--shard-mode "x"`},
		"rtt":          {[]string{"--rtt", "-1ms"}, "--rtt"},
		"loss":         {[]string{"--loss", "150%"}, "--loss"},
		"positional":   {[]string{"pageA"}, "unexpected argument"},
		"unknown flag": {[]string{"--bogus"}, "bogus"},
		"timeout":      {[]string{"--timeout", "-1s"}, "--timeout"},
		"pcap no link": {[]string{"--pcap", "x"}, "--pcap needs the emulated link"},
		"ge and loss":  {[]string{"--ge-down", "p=1%,r=30%", "--loss-down", "1%"}, `--ge-down "p=0.01,r=0.3,h=0,k=1": and loss_down both set`},
		"sctp":         {[]string{"--sctp-streams", "1"}, `--sctp-streams "1"`},
	}
	for label, c := range cases {
		var out, errb bytes.Buffer
		code := runLoad(context.Background(), append([]string{"--no-link"}, c.args...), &out, &errb)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %s)", label, code, errb.String())
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: stderr %q does not mention %q", label, errb.String(), c.want)
		}
	}
}

func TestPageCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	var out, errb bytes.Buffer
	if code := runPage([]string{"gen", "pageC", "--shards", "2", "--shard-mode", "roundrobin", "-o", dir}, &out, &errb); code != 0 {
		t.Fatalf("page gen: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := runPage([]string{"show", "--json", filepath.Join(dir, "manifest.json")}, &out, &errb); code != 0 {
		t.Fatalf("page show: exit %d: %s", code, errb.String())
	}
	var s struct {
		Resources struct{ Count int } `json:"resources"`
		ByHost    map[string]any      `json:"by_host"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Resources.Count != 11 || len(s.ByHost) != 2 {
		t.Fatalf("page show --json: %v %+v", err, s)
	}
	errb.Reset()
	if code := runPage([]string{"gen", "nosuchpage", "-o", dir}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "known pages: pageA") {
		t.Fatalf("unknown page: exit %d, %s", code, errb.String())
	}
	if code := runPage([]string{"gen", "pageA"}, &out, &errb); code != 2 {
		t.Fatalf("gen without -o: exit %d", code)
	}
	out.Reset()
	if code := runPage([]string{"list"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "youm7") {
		t.Fatalf("page list: %d %s", code, out.String())
	}
}

// Ctrl-C during a load over a real testbed ends the command and removes
// every namespace it created.
func TestLoadCommandInterruptCleansUp(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	cmd := exec.Command(bin, "load", "--page", "pageC", "--proto", "https", "--runs", "1000",
		"--rtt", "20ms", "--down", "20mbit", "--up", "2mbit", "--work-dir", t.TempDir())
	// Wait for the first finished load, then find the testbed this process
	// owns in netem's state directory.
	startUntilFirstLoad(t, cmd)
	defer cmd.Process.Kill()
	var id string
	ents, _ := os.ReadDir("/run/spdylab")
	for _, e := range ents {
		owner, _ := os.ReadFile(filepath.Join("/run/spdylab", e.Name(), "owner"))
		if first, _, _ := strings.Cut(string(owner), "\n"); strings.TrimSpace(first) == strconv.Itoa(cmd.Process.Pid) {
			id = e.Name()
		}
	}
	if id == "" {
		t.Fatal("found no testbed owned by the load command")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted load exited with %v, want status 130", err)
	}
	netns, _ := os.ReadDir("/run/netns")
	for _, e := range netns {
		if strings.HasPrefix(e.Name(), "sl-"+id+"-") {
			t.Fatalf("namespace %s survived the interrupt", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join("/run/spdylab", id)); err == nil {
		t.Fatalf("state directory of testbed %s survived the interrupt", id)
	}
}

// TestChromiumLoadInterruptLeavesNoBrowser: Ctrl-C while real Chromium
// loads through a testbed stops the browser with the command; no Chromium
// process, profile directory or namespace outlives it.
func TestChromiumLoadInterruptLeavesNoBrowser(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	bin := spdylabBinary(t)
	tmp := t.TempDir() // the browser's profiles go here: a marker no other test's Chromium has
	cmd := exec.Command(bin, "load", "--client", "chromium", "--page", "pageB", "--proto", "h2", "--runs", "1000",
		"--rtt", "40ms", "--down", "5mbit", "--up", "1mbit", "--work-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	said := startUntilFirstLoad(t, cmd)
	defer cmd.Process.Kill()
	// Mid-load: the second load's browser is starting or loading.
	time.Sleep(300 * time.Millisecond)
	if len(processesMentioning(t, tmp)) == 0 {
		t.Log("no Chromium alive at the interrupt (between loads); the check still covers the namespaces")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted load exited with %v, want status 130; it said:\n%s", err, strings.Join(said, "\n"))
	}
	if left := processesMentioning(t, tmp); len(left) > 0 {
		t.Errorf("Chromium processes outlived the interrupt: %v", left)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("browser profiles left in TMPDIR: %v", ents)
	}
}

// TestLoadInterruptDuringTestbedConstruction: Ctrl-C the moment a testbed
// starts being built (its state directory appears, before namespaces and
// the emulator exist) ends the command with status 130 and leaves nothing.
func TestLoadInterruptDuringTestbedConstruction(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	for attempt := range 3 {
		cmd := exec.Command(bin, "load", "--page", "pageA", "--proto", "https", "--runs", "1",
			"--rtt", "20ms", "--down", "20mbit", "--up", "2mbit", "--shards", "8", "--work-dir", t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		id := ""
		for deadline := time.Now().Add(30 * time.Second); id == "" && time.Now().Before(deadline); {
			id = testbedOwnedBy(cmd.Process.Pid)
		}
		if id == "" {
			cmd.Process.Kill()
			t.Fatal("the load built no testbed within 30 s")
		}
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if err == nil || (ok && ee.ExitCode() == 0) {
			// The whole load finished before the signal landed: try again.
			t.Logf("attempt %d: the load ended before the interrupt", attempt)
			continue
		}
		if !ok || ee.ExitCode() != 130 {
			t.Fatalf("interrupted load exited with %v, want status 130", err)
		}
		assertTestbedGone(t, id)
		return
	}
	t.Skip("the load kept finishing before the interrupt; nothing was checked")
}

// startUntilFirstLoad starts a `spdylab load` and returns once it has
// reported its first finished load (or ended), with the lines it printed
// before; the rest of its stderr is drained in the background.
func startUntilFirstLoad(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "run 1/") {
		said = append(said, sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return said
}

// processesMentioning lists the PIDs whose command line contains s.
func processesMentioning(t *testing.T, s string) []int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cl), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestLoadCommandTables(t *testing.T) {
	var out, errb bytes.Buffer
	code := runLoad(context.Background(), []string{"--no-link", "--runs", "3", "--page", "twitter", "--proto", "spdy/3", "--work-dir", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"page twitter (7 resources", "spdy/3: 3 loads, 0 failed", "PLT", "ToW", "blocked", "receive", "connections 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(errb.String(), "run "); n != 3 {
		t.Errorf("%d progress lines on stderr, want 3:\n%s", n, errb.String())
	}
}

func TestLinkCheckLine(t *testing.T) {
	lc := probe.LinkCheck{RTTms: 20.61, RTTConfiguredms: 20, DownMbps: 9.998, QueueDownPkts: 30, OK: true,
		Note: "down 9.998 Mbit/s (configured 10), queue 30 pkts (configured 30): 31 of 41 delivered, 10 dropped at the queue"}
	want := "link check: rtt 20.6 ms (configured 20.0 ms); down 9.998 Mbit/s (configured 10), queue 30 pkts (configured 30): " +
		"31 of 41 delivered, 10 dropped at the queue: ok"
	if got := linkCheckLine(lc); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	lc.OK, lc.Problem = false, "queue_down 45pkts outside 27..33"
	if got := linkCheckLine(lc); !strings.HasSuffix(got, "10 dropped at the queue: PROBLEM: queue_down 45pkts outside 27..33") {
		t.Errorf("failed check: %q", got)
	}
	if got := linkCheckLine(probe.LinkCheck{RTTms: 4, RTTConfiguredms: 4, OK: true}); got != "link check: rtt 4.0 ms (configured 4.0 ms): ok" {
		t.Errorf("RTT-only check: %q", got)
	}
}
