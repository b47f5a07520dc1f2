package main

import (
	"bytes"
	"os"
	"os/exec"
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
	file := filepath.Join(dir, "tiny-link.toml")
	os.WriteFile(file, []byte(tinyLink), 0o644)
	out := filepath.Join(dir, "out")
	args := []string{"run", file, "--out", out, "-j", "1", "-q", "--no-report"}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(2 * time.Minute); storedProbes(t, out) < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no loads stored within 2 minutes: %s", stderr.String())
		}
	}
	id := testbedOwnedBy(cmd.Process.Pid)
	if id == "" {
		t.Fatal("found no testbed owned by the run")
	}
	pidsFile, _ := os.ReadFile(filepath.Join("/run/spdylab", id, "pids"))
	var emu int
	var procs []int
	for _, line := range strings.Split(string(pidsFile), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		pid, _ := strconv.Atoi(f[0])
		procs = append(procs, pid)
		if f[1] == "spdylab-linkemu" {
			emu = pid
		}
	}
	if emu == 0 {
		t.Fatalf("testbed %s records no emulator process: %q", id, pidsFile)
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
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want status 1", err)
	}
	for _, w := range []string{"link emulator process " + strconv.Itoa(emu) + " died", "run the same command again to resume"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not say %q", msg, w)
		}
	}
	assertTestbedGone(t, id)
	for _, pid := range procs {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("process %d of the testbed survived the run", pid)
		}
	}
	if left := linksNamed(id); len(left) > 0 {
		t.Errorf("network devices of the testbed survived: %v (were %v)", left, devices)
	}
	if n := countStored(t, out, `SELECT COUNT(*) FROM probes WHERE failed != 0`); n > 0 {
		t.Errorf("%d attempts stored as failed: a dead emulator says nothing of the protocols", n)
	}
	kept := storedProbes(t, out)
	t0 := time.Now()
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	t.Logf("resumed in %v (%d probes were stored): %s", time.Since(t0).Round(time.Millisecond), kept, strings.TrimSpace(string(res)))
	if n, ok := storedProbes(t, out), countStored(t, out, `SELECT COUNT(*) FROM probes WHERE failed = 0`); n != 12 || ok != 12 {
		t.Errorf("after the resume: %d probes, %d successful attempts; want each of the 12 once", n, ok)
	}
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
