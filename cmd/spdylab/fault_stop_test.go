package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
)

// stopStudy is one cell whose verdict is clear (SPDY's one connection
// against HTTPS's six over a hundred small images), at 5 runs, the fewest
// a verdict takes.
const stopStudy = `
name = "stop"
runs = 5
seed = 1
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
rate = "10mbit/2mbit"
rtt = "50ms"
queue = "50pkt"
`

// The runner and its link emulator are stopped (SIGSTOP) for 30 s in the
// middle of a load and continued: the packets the emulator held come out
// 30 s late, so the load that spanned the stop is stored as a failed
// attempt naming the stall (whether it failed meanwhile or not) and loaded
// again, no successful load spans the stop, and every verdict is the one of the same study run beside it
// without a stop.
func TestStoppedRunnerReloadsTheStalledLoad(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	dir := t.TempDir()
	file := writeStudy(t, dir, "stop.toml", stopStudy)
	out, ref := filepath.Join(dir, "out"), filepath.Join(dir, "ref")
	refCmd, refErr := startRun(t, bin, "run", file, "--out", ref, "-j", "1", "-q")
	cmd, stderr := startRun(t, bin, "run", file, "--out", out, "-j", "1")
	waitStored(t, out, 2, stderr)
	id := runTestbed(t, cmd)
	// The runner (client and servers) and every process of its testbed
	// (the emulator) stop together, once the servers have segments in
	// flight: the emulator then holds packets that come out late.
	var procs []int
	for _, p := range testbedProcesses(t, id) {
		procs = append(procs, p.pid)
	}
	procs = append(procs, cmd.Process.Pid)
	waitInFlight(t, "sl-"+id+"-s1")
	for _, pid := range procs {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	stopped := time.Now()
	time.Sleep(30 * time.Second)
	resumed := time.Now()
	for _, pid := range procs {
		syscall.Kill(pid, syscall.SIGCONT)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the stopped run: %v\n%s", err, stderr.String())
	}
	if err := refCmd.Wait(); err != nil {
		t.Fatalf("the run beside it: %v\n%s", err, refErr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	t.Logf("stopped for %v: %s", resumed.Sub(stopped).Round(time.Millisecond), strings.Join(lines[max(0, len(lines)-3):], " / "))
	spanned := 0
	for _, a := range attemptsOf(t, out) {
		if !a.started.Before(stopped) || !a.started.Add(a.duration).After(resumed) {
			continue
		}
		spanned++
		t.Logf("load across the stop: %s run %d attempt %d, %v: failed %v %q", a.proto, a.run, a.attempt, a.duration.Round(time.Millisecond), a.failed, a.err)
		if !a.failed || !strings.HasPrefix(a.err, "the link emulator stalled during the load") || a.attempt != 0 {
			t.Errorf("%s run %d attempt %d spanned the stop and was stored as failed=%v %q, want a failed first attempt naming the stall", a.proto, a.run, a.attempt, a.failed, a.err)
		}
	}
	if spanned == 0 {
		t.Error("no stored load spans the stop")
	}
	if n, ok := storedProbes(t, out), countStored(t, out, `SELECT COUNT(*) FROM probes WHERE failed = 0`); n != 10 || ok != 10 {
		t.Errorf("%d probes, %d successful attempts; want each of the 10 loaded successfully once", n, ok)
	}
	got, want := verdicts(t, out), verdicts(t, ref)
	t.Logf("verdicts: stopped run %v, run beside it %v", got, want)
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("verdicts %v, the run beside it %v", got, want)
	}
	for h, v := range want {
		if got[h] != v {
			t.Errorf("condition %s: verdict %q after the stop, %q without", h, got[h], v)
		}
	}
}

var unackedRE = regexp.MustCompile(`unacked:(\d+)`)

// waitInFlight returns once the TCP senders in namespace ns have at least
// 4 segments unacknowledged: packets that are on the emulated link.
func waitInFlight(t *testing.T, ns string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		b, err := exec.Command("ip", "netns", "exec", ns, "ss", "-tin").Output()
		if err != nil {
			t.Fatalf("ss in %s: %v", ns, err)
		}
		n := 0
		for _, m := range unackedRE.FindAllStringSubmatch(string(b), -1) {
			u, _ := strconv.Atoi(m[1])
			n += u
		}
		if n >= 4 {
			return
		}
	}
	t.Fatalf("no segments in flight in %s for a minute", ns)
}

type storedAttempt struct {
	proto        string
	run, attempt int
	started      time.Time
	duration     time.Duration
	failed       bool
	err          string
}

// attemptsOf reads every stored attempt of the store in out.
func attemptsOf(t *testing.T, out string) []storedAttempt {
	t.Helper()
	db, err := openStoreRO(out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT proto, run, attempt, started, duration_ms, failed, COALESCE(error, '') FROM probes`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var as []storedAttempt
	for rows.Next() {
		var a storedAttempt
		var started string
		var ms float64
		if err := rows.Scan(&a.proto, &a.run, &a.attempt, &started, &ms, &a.failed, &a.err); err != nil {
			t.Fatal(err)
		}
		a.started, _ = time.Parse(time.RFC3339Nano, started)
		a.duration = time.Duration(ms * float64(time.Millisecond))
		as = append(as, a)
	}
	return as
}

// verdicts are the report's verdicts (conditions.json) by condition hash.
func verdicts(t *testing.T, out string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "conditions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var conds []struct {
		Hash         string `json:"hash"`
		Significance string `json:"significance"`
	}
	if err := json.Unmarshal(b, &conds); err != nil {
		t.Fatal(err)
	}
	v := map[string]string{}
	for _, c := range conds {
		if c.Significance != "" {
			v[c.Hash] = c.Significance
		}
	}
	return v
}
