package study

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const lockChildEnv = "SPDYLAB_TEST_LOCK_CHILD"

// TestLockChild is the second process of TestRunLockIsExclusive: it takes
// the lock and reports what it saw (run only with lockChildEnv set).
func TestLockChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("helper process")
	}
	l, err := LockRun(dir)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("locked, previous", l.PrevPID)
	if os.Getenv(lockChildEnv+"_DIE") != "" {
		os.Exit(3) // without Release: as if killed
	}
	l.Release()
}

func lockChild(t *testing.T, dir string, die bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	if die {
		cmd.Env = append(cmd.Env, lockChildEnv+"_DIE=1")
	}
	out, _ := cmd.Output()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "error:") || strings.HasPrefix(line, "locked") {
			return line
		}
	}
	t.Fatalf("lock child printed %q", out)
	return ""
}

func TestRunLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	l, err := LockRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.PrevPID != 0 {
		t.Errorf("fresh directory: previous pid %d", l.PrevPID)
	}
	got := lockChild(t, dir, false)
	if !strings.Contains(got, "in use by another spdylab run (pid "+strconv.Itoa(os.Getpid())+")") {
		t.Errorf("second run while the first holds the lock: %q", got)
	}
	l.Release()
	// Released normally: the next run finds no killed predecessor.
	if got := lockChild(t, dir, false); got != "locked, previous 0" {
		t.Errorf("after a normal release: %q", got)
	}
	// A run that dies holding the lock: the kernel frees the lock and the
	// next run learns the dead run's PID, to clean up after it.
	first := lockChild(t, dir, true)
	if first != "locked, previous 0" {
		t.Fatalf("dying child: %q", first)
	}
	l2, err := LockRun(dir)
	if err != nil {
		t.Fatalf("lock not freed by the dead holder: %v", err)
	}
	defer l2.Release()
	if l2.PrevPID <= 0 || l2.PrevPID == os.Getpid() {
		t.Errorf("previous pid after a killed run: %d", l2.PrevPID)
	}
	b, _ := os.ReadFile(filepath.Join(dir, RunLockName))
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want our pid", b)
	}
}

func TestRunLockMissingDirectory(t *testing.T) {
	_, err := LockRun(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("lock in a missing directory: %v", err)
	}
}
