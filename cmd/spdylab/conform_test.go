package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/server"
)

func TestConformCommand(t *testing.T) {
	url := "http://" + loopbackServer(t, server.Config{Plain: "spdy/3.1"}, (*server.Server).Serve) + "/"

	var out, errOut bytes.Buffer
	if rc := runConform([]string{"--json", "--path", "/_spdylab/info", url}, &out, &errOut); rc != 0 {
		t.Fatalf("exit %d against spdylab serve; stderr %s; out %s", rc, errOut.String(), out.String())
	}
	var rs []struct {
		ID   string
		Pass bool
	}
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil || len(rs) == 0 {
		t.Fatalf("--json output %q: %v", out.String(), err)
	}

	// spdy/2 (draft 2) against a plain-TCP spdy/2 server: every case that
	// applies passes, the others are listed as skipped with their reason.
	url2 := "http://" + loopbackServer(t, server.Config{Plain: "spdy/2"}, (*server.Server).Serve) + "/"
	out.Reset()
	if rc := runConform([]string{"--version", "spdy/2", "--path", "/_spdylab/info", url2}, &out, &errOut); rc != 0 {
		t.Fatalf("exit %d against spdylab serve, spdy/2; stderr %s; out %s", rc, errOut.String(), out.String())
	}
	for _, want := range []string{"draft 2 Protocol versioning", "draft 2 has no flow control", " 0 failed, 9 skipped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("spdy/2 output lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "window-overflow") && !strings.HasPrefix(line, "skip") {
			t.Errorf("window-overflow is not skipped under spdy/2: %q", line)
		}
	}
	errOut.Reset()
	if rc := runConform([]string{"--help"}, &out, &errOut); rc != 0 || !strings.Contains(errOut.String(), "spdy/2") {
		t.Errorf("--help: exit %d, does not mention spdy/2:\n%s", rc, errOut.String())
	}

	// A listener that accepts and says nothing fails every case: exit 1.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 1024)
				for {
					if _, err := c.Read(buf); err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	out.Reset()
	if rc := runConform([]string{"--timeout", "100ms", "http://" + silent.Addr().String() + "/"}, &out, &errOut); rc != 1 {
		t.Fatalf("exit %d against a silent server, want 1", rc)
	}
	if !strings.Contains(out.String(), "FAIL") {
		t.Fatalf("no FAIL lines:\n%s", out.String())
	}
	if rc := runConform([]string{"ftp://x/"}, &out, &errOut); rc != 2 {
		t.Fatalf("exit %d for a bad URL, want 2", rc)
	}
}

// --list names every case with its section (or its skip reason) under the
// version; --case with --server-pid runs one DoS case whose JSON carries
// its verdict, reaction and measured memory; bad values are refused.
func TestConformListAndDoSJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if rc := runConform([]string{"--list"}, &out, &errOut); rc != 0 {
		t.Fatalf("--list: exit %d: %s", rc, errOut.String())
	}
	for _, want := range []string{"rapid-reset  ", "2.6.3", "slow-reader", "SPDY/3.1 session flow control", "header-accumulation"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if rc := runConform([]string{"--list", "--version", "spdy/2", "--json"}, &out, &errOut); rc != 0 {
		t.Fatalf("--list spdy/2: exit %d: %s", rc, errOut.String())
	}
	var ls []struct{ ID, Section, Skip string }
	if err := json.Unmarshal(out.Bytes(), &ls); err != nil || len(ls) == 0 {
		t.Fatalf("--list --json %q: %v", out.String(), err)
	}
	for _, l := range ls {
		if l.ID == "data-beyond-session-window" && l.Skip == "" || l.ID == "ping-flood" && l.Section != "draft 2 PING" {
			t.Errorf("spdy/2 listing of %s: %+v", l.ID, l)
		}
	}

	url := "http://" + loopbackServer(t, server.Config{Plain: "spdy/3.1"}, (*server.Server).Serve) + "/"
	out.Reset()
	args := []string{"--json", "--case", "settings-flood", "--flood", "500", "--server-pid", fmt.Sprint(os.Getpid()),
		"--path", "/_spdylab/info", url}
	if rc := runConform(args, &out, &errOut); rc != 0 {
		t.Fatalf("exit %d: %s %s", rc, errOut.String(), out.String())
	}
	var rs []struct {
		ID, Class, Reaction, Fresh string
		Pass                       bool
		Memory                     struct {
			Measured bool
			PID      int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("--json %q: %v", out.String(), err)
	}
	if r := rs[0]; r.ID != "settings-flood" || !r.Pass || r.Class == "" || r.Reaction == "" || r.Fresh == "" || !r.Memory.Measured || r.Memory.PID != os.Getpid() {
		t.Errorf("settings-flood result %+v", r)
	}
	for _, bad := range [][]string{{"--flood", "0", "http://x:1/"}, {"--case", "nope", url}, {"--list", "--version", "spdy/9"}} {
		errOut.Reset()
		if rc := runConform(bad, &out, &errOut); rc != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, rc, errOut.String())
		}
	}
}
