package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/store"
)

// Ctrl-C, and kill -9, in the middle of a study on a real testbed. Ctrl-C:
// the run exits 130 and its testbed's namespaces are gone at once. kill -9:
// nothing can clean up then, so the resumed run removes exactly the killed
// run's testbeds and scratch files. Either way stored loads stay and the
// same command resumes and completes without repeating any load.
func TestRunInterruptCleansUpAndResumes(t *testing.T) {
	testutil.RequireRoot(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { interruptAndResume(t, sig) })
	}
}

func interruptAndResume(t *testing.T, sig os.Signal) {
	bin := spdylabBinary(t)
	dir := t.TempDir()
	file := writeStudy(t, dir, "tiny-link.toml", tinyLink)
	out := filepath.Join(dir, "out")
	cmd, stderr := startRun(t, bin, "run", file, "--out", out, "-q")
	waitStored(t, out, 3, stderr)
	ids := testbedsOwnedBy(cmd.Process.Pid)
	if len(ids) == 0 {
		t.Fatal("found no testbed owned by the run")
	}
	// A second run into the same directory is refused while the first runs.
	if res, err := exec.Command(bin, "run", file, "--out", out, "-q").CombinedOutput(); err == nil ||
		!strings.Contains(string(res), "in use by another spdylab run (pid "+strconv.Itoa(cmd.Process.Pid)+")") {
		t.Errorf("concurrent run into the same --out: %v\n%s", err, res)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if sig == os.Interrupt {
		if !exitedWith(err, 130) {
			t.Fatalf("interrupted run exited with %v, want status 130", err)
		}
		for _, id := range ids {
			assertTestbedGone(t, id)
		}
		if _, err := os.Stat(filepath.Join(out, ".work")); !os.IsNotExist(err) {
			t.Error("work directory survived the interrupt")
		}
	} else if _, err := os.Stat(filepath.Join("/run/netns", "sl-"+ids[0]+"-c")); err != nil {
		t.Fatalf("kill -9 left no namespace behind (%v): the test no longer tests the clean-up on resume", err)
	}
	stored := storedProbes(t, out)
	if stored < 3 || stored >= 12 {
		t.Fatalf("%d loads stored after the interrupt", stored)
	}
	// netem's own tests run spdylab clean's code in parallel with this
	// package; it may take the dead run's leftovers first.
	_, err = os.Stat(filepath.Join("/run/netns", "sl-"+ids[0]+"-c"))
	leftovers := err == nil
	res, err := exec.Command(bin, "run", file, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	killedNote := "left by the killed run (pid " + strconv.Itoa(cmd.Process.Pid) + ")"
	if sig == os.Interrupt && strings.Contains(string(res), killedNote) || sig == syscall.SIGKILL && leftovers && !strings.Contains(string(res), killedNote) {
		t.Errorf("resume after %v: output %s; want %q only after kill -9", sig, res, killedNote)
	}
	for _, id := range ids {
		assertTestbedGone(t, id)
	}
	if _, err := os.Stat(filepath.Join(out, ".work")); !os.IsNotExist(err) {
		t.Error("work directory survived the resumed run")
	}
	if b, _ := os.ReadFile(filepath.Join(out, study.RunLockName)); len(b) != 0 {
		t.Errorf("lock file after a normal end holds %q", b)
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, _ := st.States()
	if len(states) != 12 {
		t.Errorf("%d loads after resume, want 12", len(states))
	}
	for k, s := range states {
		if s.Attempts != 1 && !(s.Attempts == 2 && s.OK) {
			t.Errorf("%v: %d attempts", k, s.Attempts)
		}
	}
	sess, _ := st.Sessions()
	if len(sess) != 2 {
		t.Errorf("%d sessions recorded, want 2 (run and resume)", len(sess))
	}
}
