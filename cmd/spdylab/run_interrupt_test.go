package main

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study"
)

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

func storedProbes(t *testing.T, out string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(out, study.DBName)+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM probes`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// Ctrl-C in the middle of a study on a real testbed: the run exits 130,
// the testbed's namespaces are gone, stored loads stay, and the same
// command resumes and completes without repeating any load.
func TestRunInterruptCleansUpAndResumes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	bin := spdylabBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny-link.toml")
	os.WriteFile(file, []byte(tinyLink), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", file, "--out", out, "-q")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	deadline := time.Now().Add(2 * time.Minute)
	for storedProbes(t, out) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("no loads stored within 2 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var ids []string
	ents, _ := os.ReadDir("/run/spdylab")
	for _, e := range ents {
		owner, _ := os.ReadFile(filepath.Join("/run/spdylab", e.Name(), "owner"))
		if first, _, _ := strings.Cut(string(owner), "\n"); strings.TrimSpace(first) == strconv.Itoa(cmd.Process.Pid) {
			ids = append(ids, e.Name())
		}
	}
	if len(ids) == 0 {
		t.Fatal("found no testbed owned by the run")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run exited with %v, want status 130", err)
	}
	for _, id := range ids {
		assertTestbedGone(t, id)
	}
	if _, err := os.Stat(filepath.Join(out, ".work")); !os.IsNotExist(err) {
		t.Error("work directory survived the interrupt")
	}
	stored := storedProbes(t, out)
	if stored < 3 || stored >= 12 {
		t.Fatalf("%d loads stored after the interrupt", stored)
	}
	res, err := exec.Command(bin, "run", file, "--out", out, "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	st, err := study.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, _ := st.States()
	if len(states) != 12 {
		t.Errorf("%d loads after resume, want 12", len(states))
	}
	for k, s := range states {
		if s.Attempts != 1 && !(s.Attempts == 2 && s.OK) {
			t.Errorf("%v: %d attempts", k, s.Attempts)
		}
	}
	sess, _ := st.Sessions()
	if len(sess) != 2 {
		t.Errorf("%d sessions recorded, want 2 (run and resume)", len(sess))
	}
}
