package netem

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Go cannot switch a child's network namespace between fork and exec, and
// Host.Command must return an ordinary unstarted *exec.Cmd that callers
// Start, Run or Wait as usual. So the command re-executes the current binary
// (/proc/self/exe) with argv[0] = reexecArg0; this package's init sees that
// marker before main runs, enters the namespace on the main thread, gives the
// process its own mount namespace with the testbed's /etc/hosts and
// /etc/resolv.conf bind-mounted, records its PID in the testbed's state
// directory and execs the real program, which inherits all of it. Because
// exec keeps the PID, cmd.Process is the program itself.
const reexecArg0 = "spdylab-netns-exec"

func init() {
	if len(os.Args) > 0 && os.Args[0] == reexecArg0 {
		os.Exit(reexecMain(os.Args[1:]))
	}
}

// reexecMain handles: NSPATH ETCDIR -- PROGRAM ARGV0 ARGS...
// ETCDIR may be "-" (no file overrides).
func reexecMain(args []string) int {
	if len(args) < 5 || args[2] != "--" {
		fmt.Fprintf(os.Stderr, "%s: malformed arguments %q\n", reexecArg0, args)
		return 127
	}
	nsPath, etcDir, prog, argv := args[0], args[1], args[3], args[4:]
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "spdylab: running %s in %s: %s\n", prog, filepath.Base(nsPath), fmt.Sprintf(format, a...))
		return 127
	}
	// Exec replaces the whole process with the state of the calling thread,
	// so everything below must happen on this one thread.
	runtime.LockOSThread()
	fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("opening the namespace: %v", err)
	}
	if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		return fail("entering the namespace: %v", err)
	}
	unix.Close(fd)
	if etcDir != "-" {
		if err := overlayEtc(etcDir); err != nil {
			return fail("%v", err)
		}
		recordPID(filepath.Dir(etcDir), prog)
	}
	if err := unix.Exec(prog, argv, os.Environ()); err != nil {
		return fail("exec: %v", err)
	}
	return 127 // not reached
}

// overlayEtc gives the calling thread a private mount namespace in which
// etcDir/hosts and etcDir/resolv.conf cover the system's files, like
// `ip netns exec` does with /etc/netns/NAME.
func overlayEtc(etcDir string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("new mount namespace: %w", err)
	}
	// Keep our bind mounts from propagating back to the host.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave mount: %w", err)
	}
	for _, name := range []string{"hosts", "resolv.conf"} {
		src := filepath.Join(etcDir, name)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		// /etc/resolv.conf is often a symlink (systemd-resolved): cover its
		// target, which is what the resolver ends up reading.
		dst, err := filepath.EvalSymlinks("/etc/" + name)
		if err != nil {
			continue // no such file on this system: nothing reads it either
		}
		if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mounting %s over %s: %w", src, dst, err)
		}
	}
	return nil
}

// Command prepares name with args to run inside h's network namespace. The
// program sees the testbed's host names in /etc/hosts (or, with DNS on, a
// resolv.conf pointing at the testbed's DNS server). Start/Run/Wait it as
// any exec.Cmd; Close kills whatever still runs in the testbed. Loopback
// hosts run the program directly.
func (h *Host) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if h.ns == nil {
		return exec.CommandContext(ctx, name, args...)
	}
	path := name
	var lookErr error
	if !strings.Contains(name, "/") {
		path, lookErr = exec.LookPath(name)
	}
	etc := "-"
	if h.tb.stateDir != "" {
		etc = filepath.Join(h.tb.stateDir, "etc-"+h.role())
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Args = append([]string{reexecArg0, h.ns.path(), etc, "--", path, name}, args...)
	if lookErr != nil {
		cmd.Err = lookErr
	}
	return cmd
}

// role is the short name of h within its testbed: "c" or "s1".."s8", "r".
func (h *Host) role() string {
	if h.ns == nil {
		return h.Name
	}
	return h.ns.name[strings.LastIndexByte(h.ns.name, '-')+1:]
}
