package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
)

// The link emulator of a run's testbed is killed (SIGKILL) mid-run: the
// load under way fails naming the emulator, the run stops with that
// reason instead of loading on a dead link, it leaves no namespace,
// device or process of its testbed, stores no load as failed for it, and
// the same command resumes and completes.
func TestEmulatorKilledMidRunStopsCleanlyAndResumes(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	dir := t.TempDir()
	file := writeStudy(t, dir, "tiny-link.toml", tinyLink)
	out := filepath.Join(dir, "out")
	args := []string{"run", file, "--out", out, "-j", "1", "-q", "--no-report"}
	cmd, stderr := startRun(t, bin, args...)
	waitStored(t, out, 1, stderr)
	id := runTestbed(t, cmd)
	procs := testbedProcesses(t, id)
	var emu int
	for _, p := range procs {
		if p.name == "spdylab-linkemu" {
			emu = p.pid
		}
	}
	if emu == 0 {
		t.Fatalf("testbed %s records no emulator process: %v", id, procs)
	}
	devices := linksNamed(id)
	if err := syscall.Kill(emu, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("the run went on for 5 minutes after its emulator was killed: %s", stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	t.Logf("run whose emulator was killed: %v: %s", err, msg)
	if !exitedWith(err, 1) {
		t.Errorf("exit %v, want status 1", err)
	}
	for _, w := range []string{"link emulator process " + strconv.Itoa(emu) + " died", "run the same command again to resume"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not say %q", msg, w)
		}
	}
	assertTestbedGone(t, id)
	for _, p := range procs {
		if _, err := os.Stat("/proc/" + strconv.Itoa(p.pid)); err == nil {
			t.Errorf("process %d of the testbed survived the run", p.pid)
		}
	}
	if left := linksNamed(id); len(left) > 0 {
		t.Errorf("network devices of the testbed survived: %v (were %v)", left, devices)
	}
	if n := countStored(t, out, `SELECT COUNT(*) FROM probes WHERE failed != 0`); n > 0 {
		t.Errorf("%d attempts stored as failed: a dead emulator says nothing of the protocols", n)
	}
	resumeCompletes(t, bin, args, out, storedProbes(t, out))
}

// linksNamed lists the network devices of this namespace whose name
// holds s (a testbed's veths carry its id).
func linksNamed(s string) []string {
	ents, _ := os.ReadDir("/sys/class/net")
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), s) {
			out = append(out, e.Name())
		}
	}
	return out
}
