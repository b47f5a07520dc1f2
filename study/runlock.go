package study

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/study/store"
)

// RunLockName is the file in an output directory that one `spdylab run` at
// a time holds locked (flock, so the kernel drops it when the process dies,
// even by SIGKILL). It names the holder's PID; a run that ends normally
// empties it, so a PID found there by the next run is one that was killed.
// The store owns the name (store.CheckNotRunning reads it).
const RunLockName = store.RunLockName

// RunLock is an output directory held by the calling process.
type RunLock struct {
	f *os.File
	// PrevPID is the process of the previous run into the directory when
	// that run did not end normally (killed, or the machine stopped); 0
	// otherwise. Its testbeds and scratch files may still be lying around.
	PrevPID int
}

// LockRun takes dir for this process. It fails, naming the other process,
// when another run holds it: two runs into one store would measure the same
// loads twice.
func LockRun(dir string) (*RunLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, RunLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			holder := ""
			if pid := lockHolder(f); pid > 0 {
				holder = fmt.Sprintf(" (pid %d)", pid)
			}
			f.Close()
			return nil, fmt.Errorf("%s is in use by another spdylab run%s; wait for it to end or choose another --out", dir, holder)
		}
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	l := &RunLock{f: f, PrevPID: readPID(f)}
	if l.PrevPID == os.Getpid() {
		l.PrevPID = 0 // our own record (a second LockRun in one process)
	}
	if err := l.write(fmt.Sprintf("%d\n", os.Getpid())); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return l, nil
}

// Release marks the run as ended normally and lets the next run in.
func (l *RunLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.write("")
	l.f.Close()
	l.f = nil
}

func (l *RunLock) write(s string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt([]byte(s), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

// lockHolder is the PID of the run holding f's lock, 0 if it cannot be
// told. The holder writes it just after taking the lock, so a run refused
// at that moment finds the file empty or naming the run before (killed):
// it reads again until the file names a live process, for at most a
// second.
func lockHolder(f *os.File) int {
	for i := 0; i < 100; i++ {
		if pid := readPID(f); pid > 0 && unix.Kill(pid, 0) != unix.ESRCH {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

func readPID(f *os.File) int {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 64))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
