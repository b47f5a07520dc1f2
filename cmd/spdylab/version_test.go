package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// `spdylab version` and `spdylab --version` print the revision the build
// stamped (the Makefile's -ldflags), the Go version and the modules a
// run's provenance records, at the versions go.mod requires.
func TestVersionPrintsRevisionGoAndModules(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "spdylab")
	const rev = "0123456789abcdef-test"
	if out, err := exec.Command("go", "build", "-ldflags", "-X github.com/spdylab/spdylab/study.Revision="+rev, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building spdylab: %v\n%s", err, out)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range []string{"github.com/quic-go/quic-go", "golang.org/x/net", "modernc.org/sqlite"} {
		v := regexp.MustCompile(regexp.QuoteMeta(m) + ` (v\S+)`).FindSubmatch(gomod)
		if v == nil {
			t.Fatalf("go.mod requires no %s", m)
		}
		want[m] = string(v[1])
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	text := string(out)
	if !strings.HasPrefix(text, "spdylab "+rev+"\n"+runtime.Version()+" ") {
		t.Errorf("--version does not start with the revision and Go version:\n%s", text)
	}
	for m, v := range want {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m) + ` +` + regexp.QuoteMeta(v) + `$`).MatchString(text) {
			t.Errorf("--version lacks %s %s:\n%s", m, v, text)
		}
	}
	out, err = exec.Command(bin, "version", "--json").Output()
	var info versionInfo
	if err != nil || json.Unmarshal(out, &info) != nil {
		t.Fatalf("version --json: %v: %s", err, out)
	}
	if info.Revision != rev || info.Go != runtime.Version() || info.Modules["github.com/quic-go/quic-go"] != want["github.com/quic-go/quic-go"] {
		t.Errorf("version --json: %+v", info)
	}
}
