// Package interop_test runs spdylab's SPDY stack against an independent
// implementation, node-spdy 4.0.2 (interop/node), in both directions, over
// TLS with ALPN and over plain TCP, as a library and as the built binary.
package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/spdy"
)

const nodeDir = "node"

// requireNode fails (never skips: CI installs both) when node or the pinned
// node-spdy are missing.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH: run scripts/deps.sh to install Node.js and node-spdy")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "spdy", "package.json")); err != nil {
		t.Fatalf("interop/node/node_modules/spdy is missing: run scripts/deps.sh (it runs npm ci in interop/node)")
	}
}

// syncBuffer collects a child's stderr for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProcess starts cmd, returns its first stdout line and a channel
// closed once it has exited (and been reaped), and arranges for the process
// to be killed (by PID) when the test ends.
func startProcess(t *testing.T, cmd *exec.Cmd) (firstLine string, stderr *syncBuffer, exited <-chan struct{}) {
	t.Helper()
	stderr = &syncBuffer{}
	cmd.Stderr = stderr
	// If the test binary dies (e.g. -timeout), the kernel kills the child
	// too instead of leaving a server listening.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
	}()
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatalf("%s exited without output; stderr:\n%s", strings.Join(cmd.Args, " "), stderr)
		}
		return l, stderr, done
	case <-time.After(30 * time.Second):
		t.Fatalf("%s printed nothing in 30 s; stderr:\n%s", strings.Join(cmd.Args, " "), stderr)
	}
	return "", nil, nil
}

// nodeServer is a running interop/node/server.js.
type nodeServer struct {
	URL    string // https://127.0.0.1:PORT/ or http://... when plain
	Addr   string
	PID    int // node's process id
	stderr *syncBuffer
}

// startNodeServer starts server.js; extra arguments go to it (e.g.
// "--window", "65536").
func startNodeServer(t *testing.T, plain bool, extra ...string) *nodeServer {
	t.Helper()
	requireNode(t)
	args := append([]string{"--no-deprecation", "server.js"}, extra...)
	if plain {
		args = append(args, "--plain")
	} else {
		dir := t.TempDir()
		cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		if err := certs.WriteFiles(cert, key); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--cert", cert, "--key", key)
	}
	scheme := "https"
	if plain {
		scheme = "http"
	}
	return startNodeServerArgs(t, scheme, args[2:]...)
}

// startNodeServerArgs runs server.js with exactly args; scheme is the URL
// scheme those args make it serve.
func startNodeServerArgs(t *testing.T, scheme string, args ...string) *nodeServer {
	t.Helper()
	cmd := exec.Command("node", append([]string{"--no-deprecation", "server.js"}, args...)...)
	cmd.Dir = nodeDir
	line, stderr, _ := startProcess(t, cmd)
	var hello struct{ Port int }
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Port == 0 {
		t.Fatalf("node server said %q, want {\"port\": N}; stderr:\n%s", line, stderr)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", hello.Port)
	return &nodeServer{URL: scheme + "://" + addr + "/", Addr: addr, PID: cmd.Process.Pid, stderr: stderr}
}

// nodeCheck is one check's report from client.js.
type nodeCheck map[string]any

func (c nodeCheck) ok() bool { v, _ := c["ok"].(bool); return v }

type nodeReport struct {
	OK     bool                 `json:"ok"`
	Error  string               `json:"error"`
	Checks map[string]nodeCheck `json:"checks"`
}

// runNodeClient runs client.js against url and returns its report.
func runNodeClient(t *testing.T, url string, plain bool, extra ...string) nodeReport {
	t.Helper()
	requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--no-deprecation", "client.js", "--url", url, "--timeout", "90000"}
	if plain {
		args = append(args, "--plain")
	}
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = nodeDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var rep nodeReport
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		t.Fatalf("node client (%v) printed %q: %v; stderr:\n%s", err, out, jerr, stderr.String())
	}
	if testing.Verbose() {
		t.Logf("node client report: %s", out)
	}
	return rep
}

// requireChecks fails for every named check that is missing or not ok.
func requireChecks(t *testing.T, rep nodeReport, names ...string) {
	t.Helper()
	if rep.Error != "" {
		t.Errorf("node client: %s", rep.Error)
	}
	for _, n := range names {
		c, ok := rep.Checks[n]
		if !ok {
			t.Errorf("node client did not run check %q", n)
			continue
		}
		if !c.ok() {
			b, _ := json.Marshal(c)
			if len(b) > 2000 {
				b = append(b[:2000], "..."...)
			}
			t.Errorf("node client check %q failed: %s", n, b)
		}
	}
}

// frameLog records the frames one side of a SPDY session sent and received,
// for checking what the peer did on the wire.
type frameLog struct {
	mu       sync.Mutex
	sent     []spdy.Frame
	received []spdy.Frame
	// DATA payloads are only valid during the trace call: keep lengths.
	dataIn  map[uint32]int
	dataOut map[uint32]int
}

func newFrameLog() *frameLog {
	return &frameLog{dataIn: map[uint32]int{}, dataOut: map[uint32]int{}}
}

func (l *frameLog) trace(sent bool, f spdy.Frame) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := f.(*spdy.DataFrame); ok {
		if sent {
			l.dataOut[d.Stream] += len(d.Data)
		} else {
			l.dataIn[d.Stream] += len(d.Data)
		}
		return // the frame itself is reused by the framer
	}
	if sent {
		l.sent = append(l.sent, f)
	} else {
		l.received = append(l.received, f)
	}
}

// windowUpdates sums the WINDOW_UPDATE deltas per stream (0 = session).
func windowUpdates(frames []spdy.Frame) map[uint32]int {
	out := map[uint32]int{}
	for _, f := range frames {
		if w, ok := f.(*spdy.WindowUpdateFrame); ok {
			out[w.Stream] += int(w.Delta)
		}
	}
	return out
}

// headerBlocks returns the header blocks of the SYN_STREAM, SYN_REPLY and
// HEADERS frames in frames.
func headerBlocks(frames []spdy.Frame) []spdy.Header {
	var out []spdy.Header
	for _, f := range frames {
		switch f := f.(type) {
		case *spdy.SynStreamFrame:
			out = append(out, f.Headers)
		case *spdy.SynReplyFrame:
			out = append(out, f.Headers)
		case *spdy.HeadersFrame:
			out = append(out, f.Headers)
		}
	}
	return out
}

// checkLowercaseNames enforces SPDY/3 section 2.6.10 on what a peer sent:
// header names are lowercase.
func checkLowercaseNames(t *testing.T, who string, frames []spdy.Frame) {
	t.Helper()
	for _, h := range headerBlocks(frames) {
		for name := range h {
			if name != strings.ToLower(name) {
				t.Errorf("%s sent header name %q, which is not lowercase", who, name)
			}
		}
	}
}

// openIssues are the entries of SPDY_ISSUES.md that the spdy package has not
// fixed yet. Checks blocked by one still run; their failure skips the test
// naming the issue (see knownIssue), so it stays visible in -v output without
// turning the suite red. Delete an entry once it is fixed.
var openIssues = map[int]string{
	// None open: #1, #2 and #3 were fixed in spdy by 5487338.
}

// knownIssue reports err, the outcome of a check blocked by an open entry of
// SPDY_ISSUES.md: while the issue is open a failure skips the test with the
// observed error (the check still runs every time); once it is fixed the
// failure is an ordinary test error.
func knownIssue(t *testing.T, issue int, err error) {
	t.Helper()
	what, open := openIssues[issue]
	switch {
	case err == nil && open:
		t.Logf("passes although SPDY_ISSUES.md #%d (%s) is listed as open: delete it from openIssues", issue, what)
	case err == nil:
	case open:
		t.Skipf("blocked by interop/SPDY_ISSUES.md #%d (%s); observed: %v", issue, what, err)
	default:
		t.Error(err)
	}
}

// checkError turns a node client check into an error (nil when it passed).
func checkError(rep nodeReport, name string) error {
	c, ok := rep.Checks[name]
	switch {
	case !ok:
		return fmt.Errorf("node client did not complete check %q: %s", name, rep.Error)
	case !c.ok():
		b, _ := json.Marshal(c)
		if len(b) > 1500 {
			b = append(b[:1500], "..."...)
		}
		return fmt.Errorf("node client check %q failed: %s", name, b)
	}
	return nil
}
