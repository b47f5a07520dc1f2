package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/tailbuf"
)

// Commander runs a program somewhere: *netem.Host runs it inside a testbed
// host's network namespace (with the testbed's /etc/hosts and resolv.conf).
type Commander interface {
	Command(ctx context.Context, name string, args ...string) *exec.Cmd
}

// localCommander runs programs in the caller's own namespace.
type localCommander struct{}

func (localCommander) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, name, args...)
}

// ErrNoChromium is returned when no Chromium binary is found.
var ErrNoChromium = errors.New("browser: Chromium not found (install it with scripts/deps.sh, or set Options.Binary / $SPDYLAB_CHROMIUM)")

// binaryCandidates are tried in order when Options.Binary is empty. The
// Debian package's /usr/bin/chromium is a shell wrapper that adds flags from
// /etc/chromium.d; the real binary comes first so the flags are only ours
// and the process we start is the browser itself.
var binaryCandidates = []string{"/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindBinary returns the Chromium to run: bin when set, else
// $SPDYLAB_CHROMIUM, else the first of the usual names found.
func FindBinary(bin string) (string, error) {
	if bin == "" {
		bin = os.Getenv("SPDYLAB_CHROMIUM")
	}
	if bin != "" {
		p, err := exec.LookPath(bin)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrNoChromium, err)
		}
		return p, nil
	}
	for _, c := range binaryCandidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// startedHook, when set (by tests), learns each browser's PID.
var startedHook func(pid int)

// cpuHook, when set (by benchmarks), learns each load's Chromium CPU
// seconds, read just before the browser is killed.
var cpuHook func(seconds float64)

// process is one running Chromium with its throw-away profile.
type process struct {
	cmd     *exec.Cmd
	profile string
	stderr  *tailbuf.Buffer
	toChild *os.File // our end of Chromium's fd 3
	fromChd *os.File // our end of Chromium's fd 4
	exited  chan struct{}
	version string // Browser.getVersion's product, once known
	waitErr error

	stopOnce sync.Once
}

// profilePrefix names profile directories under os.TempDir().
const profilePrefix = "spdylab-chromium-"

// ownerFile in a profile holds the PID of the spdylab process that made it.
const ownerFile = "spdylab-owner"

// sweepProfiles removes the profiles of spdylab processes that were killed
// before they could remove them themselves (their Chromium died with them:
// Pdeathsig). Profiles of live processes, and directories without an owner
// file, are left alone.
func sweepProfiles() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			removeProfile(d)
		}
	}
}

// writePreferences writes the profile's Default/Preferences:
// network_prediction_options 2 = "never predict": no DNS prefetch, no
// preconnect, no prerender, whatever the page or the omnibox suggests.
func writePreferences(profile string) error {
	prefs := map[string]any{
		"net": map[string]any{"network_prediction_options": 2},
		"browser": map[string]any{
			"has_seen_welcome_page": true,
		},
	}
	b, err := json.Marshal(prefs)
	if err != nil {
		return err
	}
	dir := filepath.Join(profile, "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "Preferences"), b, 0o600)
}

// start launches Chromium with args (the profile flag added) through cmdr.
// On error nothing is left behind.
func start(ctx context.Context, cmdr Commander, bin string, args []string) (p *process, err error) {
	sweepProfiles()
	profile, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return nil, fmt.Errorf("browser: profile: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(profile)
		}
	}()
	if err := os.WriteFile(filepath.Join(profile, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, fmt.Errorf("browser: profile: %w", err)
	}
	if err := writePreferences(profile); err != nil {
		return nil, fmt.Errorf("browser: profile preferences: %w", err)
	}
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	args = append([]string{"--user-data-dir=" + profile}, args...)
	// The process must outlive ctx's cancellation only as long as stop()
	// needs; stop kills it itself, so it is started without ctx.
	cmd := cmdr.Command(context.WithoutCancel(ctx), bin, args...)
	cmd.ExtraFiles = []*os.File{childIn, childOut} // fd 3, fd 4
	// Own process group: stop kills Chromium's zygote, renderers and
	// utility processes with one signal. Pdeathsig: a killed parent takes
	// the browser along (its children notice the browser's death and exit).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "HOME="+profile) // nothing written outside the profile
	tail := tailbuf.New(8 << 10)
	cmd.Stderr = tail
	cmd.Stdout = tail
	// Wait also waits for the output pipe, which a stray child could hold.
	cmd.WaitDelay = 2 * time.Second
	// Pdeathsig fires when the *thread* that forked exits, and the Go
	// runtime retires threads (a goroutine that exits while locked to its
	// thread, as netem's namespace switching may do). So the fork happens on
	// a thread locked for the browser's whole life, and Wait runs there too.
	started := make(chan error, 1)
	p = &process{cmd: cmd, profile: profile, stderr: tail, toChild: toChild, fromChd: fromChild, exited: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	err = <-started
	childIn.Close()
	childOut.Close()
	if err != nil {
		toChild.Close()
		fromChild.Close()
		return nil, fmt.Errorf("browser: starting %s: %w", bin, err)
	}
	if startedHook != nil {
		startedHook(cmd.Process.Pid)
	}
	return p, nil
}

// stop kills Chromium's whole process group, waits for the browser, and
// removes the profile. Safe to call more than once.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		pid := p.cmd.Process.Pid
		syscall.Kill(-pid, syscall.SIGKILL)
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
		}
		p.toChild.Close()
		p.fromChd.Close()
		// Children of the group that were still exiting; a second sweep
		// catches any that had not yet been signalled.
		for i := 0; i < 50 && len(groupPIDs(pid)) > 0; i++ {
			syscall.Kill(-pid, syscall.SIGKILL)
			time.Sleep(20 * time.Millisecond)
		}
		removeProfile(p.profile)
	})
}

// removeProfile removes a profile and the directory Chromium made in
// TMPDIR for its singleton socket (org.chromium.Chromium.*, linked from
// the profile): a killed Chromium never removes it, and TMPDIR cannot be
// moved into the profile (the socket's path would exceed the 108 bytes a
// unix socket's path may have).
func removeProfile(profile string) {
	if target, err := os.Readlink(filepath.Join(profile, "SingletonSocket")); err == nil {
		dir := filepath.Dir(target)
		if strings.HasPrefix(filepath.Base(dir), "org.chromium.Chromium.") {
			os.RemoveAll(dir)
		}
	}
	os.RemoveAll(profile)
}

// exitReason describes how Chromium ended (for errors after a crash).
func (p *process) exitReason() string {
	select {
	case <-p.exited:
	case <-time.After(500 * time.Millisecond): // a crash has exited by now
		return "Chromium is still running"
	}
	s := "Chromium exited"
	if p.waitErr != nil {
		s += ": " + p.waitErr.Error()
	}
	if t := strings.TrimSpace(p.stderr.String()); t != "" {
		s += "; its last output: " + lastLines(t, 5)
	}
	return s
}

// cpuSeconds is the CPU time (user + system, reaped children included) of
// every live process in Chromium's group, read from /proc before stop.
func (p *process) cpuSeconds() float64 {
	var ticks int64
	for _, pid := range groupPIDs(p.cmd.Process.Pid) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		// utime stime cutime cstime are fields 14-17 of stat, 11-14 here.
		for _, k := range []int{11, 12, 13, 14} {
			if k < len(f) {
				v, _ := strconv.ParseInt(f[k], 10, 64)
				ticks += v
			}
		}
	}
	return float64(ticks) / clockTicks
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

// groupPIDs lists the live processes (zombies excluded) in process group
// pgid, read from /proc.
func groupPIDs(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
