package netem

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Without root, a command can still build testbeds inside an unprivileged
// user namespace, where it is root over namespaces it creates. The whole
// command is re-executed in a new user, mount and network namespace; netem's init
// below notices and moves its /run/netns and /run/spdylab equivalents to a
// private tmpfs (the real ones are not writable). Every testbed then dies
// with the process, whatever kills it. Two things differ from running as
// root: the TUN device file (/dev/net/tun) must be accessible to the user
// (mode 0666 on most distributions), and the emulator's threads cannot get
// real-time priority, so its timing is less precise on a loaded machine.

const usernsEnv = "SPDYLAB_IN_USERNS"

// inUserNS is set in the re-executed child. The variable is removed from
// the environment at once so that programs the child starts (servers,
// tools under `spdylab shell`) do not act on it.
var inUserNS bool

func init() {
	if os.Getenv(usernsEnv) != "1" || (len(os.Args) > 0 && os.Args[0] == reexecArg0) {
		return
	}
	os.Unsetenv(usernsEnv)
	inUserNS = true
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("spdylab-userns-%d", os.Getpid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return // New then fails with a clear error about the state directory
	}
	// The mount namespace is ours alone: the tmpfs and everything in it
	// vanish with the process; the directory itself is removed on the way
	// out by the parent.
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "mode=0700"); err != nil {
		return
	}
	netnsDir = filepath.Join(dir, "netns")
	stateRoot = filepath.Join(dir, "state")
}

// Privileged reports whether this process can build testbeds directly.
func Privileged() bool { return privileged() }

// InUserNamespace reports whether this process runs as the re-executed
// child of RunInUserNamespace.
func InUserNamespace() bool { return inUserNS }

// RunInUserNamespace re-executes the current command line inside a new
// unprivileged user namespace (mapped to root) and mount namespace, passes
// SIGINT/SIGTERM on, and returns the child's exit status. Commands call it
// when Privileged() is false; if the kernel refuses unprivileged user
// namespaces the error says that root or CAP_NET_ADMIN is needed.
func RunInUserNamespace() (int, error) {
	if InUserNamespace() {
		return 0, ErrNeedPrivilege // already tried: do not loop
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), usernsEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A network namespace of its own too: threads must be able to
		// switch back to their home namespace after working in a testbed's,
		// and setns into the host's namespace (owned by the initial user
		// namespace) is refused from in here.
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		// uid 0 in the new namespace: exec gives it full capabilities there.
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("%w (an unprivileged user namespace was refused too: %v)", ErrNeedPrivilege, err)
	}
	defer os.RemoveAll(filepath.Join(os.TempDir(), fmt.Sprintf("spdylab-userns-%d", cmd.Process.Pid)))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var ee *exec.ExitError
			switch {
			case err == nil:
				return 0, nil
			case errors.As(err, &ee):
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal()), nil
				}
				return ee.ExitCode(), nil
			}
			return 1, err
		}
	}
}
