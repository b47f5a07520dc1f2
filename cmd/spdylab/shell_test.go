package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
)

func TestShellRunsCommandBehindTheLink(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	// The server writes a file into the shared temp dir so we know it ran
	// in its namespace; the client resolves s1 over the link, sees the
	// marker and exits with a status of its own.
	dir := t.TempDir()
	cmd := exec.Command(bin, "shell", "-q", "--rtt", "10ms", "--down", "20mbit", "--up", "5mbit",
		"--server", "echo $SPDYLAB_HOST $SPDYLAB_ADDR > "+dir+"/server; exec sleep 30",
		"--", "sh", "-c", "echo $SPDYLAB_TESTBED; getent hosts s1.spdylab.test; while [ ! -s "+dir+"/server ]; do sleep 0.05; done; cat "+dir+"/server; exit 5")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 5 {
		t.Fatalf("shell exited with %v, want status 5 from the command; stderr:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output %q", stdout.String())
	}
	if !strings.HasPrefix(lines[0], "sl-") {
		t.Errorf("SPDYLAB_TESTBED = %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) < 2 || f[0] != "10.200.1.2" || f[1] != "s1.spdylab.test" {
		t.Errorf("getent hosts s1.spdylab.test inside the shell: %q", lines[1])
	}
	if lines[2] != "s1.spdylab.test 10.200.1.2" {
		t.Errorf("server saw %q", lines[2])
	}
	assertTestbedGone(t, lines[0])
}

func TestShellInterruptCleansUp(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	for _, tc := range []struct {
		sig  os.Signal
		want int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		cmd := exec.Command(bin, "shell", "-q", "--rtt", "5ms", "--", "sh", "-c", "echo $SPDYLAB_TESTBED; exec sleep 30")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			t.Fatal("shell printed nothing")
		}
		id := sc.Text()
		if _, err := os.Stat("/run/netns/" + id + "-c"); err != nil {
			t.Fatalf("client namespace of %s missing while the shell runs: %v", id, err)
		}
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("shell did not exit after %v", tc.sig)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != tc.want {
			t.Errorf("shell sent %v exited with %v, want status %d", tc.sig, err, tc.want)
		}
		assertTestbedGone(t, id)
	}
}

func TestShellAndLinkCheckRejectBadFlags(t *testing.T) {
	bin := spdylabBinary(t)
	for _, args := range [][]string{
		{"shell", "--down", "10mbps", "--", "true"},
		{"shell", "--loss", "200%", "--", "true"},
		{"shell", "--shards", "2", "--server", "a", "--server", "b", "--server", "c", "--", "true"},
		{"link", "check", "--queue", "lots"},
		{"link", "check", "--trace-down", "/nonexistent/trace"},
	} {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: exit %v, want 2; stderr %s", args, err, stderr.String())
			continue
		}
		// The message names the flag at fault.
		flagName := ""
		for _, a := range args {
			if strings.HasPrefix(a, "--") && a != "--" && a != "--server" {
				flagName = a
			}
		}
		if a := args; a[0] == "shell" && a[1] == "--shards" {
			flagName = "--server"
		}
		if !strings.Contains(stderr.String(), flagName) {
			t.Errorf("%v: error %q does not name %s", args, stderr.String(), flagName)
		}
	}
}

func TestLinkCheckJSON(t *testing.T) {
	testutil.RequireRoot(t)
	bin := spdylabBinary(t)
	cmd := exec.Command(bin, "link", "check", "--json", "--dns", "--rtt", "10ms", "--down", "20mbit", "--up", "5mbit",
		"--transfer", "1s", "--probes", "100", "--pings", "5")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Testbed      string `json:"testbed"`
		OK           bool   `json:"ok"`
		Measurements []struct {
			Name     string  `json:"name"`
			Measured float64 `json:"measured"`
			Pass     bool    `json:"pass"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s\nstderr %s", err, stdout.String(), stderr.String())
	}
	// The exit status follows the verdict: 0 when every value is within
	// tolerance, 1 otherwise.
	if (code == 0) != rep.OK || (code != 0 && code != 1) {
		t.Errorf("exit status %d with ok=%v", code, rep.OK)
	}
	want := map[string]bool{"rtt": false, "dns": false, "down": false, "up": false, "loss_up": false, "loss_down": false}
	for _, m := range rep.Measurements {
		want[m.Name] = true
		if m.Name == "rtt" && m.Measured <= 0 {
			t.Errorf("rtt measured %v", m.Measured)
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("no %s measurement in %s", name, stdout.String())
		}
	}
	assertTestbedGone(t, rep.Testbed)
}

// Without root, shell re-runs itself in an unprivileged user namespace. On
// machines where /dev/net/tun is open to every user (most distributions)
// the command then runs; otherwise the error must say what is missing.
func TestShellUnprivilegedUserNamespace(t *testing.T) {
	testutil.RequireRootTo(t, "switch to an unprivileged user for the test")
	cmd := asNobody(t, spdylabBinary(t), "shell", "-q", "--rtt", "5ms", "--", "sh", "-c", "exit 4")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("unprivileged shell: %v", err)
	}
	msg := stderr.String()
	switch {
	case ee.ExitCode() == 4:
		// The testbed was built in the user namespace and the command ran.
	case strings.Contains(msg, "/dev/net/tun") || strings.Contains(msg, "root or CAP_NET_ADMIN"):
		t.Logf("unprivileged testbed not possible here, as reported: %s", strings.TrimSpace(msg))
	default:
		t.Fatalf("unprivileged shell exited %d with %q: neither ran nor said what is missing", ee.ExitCode(), msg)
	}
	if strings.Contains(msg, "panic") {
		t.Errorf("panic in the unprivileged run: %s", msg)
	}
	leftovers, _ := filepath.Glob(filepath.Join(os.TempDir(), "spdylab-userns-*"))
	for _, l := range leftovers {
		if st, err := os.Stat(l); err == nil && st.Sys().(*syscall.Stat_t).Uid == 65534 {
			t.Errorf("user namespace scratch directory %s left behind", l)
		}
	}
}
