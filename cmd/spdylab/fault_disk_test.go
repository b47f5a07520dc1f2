package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study/store"
)

// mountSmallDisk mounts a tmpfs of the given size (mount(8)'s spelling) in
// a temporary directory, unmounted when the test ends.
func mountSmallDisk(t *testing.T, size string) string {
	t.Helper()
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("sl-faults", disk, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	return disk
}

// fillDisk writes a file into dir until the disk is full.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return path
		}
	}
}

// The disk that holds a study's store and pcaps fills up mid-run: the run
// stops with an error naming the path it could not write, stores no load
// as failed for it, the store still opens and is read, and the same
// command resumes once there is space, loading exactly the loads that
// were missing.
func TestFullDiskMidRunResumesWithNothingLost(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	// With pcaps the capture is the first write to fail; without, the
	// store.
	t.Run("pcaps", func(t *testing.T) { fullDiskRun(t, bin, true) })
	t.Run("store", func(t *testing.T) { fullDiskRun(t, bin, false) })
}

func fullDiskRun(t *testing.T, bin string, withPcaps bool) {
	disk := mountSmallDisk(t, "64m")
	file := writeStudy(t, t.TempDir(), "tiny-link.toml", tinyLink)
	out, pcaps := filepath.Join(disk, "out"), filepath.Join(disk, "pcap")
	args := []string{"run", file, "--out", out, "-j", "1", "-q", "--no-report"}
	if withPcaps {
		args = append(args, "--pcap", pcaps)
	}
	cmd, stderr := startRun(t, bin, args...)
	waitStored(t, out, 2, stderr)
	// Filled while the run is held, so that it is mid-run whatever the
	// machine's pace: its next write of a pcap or a load fails.
	cmd.Process.Signal(syscall.SIGSTOP)
	filler := fillDisk(t, disk)
	cmd.Process.Signal(syscall.SIGCONT)
	err := cmd.Wait()
	msg := strings.TrimSpace(stderr.String())
	t.Logf("run on a full disk: %v: %s", err, msg)
	if !exitedWith(err, 1) {
		t.Errorf("run on a full disk exited with %v, want status 1", err)
	}
	if !strings.Contains(msg, "the output disk is full") || !strings.Contains(msg, "run again with the same output directory") || !strings.Contains(msg, disk+"/") {
		t.Errorf("message %q does not say the disk is full, which path, and how to go on", msg)
	}
	kept := storedProbes(t, out)
	if kept < 2 || kept >= 12 {
		t.Fatalf("%d probes stored when the disk filled, want at least the 2 before it and not all 12", kept)
	}
	if n := countStored(t, out, `SELECT COUNT(*) FROM probes WHERE error LIKE '%space%' OR error LIKE '%disk%full%'`); n > 0 {
		t.Errorf("%d attempts stored as failed for the full disk: they would use up their probes' attempts", n)
	}
	// Still full: the store opens and is read.
	if st, err := store.OpenReader(out); err != nil {
		t.Errorf("the store does not open on the full disk: %v", err)
	} else {
		st.Close()
	}
	var whyErr bytes.Buffer
	if code := whyCmd([]string{out}, io.Discard, &whyErr); code != 0 {
		t.Errorf("why on the full disk: exit %d: %s", code, whyErr.String())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	resumeCompletes(t, bin, args, out, kept)
	if _, err := os.Stat(filepath.Join(out, ".work")); !os.IsNotExist(err) {
		t.Error("work directory survived the resumed run")
	}
	if !withPcaps {
		return
	}
	ents, _ := os.ReadDir(pcaps)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 12 {
		t.Errorf("%d files in the pcap folder after the resume, want one per load (12): %v", len(names), names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			t.Errorf("half-written capture %s left in the pcap folder", n)
		}
	}
}
