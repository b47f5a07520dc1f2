package main

import (
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/server"
)

func TestConformCommand(t *testing.T) {
	s, err := server.New(server.Config{PlainSPDY: "spdy/3.1"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	defer s.Close()
	url := "http://" + l.Addr().String() + "/"

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
