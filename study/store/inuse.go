package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// RunLockName is the file in an output directory that one `spdylab run`
// at a time holds (study.LockRun): it names the running process, and a
// run that ended normally leaves it empty.
const RunLockName = ".run.lock"

// CheckNotRunning fails, naming the process, when a run is writing the
// store in dir: its loads are still coming in, so whatever is read or
// recomputed from it now is already out of date. It only reads the lock
// (a run starting at the same moment is never refused because of it): a
// PID there whose process is gone is a run that was killed.
func CheckNotRunning(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, DBName)); err != nil {
		return fmt.Errorf("%s holds no spdylab results (%s missing)", dir, DBName)
	}
	b, err := os.ReadFile(filepath.Join(dir, RunLockName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s's run lock: %w", dir, err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 || !processExists(pid) {
		return nil
	}
	return fmt.Errorf("%s is being written by spdylab run (pid %d); wait for the run to end (or stop it), then try again", dir, pid)
}

// processExists: signal 0 checks without sending anything; EPERM means
// the process exists but belongs to someone else.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
