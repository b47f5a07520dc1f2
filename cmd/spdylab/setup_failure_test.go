package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/studyfile"
)

// A testbed that cannot be built is an error naming the
// cause and a non-zero exit, not a panic on a nil bench.

// noPanic runs fn and turns a panic into a test failure.
func noPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("%s panicked: %v", what, v)
		}
	}()
	fn()
}

func TestLoadCommandTestbedFailureIsAClearError(t *testing.T) {
	work := t.TempDir()
	// The flags accept any packet log path; only the testbed finds that
	// its directory is missing (and, without root, that it may not build
	// namespaces at all).
	logPath := filepath.Join(work, "missing", "packets.log")
	var out, errb bytes.Buffer
	var code int
	noPanic(t, "spdylab load", func() {
		code = runLoad(context.Background(), []string{"--page", "pageC", "--runs", "1",
			"--work-dir", work, "--log", logPath}, &out, &errb)
	})
	if code == 0 {
		t.Fatalf("exit 0 for a testbed that cannot be built; stderr %q", errb.String())
	}
	want := []string{"spdylab load: harness: testbed: netem: packet log", logPath}
	if os.Geteuid() != 0 {
		want = []string{"spdylab load: harness: testbed: netem: building a testbed needs root"}
	}
	for _, w := range want {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr %q does not name %q", errb.String(), w)
		}
	}
	if owned := testbedsOwnedByUs(); len(owned) > 0 {
		t.Errorf("testbed state left behind: %v", owned)
	}
}

// testbedsOwnedByUs lists netem's state directories whose owner is this
// process.
func testbedsOwnedByUs() []string {
	var owned []string
	ents, _ := os.ReadDir("/run/spdylab")
	for _, e := range ents {
		owner, _ := os.ReadFile(filepath.Join("/run/spdylab", e.Name(), "owner"))
		if first, _, _ := strings.Cut(string(owner), "\n"); strings.TrimSpace(first) == strconv.Itoa(os.Getpid()) {
			owned = append(owned, e.Name())
		}
	}
	return owned
}

func TestRunTestbedFailureNamesTheCause(t *testing.T) {
	s, err := studyfile.Parse([]byte("name = \"no-cc\"\nruns = 1\nseed = 1\n[factors]\npage = \"pageC\"\nprotocol = \"https\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Study files only name algorithms spdylab knows; a kernel built
	// without one of them fails the same way as this made-up name.
	for i := range s.Conditions {
		s.Conditions[i].TCP.CC = "nosuchcc"
	}
	var runErr error
	noPanic(t, "the runner", func() {
		_, runErr = study.RunInto(context.Background(), study.RunConfig{Study: s, Out: filepath.Join(t.TempDir(), "out"),
			Jobs: 1, Open: harnessOpener(""), Quiet: true, Log: io.Discard})
	})
	if runErr == nil {
		t.Fatal("the run succeeded without a testbed")
	}
	// The run's preflight (study.CheckHost) refuses it before any testbed,
	// naming the condition and what the kernel offers.
	for _, w := range []string{`cc "nosuchcc"`, `congestion control "nosuchcc" is not available`, "it offers"} {
		if !strings.Contains(runErr.Error(), w) {
			t.Errorf("error %q does not name %q", runErr, w)
		}
	}
	if strings.Contains(runErr.Error(), "panic") {
		t.Errorf("error %q reports a panic instead of the cause", runErr)
	}
	if owned := testbedsOwnedByUs(); len(owned) > 0 {
		t.Errorf("a refused run left testbeds: %v", owned)
	}
}
