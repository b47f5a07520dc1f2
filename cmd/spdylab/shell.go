package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/netem"
)

func init() {
	register(command{
		name:     "shell",
		summary:  "run a command (default: a shell) behind an emulated link, Mahimahi style",
		synopsis: "spdylab shell [link flags] [--server 'CMD ARGS']... [--wait-port PORT] [-- CMD ARGS]",
		examples: []string{
			"spdylab shell --rtt 100ms --down 10mbit --up 1mbit -- curl http://s1.spdylab.test:8080/",
			"spdylab shell --rtt 100ms --down 10mbit --server 'python3 -m http.server 8080' --wait-port 8080 -- \\\n" +
				"      chromium --headless --dump-dom http://s1.spdylab.test:8080/",
		},
		run: runShell,
	})
}

const shellAbout = `Builds a fresh testbed, runs CMD (default: $SHELL) in the client namespace and
tears everything down when CMD exits; spdylab exits with CMD's status
(128+N when CMD dies of signal N). Every packet CMD sends to a server crosses
the emulated link (examples above).

Servers are s1.spdylab.test (10.200.1.2), s2.spdylab.test (10.200.2.2), ...
CMD resolves them from its own /etc/hosts (or, with --dns, through the
testbed's DNS server across the link); CMD and the servers see a private
/etc/hosts and /etc/resolv.conf, nothing on the host changes.

--server 'CMD ARGS' starts a server program with /bin/sh -c in the server
namespaces: given once it runs on every server host, given N times (N = --shards)
the i-th runs on s<i>. Each gets SPDYLAB_HOST and SPDYLAB_ADDR (its name and
address) in its environment. --wait-port waits until every server accepts TCP
connections on PORT before CMD starts. CMD gets SPDYLAB_TESTBED and SPDYLAB_SERVERS.

SIGINT, SIGTERM and SIGHUP are passed on to CMD (which is killed 5 s after a
SIGTERM or SIGHUP it ignores); when it exits the testbed is removed.

flags:
`

// shellRequest is `spdylab shell`'s parsed flags.
type shellRequest struct {
	cfg      netem.Config
	servers  stringList
	waitPort int
	quiet    bool
	argv     []string // CMD ARGS; default $SHELL
}

func runShell(args []string, stdout, stderr io.Writer) (status int) {
	defer netem.ClosePanicking()
	req, status := parseShellFlags(args, stderr)
	if status >= 0 {
		return status
	}
	if !netem.Privileged() {
		// Not root: run this same command line inside an unprivileged user
		// namespace, where building namespaces is allowed.
		code, err := netem.RunInUserNamespace()
		if err != nil {
			fmt.Fprintf(stderr, "spdylab shell: %v\n", err)
			return 1
		}
		return code
	}
	ctx := context.Background()
	tb, err := netem.New(ctx, req.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab shell: %v\n", err)
		return 1
	}
	var closing atomic.Bool // server exits are expected from here on
	defer func() {
		closing.Store(true)
		if err := tb.Close(); err != nil {
			fmt.Fprintf(stderr, "spdylab shell: teardown: %v\n", err)
			if status == 0 {
				status = 1
			}
		}
	}()
	hostList := shellBanner(tb, req, stderr)
	if err := startShellServers(ctx, tb, req, &closing, stderr); err != nil {
		fmt.Fprintf(stderr, "spdylab shell: %v\n", err)
		return 1
	}
	return runInClient(ctx, tb, req.argv, hostList, stdout, stderr)
}

// parseShellFlags parses and checks the flags; status is -1 to go on, else
// the exit status.
func parseShellFlags(args []string, stderr io.Writer) (req shellRequest, status int) {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lf := netem.RegisterFlags(fs)
	fs.Var(&req.servers, "server", "server `command` (run with /bin/sh -c) in the server namespaces; repeatable")
	fs.IntVar(&req.waitPort, "wait-port", 0, "wait until every server accepts TCP connections on `port` before starting CMD")
	fs.BoolVar(&req.quiet, "q", false, "do not print the testbed banner")
	setHelp(fs, shellAbout, linkFlagGroup, tcpFlagGroup)
	if err := parseFlags(fs, args); err != nil {
		return req, flagExit(err)
	}
	cfg, err := lf.Config()
	if err != nil {
		return req, usageError(stderr, "shell", "%v", err)
	}
	req.cfg = cfg
	if len(req.servers) > 1 && len(req.servers) != cfg.Shards {
		fmt.Fprintf(stderr, "spdylab shell: %d --server commands for %d shards: give one (run on every server) or one per server\n",
			len(req.servers), cfg.Shards)
		return req, 2
	}
	if req.waitPort < 0 || req.waitPort > 65535 {
		fmt.Fprintf(stderr, "spdylab shell: --wait-port %d: not a TCP port\n", req.waitPort)
		return req, 2
	}
	req.argv = fs.Args()
	if len(req.argv) == 0 {
		sh := os.Getenv("SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		req.argv = []string{sh}
	}
	return req, -1
}

// shellBanner tells the user about the testbed (unless quiet) and returns
// the servers as NAME=ADDR.
func shellBanner(tb *netem.Testbed, req shellRequest, stderr io.Writer) []string {
	var hostList []string
	for _, s := range tb.Servers() {
		hostList = append(hostList, s.Name+"="+s.Addr.String())
	}
	if !req.quiet {
		fmt.Fprintf(stderr, "spdylab shell: testbed sl-%s: %s\n", tb.ID(), netem.Describe(req.cfg))
		fmt.Fprintf(stderr, "spdylab shell: servers %s\n", strings.Join(hostList, " "))
		if a := tb.Applied(); a.CC != a.CCDefault {
			fmt.Fprintf(stderr, "spdylab shell: note: the kernel lets only the initial namespace default to %s; "+
				"programs run here use %s unless they set TCP_CONGESTION themselves\n", a.CC, a.CCDefault)
		}
	}
	return hostList
}

// startShellServers starts the --server commands in the server namespaces
// and, with --wait-port, waits until they accept connections.
func startShellServers(ctx context.Context, tb *netem.Testbed, req shellRequest, closing *atomic.Bool, stderr io.Writer) error {
	for i, s := range tb.Servers() {
		if len(req.servers) == 0 {
			break
		}
		line := req.servers[0]
		if len(req.servers) > 1 {
			line = req.servers[i]
		}
		cmd := s.Command(ctx, "/bin/sh", "-c", line)
		cmd.Env = append(os.Environ(), "SPDYLAB_HOST="+s.Name, "SPDYLAB_ADDR="+s.Addr.String())
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting server on %s: %w", s.Name, err)
		}
		go func() {
			if err := cmd.Wait(); err != nil && !closing.Load() {
				fmt.Fprintf(stderr, "spdylab shell: server on %s exited: %v\n", s.Name, err)
			}
		}()
	}
	if req.waitPort > 0 {
		return waitForServers(ctx, tb, req.waitPort, 15*time.Second)
	}
	return nil
}

// runInClient runs argv in the client namespace with SIGINT/SIGTERM handed
// to it, and returns its exit status (128+N when it dies of signal N).
func runInClient(ctx context.Context, tb *netem.Testbed, argv, hostList []string, stdout, stderr io.Writer) int {
	cmd := tb.Client().Command(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "SPDYLAB_TESTBED=sl-"+tb.ID(), "SPDYLAB_SERVERS="+strings.Join(hostList, " "))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// CMD's exit then ends the shell and the testbed goes away through the
	// caller's deferred Close.
	var mu sync.Mutex
	started := false
	remove := netem.OnSignal(func(sig os.Signal) bool {
		mu.Lock()
		defer mu.Unlock()
		if !started || cmd.Process == nil {
			return false
		}
		_ = cmd.Process.Signal(sig)
		if sig != os.Interrupt {
			// An interactive shell ignores SIGTERM and SIGHUP; the testbed
			// must go away all the same.
			proc := cmd.Process
			time.AfterFunc(5*time.Second, func() { _ = proc.Kill() })
		}
		return true
	})
	defer remove()
	mu.Lock()
	err := cmd.Start()
	started = err == nil
	mu.Unlock()
	if err != nil {
		fmt.Fprintf(stderr, "spdylab shell: %s: %v\n", argv[0], err)
		return 127
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(stderr, "spdylab shell: %s: %v\n", argv[0], err)
		return 1
	}
}

// waitForServers polls every server's port from inside its own namespace
// (no link traffic) until it accepts a connection.
func waitForServers(ctx context.Context, tb *netem.Testbed, port int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for _, s := range tb.Servers() {
		for {
			dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			var c net.Conn
			c, err := s.DialContext(dctx, "tcp4", s.HostPort(port))
			cancel()
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("--wait-port %d: %s does not accept connections after %v: %v", port, s.Name, limit, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}
