package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/store"
)

// The helpers of the tests that run the built command on real testbeds and
// then look at what it left: its store, its testbeds' state under
// /run/spdylab, their namespaces.

// tinyLink is 12 loads on an emulated link: few enough for a test, enough
// that a run can be caught in the middle.
const tinyLink = `
name = "tiny-link"
runs = 6
seed = 1
[factors]
page = "twitter"
protocol = ["https", "spdy/3.1"]
rate = "10mbit/1mbit"
rtt = "20ms"
queue = "50pkt"
`

// spdylabBinary builds the command into the test's temporary directory.
func spdylabBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "spdylab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building spdylab: %v\n%s", err, out)
	}
	return bin
}

// asNobody is the command bin args run as the unprivileged user nobody,
// from a copy of bin that nobody can run (the test's temporary directories
// are root's alone), removed when the test ends.
func asNobody(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	dir, err := os.MkdirTemp("", "spdylab-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "spdylab")
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// writeStudy writes a study file named name into dir and returns its path.
func writeStudy(t *testing.T, dir, name, src string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// startRun starts bin args with its stderr kept, killed when the test ends
// if it is still running.
func startRun(t *testing.T, bin string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &stderr
}

// waitStored returns once the store in out holds n probes: the run that
// writes it is then in the middle of its study. It fails the test after
// 2 minutes, with what the run said on stderr.
func waitStored(t *testing.T, out string, n int, stderr *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); storedProbes(t, out) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no loads stored within 2 minutes: %s", stderr.String())
		}
	}
}

// resumeCompletes runs bin args again, after a run of the 12 loads of
// tinyLink that stopped with kept probes stored, and checks that every
// load is then stored with one successful attempt.
func resumeCompletes(t *testing.T, bin string, args []string, out string, kept int) {
	t.Helper()
	t0 := time.Now()
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	t.Logf("resumed in %v (%d probes were stored): %s", time.Since(t0).Round(time.Millisecond), kept, strings.TrimSpace(string(res)))
	if n, ok := storedProbes(t, out), countStored(t, out, `SELECT COUNT(*) FROM probes WHERE failed = 0`); n != 12 || ok != 12 {
		t.Errorf("after the resume: %d probes, %d successful attempts; want each of the 12 once", n, ok)
	}
}

// exitedWith says whether err is a command's exit with status code.
func exitedWith(err error, code int) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == code
}

// openStoreRO opens the store in out read-only with SQL, to look at what a
// run stored while it may still be writing.
func openStoreRO(out string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+filepath.Join(out, store.DBName)+"?mode=ro&_pragma=busy_timeout(5000)")
}

// storedProbes counts the probes (condition, run) with an attempt stored:
// a stalled load's second attempt is the same probe.
func storedProbes(t *testing.T, out string) int {
	return countStored(t, out, `SELECT COUNT(*) FROM (SELECT DISTINCT cond_hash, run FROM probes)`)
}

// storedAttempts counts every stored attempt: one per load the benches ran.
func storedAttempts(t *testing.T, out string) int {
	return countStored(t, out, `SELECT COUNT(*) FROM probes`)
}

// countStored runs a COUNT query on the store in out (0 when unreadable).
func countStored(t *testing.T, out, query string) int {
	t.Helper()
	db, err := openStoreRO(out)
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		return 0
	}
	return n
}

// testbedsOwnedBy are the ids of the testbeds whose state directories name
// pid as their owner.
func testbedsOwnedBy(pid int) []string {
	var ids []string
	ents, _ := os.ReadDir("/run/spdylab")
	for _, e := range ents {
		owner, _ := os.ReadFile(filepath.Join("/run/spdylab", e.Name(), "owner"))
		if first, _, _ := strings.Cut(string(owner), "\n"); strings.TrimSpace(first) == strconv.Itoa(pid) {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// testbedOwnedBy is the id of a testbed whose state directory names pid
// as its owner, or "".
func testbedOwnedBy(pid int) string {
	if ids := testbedsOwnedBy(pid); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// runTestbed is the id of a testbed of the running command cmd; the test
// fails when it has none.
func runTestbed(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	id := testbedOwnedBy(cmd.Process.Pid)
	if id == "" {
		t.Fatal("found no testbed owned by the run")
	}
	return id
}

// testbedProc is a process a testbed records: its pid and its name.
type testbedProc struct {
	pid  int
	name string
}

// testbedProcesses are the processes testbed id records (its emulator);
// the test fails when it records none.
func testbedProcesses(t *testing.T, id string) []testbedProc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/run/spdylab", id, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	var procs []testbedProc
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if pid, err := strconv.Atoi(f[0]); err == nil {
			p := testbedProc{pid: pid}
			if len(f) > 1 {
				p.name = f[1]
			}
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 {
		t.Fatalf("testbed %s records no process", id)
	}
	return procs
}

// assertTestbedGone fails the test when a namespace or the state directory
// of testbed id is left.
func assertTestbedGone(t *testing.T, id string) {
	t.Helper()
	id = strings.TrimPrefix(id, "sl-")
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "sl-"+id+"-") {
			t.Errorf("namespace %s survived", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join("/run/spdylab", id)); err == nil {
		t.Errorf("state directory of testbed %s survived", id)
	}
}
