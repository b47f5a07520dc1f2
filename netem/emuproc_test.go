package netem

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

func emuPID(t *testing.T, tb *Testbed) int {
	t.Helper()
	p, ok := tb.emu.(*emuProc)
	if !ok {
		t.Fatalf("emulator is %T, want the child process", tb.emu)
	}
	return p.pid
}

func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !processGone(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return processGone(pid)
}

func TestEmulatorRunsInItsOwnProcess(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb, err := New(context.Background(), Config{Shards: 1, Link: probe.Link{RTT: 4 * time.Millisecond, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := tb.ID()
	pid := emuPID(t, tb)
	if got := cmdline(pid); got != emuArg0 {
		t.Errorf("emulator process %d has command line %q, want %q", pid, got, emuArg0)
	}
	// It lives in the router's namespace, where Close's and Clean's sweeps
	// look for processes, and in the testbed's pids file.
	want, err := nsInode(tb.router.ns.path())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := nsInode(fmt.Sprintf("/proc/%d/ns/net", pid)); err != nil || got != want {
		t.Errorf("emulator process is in namespace inode %d (%v), router's is %d", got, err, want)
	}
	pids, _ := os.ReadFile(filepath.Join(tb.stateDir, "pids"))
	if !strings.Contains(string(pids), fmt.Sprintf("%d %s\n", pid, emuArg0)) {
		t.Errorf("pids file %q does not record emulator %d", pids, pid)
	}
	// Packets cross it, and the counters come from it.
	tb.ResetCounters()
	if err := exchange(tb, 10); err != nil {
		t.Fatal(err)
	}
	c := tb.Counters()
	if c.Up.PktsDelivered == 0 || c.Down.PktsDelivered == 0 {
		t.Errorf("counters after an exchange: %+v", c)
	}
	tb.ResetCounters()
	if c := tb.Counters(); c.Up.PktsOffered > 2 || c.Down.PktsOffered > 2 {
		t.Errorf("counters after reset: %+v", c)
	}
	if err := tb.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !processGone(pid) {
		t.Errorf("emulator process %d still runs after Close", pid)
	}
	assertGone(t, id)
}

func TestEmulatorKilledMakesCloseReportIt(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb, err := New(context.Background(), Config{Shards: 1, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := tb.ID()
	pid := emuPID(t, tb)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitGone(pid, 5*time.Second) {
		t.Fatalf("emulator %d survived SIGKILL", pid)
	}
	// Requests fail instead of hanging.
	if _, _, err := tb.emu.pipeCounters(); err == nil || !strings.Contains(err.Error(), "died") {
		t.Errorf("counters of a dead emulator: %v", err)
	}
	tb.ResetCounters()
	if c := tb.Counters(); c != (probe.LinkCounters{}) {
		t.Errorf("counters of a dead emulator: %+v", c)
	}
	done := make(chan error, 1)
	go func() { done <- tb.Close() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "died") {
			t.Errorf("Close after the emulator died: %v, want an error saying so", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close hangs after the emulator died")
	}
	assertGone(t, id)
}

// The child's own start-up errors come back as an error, not a hang. Here
// the trace file is broken after the parent checked it (the child loads
// it again).
func TestEmulatorProcessReportsStartError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.trace")
	if err := os.WriteFile(path, []byte("1\n2\nxyz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := link.NewTrace("good", []int64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	null1, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null1.Close()
	null2, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null2.Close()
	cfg := Config{Shards: 1, Link: probe.Link{Shared: true, TraceDown: path}}
	var d dirConfigs
	d.down.Trace = tr
	e, err := startEmulatorProcess(cfg, d, null1, null2, nil, "")
	if err == nil {
		e.close()
		t.Fatal("emulator process started with a malformed trace")
	}
	if !strings.Contains(err.Error(), "bad.trace:3") {
		t.Errorf("error %q does not name the trace line", err)
	}
}

func TestInProcessEmulator(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newTestbed(t, Config{Shards: 1, InProcessEmulator: true, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	if _, ok := tb.emu.(*emulator); !ok {
		t.Fatalf("emulator is %T with InProcessEmulator", tb.emu)
	}
	if err := exchange(tb, 10); err != nil {
		t.Fatal(err)
	}
	if c := tb.Counters(); c.Up.PktsDelivered == 0 {
		t.Errorf("counters: %+v", c)
	}
}

// SIGKILL of the process that owns the testbed takes the emulator with it
// (PR_SET_PDEATHSIG); Clean removes the rest.
func TestEmulatorDiesWithItsParent(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %q %v", line, err)
	}
	var id string
	var sleeper, emu int
	if _, err := fmt.Sscan(line, &id, &sleeper, &emu); err != nil || emu == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper output %q: %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitGone(emu, 5*time.Second) {
		t.Errorf("emulator %d survived the SIGKILL of its parent", emu)
	}
	if _, err := Clean(false, false); err != nil {
		t.Errorf("Clean: %v", err)
	}
	assertGone(t, id)
	if !waitGone(sleeper, 5*time.Second) {
		t.Errorf("sleeper %d survived Clean", sleeper)
	}
}

// The emulator process's Go runtime threads start with a coarse timer slack
// (so the runtime's monitor does not poll every 20 µs), its pump and
// delay-line threads keep their precise one, and the thread of ours that
// forked it gets its own slack back.
func TestEmulatorTimerSlackIsCoarseOnlyForTheRuntime(t *testing.T) {
	testutil.RequireRoot(t)
	tb, err := New(context.Background(), Config{Shards: 1, Link: probe.Link{RTT: 4 * time.Millisecond, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	slacks := threadSlacks(t, emuPID(t, tb))
	precise, coarse := 0, 0
	for tid, ns := range slacks {
		switch {
		case ns <= 1:
			precise++
		case ns == emuTimerSlack.Nanoseconds():
			coarse++
		default:
			t.Errorf("emulator thread %d has timer slack %d ns, want %d or the pipes' 1", tid, ns, emuTimerSlack.Nanoseconds())
		}
	}
	if want := 4; precise != want { // one pipe and one pump per direction
		t.Errorf("%d emulator threads with a precise timer slack, want %d (%v)", precise, want, slacks)
	}
	if coarse == 0 {
		t.Errorf("no emulator thread has the coarse slack: %v", slacks)
	}
	for tid, ns := range threadSlacks(t, os.Getpid()) {
		if ns == emuTimerSlack.Nanoseconds() {
			t.Errorf("thread %d of the test process kept the emulator's timer slack", tid)
		}
	}
}

// threadSlacks is the timer slack of every thread of process pid, in ns.
func threadSlacks(t *testing.T, pid int) map[int]int64 {
	t.Helper()
	tids, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int64{}
	for _, d := range tids {
		b, err := os.ReadFile("/proc/" + d.Name() + "/timerslack_ns")
		if err != nil {
			continue // the thread exited
		}
		var tid int
		var ns int64
		fmt.Sscan(d.Name(), &tid)
		fmt.Sscan(strings.TrimSpace(string(b)), &ns)
		out[tid] = ns
	}
	return out
}
