package netem

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/cpuprof"
	"github.com/spdylab/spdylab/internal/tailbuf"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// The emulator runs in a child process by default. In the process that
// also runs page loaders and TLS servers, every emulator thread returning
// from a blocking call (a delay line waking from its futex, a pump from
// poll) must get one of GOMAXPROCS scheduler slots, which the loader, the
// servers and the garbage collector hold: the delay line itself releases
// packets within ~0.1 ms, yet the emulated RTT's p99 error reached several
// ms. A child that runs nothing but the emulator always has a slot free.
//
// The child is this binary re-executed (/proc/self/exe) with argv[0] =
// emuArg0, which this package's init recognises before main runs, so it
// works in the spdylab binary, in test binaries and in anything else that
// imports netem. It gets:
//
//	fd 0      the emuSpec as JSON (read to EOF)
//	fd 3, 4   the client's and the router's TUN devices
//	fd 5      the control channel, one end of a unix socketpair
//	fd 6      the packet log (only when emuSpec.Log)
//
// Control protocol: one request per line ("counters", "reset", "close" and
// capture.go's), one JSON emuReply per line in answer. The child first sends a reply with
// Ready set, or with Error set and exits. It exits after "close" (once the
// pipes have flushed the packet log) and whenever the control channel
// closes. It runs in the router's network namespace, so that Close's and
// Clean's sweep of the testbed's namespaces find it like any helper, and
// it is started with PR_SET_PDEATHSIG = SIGKILL, so it dies with its parent
// even when the parent is killed with SIGKILL.
const emuArg0 = "spdylab-linkemu"

func init() {
	if len(os.Args) > 0 && os.Args[0] == emuArg0 {
		stopProfile := cpuprof.FromEnv("emu") // the parent's SPDYLAB_CPUPROFILE, one file per child
		status := emuChildMain()
		stopProfile()
		os.Exit(status)
	}
}

const (
	emuFdClientTun = 3
	emuFdRouterTun = 4
	emuFdControl   = 5
	emuFdLog       = 6
)

// emuControlTimeout bounds every exchange on the control channel, so a
// wedged child makes requests fail instead of hanging the testbed.
const emuControlTimeout = 10 * time.Second

// emuSpec is the emulator configuration handed to the child.
type emuSpec struct {
	NPipes int     `json:"npipes"`
	Seed   int64   `json:"seed"`
	Down   dirSpec `json:"down"`
	Up     dirSpec `json:"up"`
	Log    bool    `json:"log"` // fd 6 is the packet log
	// HostDelays: site address -> extra round trip (hostdelay.go).
	HostDelays map[netip.Addr]time.Duration `json:"host_delays,omitempty"`
}

// dirSpec is link.DirConfig with the trace as a file name.
type dirSpec struct {
	RateBps    int64                `json:"rate_bps"`
	Delay      time.Duration        `json:"delay_ns"`
	QueuePkts  int                  `json:"queue_pkts"`
	QueueBytes int                  `json:"queue_bytes"`
	Loss       float64              `json:"loss"`
	GE         *link.GilbertElliott `json:"ge,omitempty"`
	Trace      string               `json:"trace,omitempty"` // Mahimahi trace file, loaded by the child
}

func toDirSpec(d link.DirConfig, tracePath string) (dirSpec, error) {
	s := dirSpec{RateBps: d.RateBps, Delay: d.Delay, QueuePkts: d.QueuePkts, QueueBytes: d.QueueBytes, Loss: d.Loss, GE: d.GE}
	if d.Trace != nil {
		if tracePath == "" {
			return s, errors.New("netem: the emulator process needs a trace file")
		}
		abs, err := filepath.Abs(tracePath)
		if err != nil {
			return s, err
		}
		s.Trace = abs
	}
	return s, nil
}

func (s dirSpec) dirConfig(dir string) (link.DirConfig, error) {
	d := link.DirConfig{RateBps: s.RateBps, Delay: s.Delay, QueuePkts: s.QueuePkts, QueueBytes: s.QueueBytes, Loss: s.Loss, GE: s.GE}
	if s.Trace != "" {
		tr, err := link.LoadTrace(s.Trace)
		if err != nil {
			return d, fmt.Errorf("%slink trace: %w", dir, err)
		}
		d.Trace = tr
	}
	return d, nil
}

// emuReply is the child's answer to a request.
type emuReply struct {
	Error       string          `json:"error,omitempty"`
	Ready       bool            `json:"ready,omitempty"`
	RealTimeErr string          `json:"realtime_err,omitempty"` // why some thread runs without SCHED_FIFO
	Down        []probe.LinkDir `json:"down,omitempty"`
	Up          []probe.LinkDir `json:"up,omitempty"`
	Captured    *CaptureStats   `json:"captured,omitempty"` // answer to capture-end
}

// ---- parent side ----

// emuProc is the parent's handle on an emulator child process.
type emuProc struct {
	cmd    *exec.Cmd
	pid    int
	stderr *tailbuf.Buffer

	mu  sync.Mutex // one exchange on the control channel at a time
	ctl net.Conn
	rd  *bufio.Reader

	exited  chan struct{} // closed once the child has been reaped
	waitErr error         // the child's exit status, valid after exited

	logDone chan struct{} // closed when the packet-log copier is done (nil: none)

	closeOnce sync.Once
	closeErr  error
	closing   atomic.Bool // close was called: an exit from then on is no death
}

// died is closed when the child has exited (killed, crashed, or closed);
// deathErr says why when it exited before close was called, else nil.
func (e *emuProc) died() <-chan struct{} { return e.exited }

func (e *emuProc) deathErr() error {
	if !e.dead() || e.closing.Load() {
		return nil
	}
	return fmt.Errorf("netem: the link emulator process %d died (%v)%s", e.pid, e.waitErr, e.stderr.Suffix())
}

// startEmulatorProcess starts the emulator child. When routerNS is set the
// child runs in that namespace. It returns when the child has reported that
// its pipes and pumps run, or with the child's error.
func startEmulatorProcess(cfg Config, d dirConfigs, clientTun, routerTun *os.File, routerNS *namespace, stateDir string) (_ *emuProc, err error) {
	js, err := emuSpecJSON(cfg, d)
	if err != nil {
		return nil, err
	}
	ctl, childEnd, err := controlChannel()
	if err != nil {
		return nil, err
	}
	defer childEnd.Close()
	e := &emuProc{ctl: ctl, rd: bufio.NewReader(ctl), exited: make(chan struct{}), stderr: tailbuf.New(4096)}
	defer func() {
		if err != nil {
			e.abort()
		}
	}()
	extra := []*os.File{clientTun, routerTun, childEnd}
	if cfg.PacketLog != nil {
		logFile, err := e.packetLogFile(cfg.PacketLog)
		if err != nil {
			return nil, err
		}
		if logFile != cfg.PacketLog {
			defer logFile.Close() // our copy of the pipe's write end
		}
		extra = append(extra, logFile)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{emuArg0}
	cmd.Stdin = bytes.NewReader(js)
	cmd.Stderr = e.stderr
	cmd.ExtraFiles = extra
	// Its own process group keeps a terminal's ^C away from it: the parent
	// decides when the emulator stops (its signal handler closes testbeds).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	e.cmd = cmd
	if err := e.fork(routerNS); err != nil {
		return nil, err
	}
	if stateDir != "" {
		recordPIDOf(stateDir, e.pid, emuArg0)
	}
	// Our copies of the child's ends must go, or EOFs never arrive.
	childEnd.Close()
	if err := e.awaitReady(); err != nil {
		return nil, err
	}
	return e, nil
}

// emuSpecJSON is what the child reads on stdin: the pipes' configuration.
func emuSpecJSON(cfg Config, d dirConfigs) ([]byte, error) {
	spec := emuSpec{NPipes: numPipes(&cfg), Seed: cfg.Link.Seed, Log: cfg.PacketLog != nil, HostDelays: d.hostDelays}
	var err error
	if spec.Down, err = toDirSpec(d.down, cfg.Link.TraceDown); err != nil {
		return nil, err
	}
	if spec.Up, err = toDirSpec(d.up, cfg.Link.TraceUp); err != nil {
		return nil, err
	}
	return json.Marshal(spec)
}

// controlChannel is a socket pair: our end as a net.Conn, the child's as a
// file to pass it.
func controlChannel() (net.Conn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("netem: emulator control channel: %w", err)
	}
	parentEnd, childEnd := os.NewFile(uintptr(fds[0]), "emulator-control"), os.NewFile(uintptr(fds[1]), "emulator-control")
	ctl, err := net.FileConn(parentEnd)
	parentEnd.Close()
	if err != nil {
		childEnd.Close()
		return nil, nil, fmt.Errorf("netem: emulator control channel: %w", err)
	}
	return ctl, childEnd, nil
}

// packetLogFile is the file the child writes its packet log to: w itself
// when it is a file, else a pipe whose reading end a goroutine copies into
// w until the child has exited (e.logDone).
func (e *emuProc) packetLogFile(w io.Writer) (*os.File, error) {
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("netem: packet log: %w", err)
	}
	e.logDone = make(chan struct{})
	go func() {
		defer close(e.logDone)
		defer r.Close()
		io.Copy(w, r)
	}()
	return pw, nil
}

// fork starts e.cmd inside the router's namespace.
//
// PR_SET_PDEATHSIG fires when the *thread* that forked the child exits,
// and Go destroys threads (a goroutine that ends while locked to its
// thread). So the child is forked from a locked thread that stays in
// cmd.Wait until the child is gone. The thread also enters the router's
// namespace for the fork, which the child inherits.
func (e *emuProc) fork(routerNS *namespace) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restoreSlack := setTimerSlack(emuTimerSlack) // see emuTimerSlack
		restored, err := forkIn(routerNS, e.cmd)
		restoreSlack()
		started <- err
		if err == nil {
			e.waitErr = e.cmd.Wait()
			close(e.exited)
		}
		if restored {
			runtime.UnlockOSThread()
		} // else the thread is still in the router namespace and dies with this goroutine
	}()
	if err := <-started; err != nil {
		close(e.exited)
		return fmt.Errorf("netem: starting the emulator process: %w", err)
	}
	e.pid = e.cmd.Process.Pid
	return nil
}

// emuTimerSlack is the timer slack the emulator process starts with; its
// pump and delay-line threads set their own to 1 ns (link.makeThreadPrecise),
// so it applies to the Go runtime's threads only. The runtime's monitor
// thread (sysmon) polls every 20 µs for a while each time one of those
// threads wakes from a long wait or has its P retaken, which is whenever
// a packet ends an idle gap of 10 ms or more: a profile of study loads
// found it using a third of the emulator's CPU. With this slack the kernel
// lets its short sleeps run on to 1 ms, which nothing in the emulator
// process needs to be faster than (the control channel and Go's own
// bookkeeping).
const emuTimerSlack = time.Millisecond

// setTimerSlack sets the calling (locked) thread's timer slack, which
// processes it forks inherit, and returns the function that restores it.
func setTimerSlack(d time.Duration) (restore func()) {
	prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return func() {}
	}
	if unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0) != nil {
		return func() {}
	}
	return func() { unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(prev), 0, 0, 0) }
}

// awaitReady reads the child's first message: ready, or why not.
func (e *emuProc) awaitReady() error {
	rep, err := e.exchange("")
	if err != nil {
		return err
	}
	if rep.Error != "" {
		return fmt.Errorf("netem: emulator process: %s", rep.Error)
	}
	if !rep.Ready {
		return fmt.Errorf("netem: emulator process: unexpected first message %+v", rep)
	}
	return nil
}

// forkIn starts cmd from the calling (locked) thread, inside ns when ns is
// set; restored says whether the thread is back in its own namespace.
func forkIn(ns *namespace, cmd *exec.Cmd) (restored bool, err error) {
	if ns == nil {
		return true, cmd.Start()
	}
	orig, err := netns.Get()
	if err != nil {
		return true, err
	}
	defer orig.Close()
	if err := netns.Set(ns.handle); err != nil {
		return true, fmt.Errorf("entering %s: %w", ns.name, err)
	}
	err = cmd.Start()
	return netns.Set(orig) == nil, err
}

// exchange sends req (none when empty) and reads one reply. An error means
// the child is gone or wedged.
func (e *emuProc) exchange(req string) (emuReply, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var rep emuReply
	e.ctl.SetDeadline(time.Now().Add(emuControlTimeout))
	if req != "" {
		if _, err := io.WriteString(e.ctl, req+"\n"); err != nil {
			return rep, e.failure(req, err)
		}
	}
	line, err := e.rd.ReadBytes('\n')
	if err != nil {
		return rep, e.failure(req, err)
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, fmt.Errorf("netem: emulator process: malformed reply %q: %w", line, err)
	}
	return rep, nil
}

// failure explains a broken control channel, with the child's exit status
// and last words when it has died.
func (e *emuProc) failure(req string, err error) error {
	what := "starting"
	if req != "" {
		what = fmt.Sprintf("request %q", req)
	}
	select {
	case <-e.exited:
	case <-time.After(2 * time.Second):
		return fmt.Errorf("netem: emulator process %d (%s): %w", e.pid, what, err)
	}
	return fmt.Errorf("netem: emulator process %d died (%s: %v)%s", e.pid, what, e.waitErr, e.stderr.Suffix())
}

// dead reports whether the child has exited.
func (e *emuProc) dead() bool {
	select {
	case <-e.exited:
		return true
	default:
		return false
	}
}

func (e *emuProc) counters() probe.LinkCounters {
	down, up, err := e.pipeCounters()
	if err != nil {
		return probe.LinkCounters{} // the error comes back from Close
	}
	return probe.LinkCounters{Down: sumLinkDirs(down), Up: sumLinkDirs(up)}
}

func (e *emuProc) pipeCounters() (down, up []probe.LinkDir, err error) {
	if e.dead() {
		return nil, nil, e.failure("counters", io.EOF)
	}
	rep, err := e.exchange("counters")
	if err != nil {
		return nil, nil, err
	}
	if rep.Error != "" {
		return nil, nil, fmt.Errorf("netem: emulator process: %s", rep.Error)
	}
	return rep.Down, rep.Up, nil
}

func (e *emuProc) resetCounters() {
	if !e.dead() {
		e.exchange("reset")
	}
}

// close asks the child to stop (it flushes the packet log and exits),
// waits for it, and reports an error if it had died before.
func (e *emuProc) close() error {
	e.closing.Store(true)
	e.closeOnce.Do(func() {
		var errs []error
		if e.dead() {
			errs = append(errs, fmt.Errorf("netem: emulator process %d died before Close (%v)%s", e.pid, e.waitErr, e.stderr.Suffix()))
		} else if rep, err := e.exchange("close"); err != nil {
			errs = append(errs, err)
		} else if rep.Error != "" {
			errs = append(errs, fmt.Errorf("netem: emulator process: %s", rep.Error))
		}
		e.ctl.Close() // the child exits when its control channel closes
		select {
		case <-e.exited:
		case <-time.After(5 * time.Second):
			errs = append(errs, fmt.Errorf("netem: emulator process %d did not exit; killed", e.pid))
			e.cmd.Process.Kill()
			<-e.exited
		}
		if len(errs) == 0 && e.waitErr != nil {
			errs = append(errs, fmt.Errorf("netem: emulator process %d: %v%s", e.pid, e.waitErr, e.stderr.Suffix()))
		}
		if e.logDone != nil {
			<-e.logDone
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// abort kills a child that failed to start properly.
func (e *emuProc) abort() {
	e.closeOnce.Do(func() {
		e.ctl.Close()
		if e.cmd != nil && e.cmd.Process != nil {
			e.cmd.Process.Kill()
			<-e.exited
		}
		if e.logDone != nil {
			<-e.logDone
		}
	})
}

// ---- child side ----

// emuChildMain is the emulator process. It exits 0 after "close" or when
// the control channel closes, non-zero when it could not start.
func emuChildMain() int {
	// The parent decides when we stop; SIGTERM (Close's and Clean's sweep
	// of the namespaces) and SIGKILL (parent death) still end us.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	ctlFile := os.NewFile(emuFdControl, "emulator-control")
	ctl, err := net.FileConn(ctlFile)
	ctlFile.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: control channel: %v\n", emuArg0, err)
		return 2
	}
	send := func(r emuReply) error {
		b, _ := json.Marshal(r)
		_, err := ctl.Write(append(b, '\n'))
		return err
	}
	e, err := emuChildStart()
	if err != nil {
		send(emuReply{Error: err.Error()})
		return 1
	}
	ready := emuReply{Ready: true}
	if rt := e.realTimeErr(); rt != nil {
		ready.RealTimeErr = rt.Error()
	}
	if err := send(ready); err != nil {
		e.close()
		return 1
	}
	rd := bufio.NewReader(ctl)
	for {
		line, err := rd.ReadString('\n')
		if err != nil { // the parent closed the channel or died
			e.close()
			return 0
		}
		switch req := strings.TrimSpace(line); req {
		case "counters":
			down, up, _ := e.pipeCounters()
			send(emuReply{Down: down, Up: up})
		case "reset":
			e.resetCounters()
			send(emuReply{})
		case "close":
			var rep emuReply
			if err := e.close(); err != nil {
				rep.Error = err.Error()
			}
			send(rep)
			return 0
		default:
			if rep, ok := e.answerCapture(req); ok {
				send(rep)
				continue
			}
			send(emuReply{Error: fmt.Sprintf("unknown request %q", req)})
		}
	}
}

func emuChildStart() (*emulator, error) {
	var spec emuSpec
	if err := json.NewDecoder(os.Stdin).Decode(&spec); err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	if spec.NPipes < 1 || spec.NPipes > MaxShards {
		return nil, fmt.Errorf("%d pipes per direction out of range 1..%d", spec.NPipes, MaxShards)
	}
	// Every pump and delay-line thread gets a P of its own (plus slack for
	// the control goroutine and the runtime), so a thread returning from
	// poll or futex never waits for another to release one. This process
	// runs nothing else, so the extra Ps are idle otherwise; the OS
	// scheduler (SCHED_FIFO for these threads) decides who runs.
	runtime.GOMAXPROCS(2 + 2*spec.NPipes + 2)

	var d dirConfigs
	var err error
	if d.down, err = spec.Down.dirConfig("down"); err != nil {
		return nil, err
	}
	if d.up, err = spec.Up.dirConfig("up"); err != nil {
		return nil, err
	}
	for a, dl := range spec.HostDelays {
		if !a.Is4() || dl < 0 || dl > MaxHostDelay {
			return nil, fmt.Errorf("host delay %v for %v out of range", dl, a)
		}
	}
	d.hostDelays = spec.HostDelays
	if spec.Log {
		w := &lockedWriter{w: os.NewFile(emuFdLog, "packet-log")}
		d.down.Log, d.up.Log = w, w
	}
	clientTun := os.NewFile(emuFdClientTun, "tun:client")
	routerTun := os.NewFile(emuFdRouterTun, "tun:router")
	if clientTun == nil || routerTun == nil {
		return nil, errors.New("TUN descriptors missing")
	}
	return runEmulator(spec.NPipes, spec.Seed, d, clientTun, routerTun)
}

// realTimeErr says why some emulator thread runs without SCHED_FIFO.
func (e *emulator) realTimeErr() error {
	for _, p := range e.pumps {
		if err := p.RealTimeErr(); err != nil {
			return err
		}
	}
	for _, p := range slicesConcat(e.down, e.up) {
		if t := p.Timing(); t.RealTimeErr != "" {
			return errors.New(t.RealTimeErr)
		}
	}
	return nil
}
