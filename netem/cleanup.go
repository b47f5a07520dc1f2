package netem

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/atomicfile"
)

// Where testbeds leave traces that survive a killed process.
var (
	// netnsDir is where named namespaces are bind-mounted (as `ip netns`).
	netnsDir = "/run/netns"
	// stateRoot holds one directory per live testbed: owner (PID and
	// command line of the process that built it), pids (helper processes
	// started with Host.Command) and the etc-* files those processes see.
	stateRoot = "/run/spdylab"
)

// Prefix starts the name of every namespace a testbed creates.
const Prefix = "sl-"

// nsNamePattern matches the namespaces New creates, and only those.
var nsNamePattern = regexp.MustCompile(`^sl-([a-z0-9]{1,9})-(c|r|s[1-8])$`)

// idPattern is what Config.Name may be.
var idPattern = regexp.MustCompile(`^[a-z0-9]{1,9}$`)

// ---- process-wide registry of live testbeds ----

var registry struct {
	sync.Mutex
	live      map[*Testbed]struct{}
	installed bool
	hooks     []func(os.Signal) bool
}

func register(tb *Testbed) {
	registry.Lock()
	defer registry.Unlock()
	if registry.live == nil {
		registry.live = map[*Testbed]struct{}{}
	}
	registry.live[tb] = struct{}{}
	if !registry.installed {
		registry.installed = true
		ch := make(chan os.Signal, 2)
		// SIGHUP too: a closed terminal must not leave namespaces behind.
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go handleSignals(ch)
	}
}

func unregister(tb *Testbed) {
	registry.Lock()
	defer registry.Unlock()
	delete(registry.live, tb)
}

// OnSignal lets a command take over SIGINT/SIGTERM/SIGHUP while it runs
// something interactive: hook is called first and, when it returns true, the
// default action (close every testbed, exit 128+signal: 130, 143, 129) is
// skipped. `spdylab shell`
// uses it to hand the signal to its child, whose exit then ends the shell.
// The returned function removes the hook.
func OnSignal(hook func(os.Signal) bool) (remove func()) {
	registry.Lock()
	defer registry.Unlock()
	registry.hooks = append(registry.hooks, hook)
	idx := len(registry.hooks) - 1
	return func() {
		registry.Lock()
		defer registry.Unlock()
		registry.hooks[idx] = nil
	}
}

func handleSignals(ch chan os.Signal) {
	for sig := range ch {
		registry.Lock()
		hooks := slices.Clone(registry.hooks)
		registry.Unlock()
		handled := false
		for _, h := range hooks {
			if h != nil && h(sig) {
				handled = true
			}
		}
		if handled {
			continue
		}
		CloseAll()
		code := 1
		if n, ok := sig.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}
}

// CloseAll closes every live testbed of this process. Commands call it on
// their way out of a panic (see ClosePanicking); the signal handler calls it
// before exiting.
func CloseAll() {
	registry.Lock()
	live := make([]*Testbed, 0, len(registry.live))
	for tb := range registry.live {
		live = append(live, tb)
	}
	registry.Unlock()
	var wg sync.WaitGroup
	for _, tb := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := tb.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "netem: closing testbed %s: %v\n", tb.id, err)
			}
		}()
	}
	wg.Wait()
}

// ClosePanicking is deferred at the top of a command: if the command's
// goroutine panics, every live testbed is closed and the panic continues.
//
//	defer netem.ClosePanicking()
//
// A panic in another goroutine kills the process before any defer runs;
// `spdylab clean` (Clean) then removes what was left.
func ClosePanicking() {
	if r := recover(); r != nil {
		CloseAll()
		panic(r)
	}
}

// ---- state directory ----

// writeOwner creates the testbed's state directory before any namespace
// exists, so that every leftover namespace has a record naming its owner.
func writeOwner(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("netem: creating state directory: %w", err)
	}
	owner := fmt.Sprintf("%d\n%s\n", os.Getpid(), cmdline(os.Getpid()))
	return atomicfile.Write(filepath.Join(dir, "owner"), []byte(owner))
}

// recordPID appends the calling process (a Host.Command child, just before
// it execs prog) to the testbed's pids file.
func recordPID(stateDir, prog string) { recordPIDOf(stateDir, os.Getpid(), prog) }

// recordPIDOf appends pid running prog to the testbed's pids file.
func recordPIDOf(stateDir string, pid int, prog string) {
	f, err := os.OpenFile(filepath.Join(stateDir, "pids"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	// One short write with O_APPEND: concurrent children never interleave.
	fmt.Fprintf(f, "%d %s\n", pid, prog)
}

// cmdline is /proc/PID/cmdline with NULs as spaces ("" if gone).
func cmdline(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// readOwner returns the owner record of the testbed whose state is in dir:
// the PID and command line of the process that built it (0, "" without a
// readable record).
func readOwner(dir string) (pid int, cmd string) {
	b, err := os.ReadFile(filepath.Join(dir, "owner"))
	if err != nil {
		return 0, ""
	}
	lines := strings.SplitN(string(b), "\n", 3)
	pid, err = strconv.Atoi(lines[0])
	if err != nil || pid <= 0 {
		return 0, ""
	}
	if len(lines) >= 2 {
		cmd = lines[1]
	}
	return pid, cmd
}

// ownerPID is the PID recorded as the testbed's owner (0 without a record).
func ownerPID(dir string) int {
	pid, _ := readOwner(dir)
	return pid
}

// ownerAlive reports whether the process that built the testbed whose state
// is in dir still runs (same PID and same command line).
func ownerAlive(dir string) bool {
	pid, cmd := readOwner(dir)
	if pid == 0 || cmd == "" {
		return false
	}
	cur := cmdline(pid)
	return cur != "" && cur == cmd
}

// ---- killing what runs in a namespace ----

// nsInode identifies a network namespace by the inode of its nsfs file.
func nsInode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// pidsIn lists the processes (other than this one) whose network namespace
// is one of inodes: anything running there was started into the testbed.
func pidsIn(inodes map[uint64]bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		ino, err := nsInode(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err == nil && inodes[ino] {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killIn stops every process in the namespaces: SIGTERM, then SIGKILL for
// those still there after grace.
func killIn(inodes map[uint64]bool, grace time.Duration) {
	pids := pidsIn(inodes)
	if len(pids) == 0 {
		return
	}
	for _, pid := range pids {
		_ = unix.Kill(pid, unix.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if len(pidsIn(inodes)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range pidsIn(inodes) {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	// Zombies of our own children keep the inode link until reaped by the
	// caller's Wait; they hold no namespace reference, so we stop here.
}

// ensureSharedNetnsDir makes /run/netns a shared mount point, as `ip netns
// add` does. Two things depend on it: a later `ip netns add` (by anyone)
// then finds a mount point and does not stack a new bind mount on top,
// which would hide our namespace mounts from DeleteNamed; and the mount
// namespaces of Host.Command children (slaves of /) see our unmounts, so a
// long-running child elsewhere never pins a deleted testbed's namespaces.
func ensureSharedNetnsDir() error {
	if err := os.MkdirAll(netnsDir, 0o755); err != nil {
		return fmt.Errorf("netem: creating %s: %w", netnsDir, err)
	}
	err := unix.Mount("", netnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	if errors.Is(err, unix.EINVAL) { // not a mount point yet
		if err = unix.Mount(netnsDir, netnsDir, "none", unix.MS_BIND|unix.MS_REC, ""); err == nil {
			err = unix.Mount("", netnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
		}
	}
	if err != nil {
		return fmt.Errorf("netem: making %s a shared mount: %w", netnsDir, err)
	}
	return nil
}

// errCovered marks a namespace whose bind mount cannot be reached: another
// mount of /run/netns was stacked on top of it after it was made (by an
// `ip netns add` on a machine where /run/netns was not yet a mount point).
var errCovered = errors.New("its bind mount is hidden under a later mount of /run/netns " +
	"(an `ip netns add` while /run/netns was no mount point); only a reboot removes the name")

// visibleMount reports whether a namespace file is a mount point in our
// view of netnsDir (its device differs from the directory's). A name whose
// mount was covered by a later mount of the directory is a plain file here.
func visibleMount(path string) bool {
	var f, d unix.Stat_t
	if unix.Stat(path, &f) != nil || unix.Stat(filepath.Dir(path), &d) != nil {
		return false
	}
	return f.Dev != d.Dev
}

// deleteNamed removes a namespace's bind mount and name; the namespace
// itself goes away when nothing references it any more.
func deleteNamed(name string) error {
	path := filepath.Join(netnsDir, name)
	err := unix.Unmount(path, unix.MNT_DETACH)
	if err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("netem: unmounting namespace %s: %w", name, err)
	}
	err = os.Remove(path)
	switch {
	case err == nil || errors.Is(err, os.ErrNotExist):
		return nil
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("netem: deleting namespace %s: %w", name, errCovered)
	}
	return fmt.Errorf("netem: deleting namespace %s: %w", name, err)
}

// ---- spdylab clean ----

// CleanReport lists what Clean removed or would remove.
type CleanReport struct {
	Namespaces []string // sl- namespaces deleted
	Killed     []int    // processes killed inside them
	StateDirs  []string // state directories removed
	Skipped    []string // sl- namespaces left alone, with the reason
	Stuck      []string // sl- names that cannot be removed without a reboot, with the reason
}

// Clean removes testbeds left behind by a spdylab process that died without
// closing them (SIGKILL, a panic in a goroutine, a power cut of the shell).
// A testbed counts as left behind when the process recorded as its owner is
// gone; testbeds of live processes are skipped unless all is set. Only
// namespaces named like New names them are touched. dryRun reports without
// changing anything.
func Clean(all, dryRun bool) (CleanReport, error) {
	return clean(all, dryRun, nil)
}

// CleanOwnedBy removes the testbeds left behind by the dead process pid and
// nothing else: a resumed study run uses it on the testbeds of the run it
// resumes (recorded in its output directory) after that run was killed.
// Testbeds of a live process with that PID (same command line) are kept.
func CleanOwnedBy(pid int) (CleanReport, error) {
	if pid <= 0 {
		return CleanReport{}, nil
	}
	return clean(false, false, func(dir string) bool { return ownerPID(dir) == pid })
}

// clean is Clean restricted to the testbeds whose state directory match
// accepts (all of them when match is nil). With a match, a testbed without
// an owner record is never touched: it cannot be shown to be the one asked for.
func clean(all, dryRun bool, match func(stateDir string) bool) (CleanReport, error) {
	var rep CleanReport
	byID := map[string][]string{}
	ents, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("netem: listing %s: %w", netnsDir, err)
	}
	for _, e := range ents {
		if m := nsNamePattern.FindStringSubmatch(e.Name()); m != nil {
			byID[m[1]] = append(byID[m[1]], e.Name())
		}
	}
	// State directories whose namespaces are already gone are stale too.
	states, _ := os.ReadDir(stateRoot)
	for _, s := range states {
		if _, ok := byID[s.Name()]; !ok && s.IsDir() && idPattern.MatchString(s.Name()) {
			byID[s.Name()] = nil
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		dir := filepath.Join(stateRoot, id)
		if match != nil && !match(dir) {
			continue
		}
		if !all && ownerAlive(dir) {
			for _, n := range byID[id] {
				rep.Skipped = append(rep.Skipped, n+" (owner process still running)")
			}
			continue
		}
		if !all {
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) && recentlyCreated(byID[id]) {
				// New writes the state directory before the namespaces, so
				// this can only be someone else's or a testbed being torn
				// down right now; leave it for a later run.
				for _, n := range byID[id] {
					rep.Skipped = append(rep.Skipped, n+" (no owner record, created moments ago)")
				}
				continue
			}
		}
		inodes := map[uint64]bool{}
		for _, n := range byID[id] {
			if ino, err := nsInode(filepath.Join(netnsDir, n)); err == nil {
				inodes[ino] = true
			}
		}
		if len(inodes) > 0 {
			pids := pidsIn(inodes)
			rep.Killed = append(rep.Killed, pids...)
			if !dryRun {
				killIn(inodes, time.Second)
			}
		}
		for _, n := range byID[id] {
			if !visibleMount(filepath.Join(netnsDir, n)) {
				rep.Stuck = append(rep.Stuck, n+": "+errCovered.Error())
				continue
			}
			if !dryRun {
				if err := deleteNamed(n); errors.Is(err, errCovered) {
					rep.Stuck = append(rep.Stuck, n+": "+errCovered.Error())
					continue
				} else if err != nil {
					errs = append(errs, err)
					continue
				}
			}
			rep.Namespaces = append(rep.Namespaces, n)
		}
		if _, err := os.Stat(dir); err == nil {
			rep.StateDirs = append(rep.StateDirs, dir)
			if !dryRun {
				if err := os.RemoveAll(dir); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return rep, errors.Join(errs...)
}

func recentlyCreated(names []string) bool {
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(netnsDir, n)); err == nil && time.Since(st.ModTime()) < 10*time.Second {
			return true
		}
	}
	return false
}
