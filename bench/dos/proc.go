package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/tailbuf"
)

// serverProc is a server running as a separate process, serving plain
// SPDY/3.1 over loopback TCP.
type serverProc struct {
	cmd    *exec.Cmd
	addr   string // 127.0.0.1:PORT
	stderr *tailbuf.Buffer
	exited chan struct{}
}

// startSpdylab runs `bin serve --plain spdy/3.1` with extra flags.
func startSpdylab(bin string, flags []string) (*serverProc, error) {
	args := append([]string{"serve", "--plain", "spdy/3.1", "--listen", "127.0.0.1:0", "--quiet"}, flags...)
	p, line, err := startServer(exec.Command(bin, args...))
	if err != nil {
		return nil, err
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(line, "http://"), "/")
	if addr == line {
		p.stop()
		return nil, fmt.Errorf("spdylab serve said %q, want its http:// URL; stderr:\n%s", line, p.stderr)
	}
	p.addr = addr
	return p, nil
}

// startNode runs interop/node/server.js --plain (node-spdy 4.0.2) as the
// interop tests do. The PID is node's own.
func startNode(dir string) (*serverProc, error) {
	cmd := exec.Command("node", "--no-deprecation", "server.js", "--plain", "--port", "0")
	cmd.Dir = dir
	p, line, err := startServer(cmd)
	if err != nil {
		return nil, err
	}
	var hello struct{ Port int }
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Port == 0 {
		p.stop()
		return nil, fmt.Errorf("node server.js said %q, want {\"port\": N}; stderr:\n%s", line, p.stderr)
	}
	p.addr = fmt.Sprintf("127.0.0.1:%d", hello.Port)
	return p, nil
}

// startServer starts cmd and returns the first line it prints on stdout.
func startServer(cmd *exec.Cmd) (*serverProc, string, error) {
	p := &serverProc{cmd: cmd, stderr: tailbuf.New(8 << 10), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
		cmd.Wait()
		close(p.exited)
	}()
	select {
	case line, ok := <-lines:
		if !ok {
			<-p.exited
			return nil, "", fmt.Errorf("%s exited without output; stderr:\n%s", cmd.Path, p.stderr)
		}
		return p, line, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, "", fmt.Errorf("%s printed nothing in 30 s; stderr:\n%s", cmd.Path, p.stderr)
	}
}

func (p *serverProc) pid() int { return p.cmd.Process.Pid }

// alive reports whether the process is still running.
func (p *serverProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, then SIGKILL after 5 s, and waits for the exit.
func (p *serverProc) stop() {
	if !p.alive() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// rssBytes reads VmRSS from /proc/PID/status.
func rssBytes(pid int) (uint64, error) { return statusBytes(pid, "VmRSS") }

// statusBytes reads a kB field of /proc/PID/status (VmRSS, VmHWM: the
// peak RSS the kernel kept).
func statusBytes(pid int, field string) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s (process gone?)", field)
}

// userHZ is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture the lab runs on.
const userHZ = 100

// cpuTime reads utime+stime from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // comm may hold spaces
	if i < 0 {
		return 0, errors.New("malformed /proc/PID/stat")
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state): utime is 14, stime 15
	if len(f) < 13 {
		return 0, errors.New("short /proc/PID/stat")
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// sampler records a process's peak RSS every 100 ms and calls overCap
// once when it passes capBytes.
type sampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func startSampler(pid int, capBytes uint64, overCap func()) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		fired := false
		for {
			if rss, err := rssBytes(pid); err == nil && rss > s.peak.Load() {
				s.peak.Store(rss)
				if rss > capBytes && !fired {
					fired = true
					overCap()
				}
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// finish stops sampling and returns the peak in bytes.
func (s *sampler) finish() uint64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}
