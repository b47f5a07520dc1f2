package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// TestKernelCheckAtRunTime: a profile's cc is checked against the kernel
// when a study is to run, not when its file is read (a file reads the same
// on every machine). Both `spdylab studies` (its listing and --check) and
// `run` refuse a cc the kernel lacks before any load, naming the value and
// what the kernel offers. Study files only name algorithms spdylab knows,
// which this kernel may all offer; a kernel built without one fails the
// same way as the made-up name the conditions are given here.
func TestKernelCheckAtRunTime(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bbr.toml":   "name = \"bbr\"\nprotocols = [\"spdy/3.1\"]\n[settings]\ncc = \"bbr\"\n",
		"study.toml": "name = \"pf\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = [\"https\", \"spdy/3.1\"]\nprofile = [\"\", \"bbr.toml\"]\n[baseline]\nprotocol = \"https\"\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *spec.Study {
		s, err := studyfile.Load(filepath.Join(dir, "study.toml"))
		if err != nil {
			t.Fatalf("the study with a cc profile does not read: %v", err)
		}
		n := 0
		for i, c := range s.Conditions {
			if c.TCP.CC == "bbr" {
				s.Conditions[i].TCP.CC, n = "nosuchcc", n+1
			}
		}
		if n == 0 {
			t.Fatal("the profile set no condition's cc")
		}
		return s
	}
	said := func(cmd, msg string) {
		t.Helper()
		for _, w := range []string{`cc "nosuchcc"`, `congestion control "nosuchcc" is not available`, "it offers"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", cmd, msg, w)
			}
		}
	}
	var stderr bytes.Buffer
	if checkHost([]*spec.Study{load()}, &stderr) {
		t.Error("spdylab studies passed a study whose cc the kernel lacks")
	}
	said("studies", stderr.String())

	out := filepath.Join(dir, "out")
	_, err := study.RunInto(context.Background(), study.RunConfig{Study: load(), Out: out, Jobs: 1,
		Open: harnessOpener(""), Quiet: true, Log: io.Discard})
	if err == nil {
		t.Fatal("run ran a cc the kernel lacks")
	}
	said("run", err.Error())
	if _, err := os.Stat(filepath.Join(out, store.DBName)); !os.IsNotExist(err) {
		t.Errorf("run refused, but a store was written (%v)", err)
	}

	// What this kernel offers passes both, through the commands themselves.
	var stdout bytes.Buffer
	stderr.Reset()
	if code := studiesCmd([]string{filepath.Join(dir, "study.toml")}, &stdout, &stderr); code != 0 && !strings.Contains(stderr.String(), `"bbr" is not available`) {
		t.Errorf("studies: exit %d: %s", code, stderr.String())
	}
}
