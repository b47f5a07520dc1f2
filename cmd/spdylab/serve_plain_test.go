package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/server"
)

// serve --plain takes every protocol over TCP, in any spelling: https (or
// http/1.1) serves HTTP/1.1 and h2c on one port, as a plaintext bench
// does; h3 and SCTP are refused naming what --plain takes.
func TestServePlainEveryTCPProtocol(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>plain</html>"), 0o644)
	var errb bytes.Buffer
	cfg, _, _, _, status := parseServeFlags([]string{"--root", dir, "--plain", "http/1.1", "--quiet"}, &errb)
	if status >= 0 || cfg.Plain != server.ProtoHTTP11 {
		t.Fatalf("--plain http/1.1: status %d, plain %q: %s", status, cfg.Plain, errb.String())
	}
	u := "http://" + loopbackServer(t, cfg, (*server.Server).Serve) + "/index.html"
	for proto, alpn := range map[string]string{"https": "http/1.1", "h2": "h2"} {
		var out, errb bytes.Buffer
		if code := runGet([]string{"--proto", proto, u}, &out, &errb); code != 0 || out.String() != "<html>plain</html>" {
			t.Errorf("get --proto %s over --plain https: exit %d, body %q: %s", proto, code, out.String(), errb.String())
		} else if !strings.Contains(errb.String(), u+": "+alpn+" 200") {
			t.Errorf("get --proto %s: not answered over %s:\n%s", proto, alpn, errb.String())
		}
	}
	for _, v := range []string{"h3", "spdy/3.1+sctp", "gopher"} {
		errb.Reset()
		if _, _, _, _, status := parseServeFlags([]string{"--plain", v}, &errb); status != 2 || !strings.Contains(errb.String(), "https, spdy/3.1, spdy/3, spdy/2") {
			t.Errorf("--plain %s: status %d, %q; want a usage error listing the protocols", v, status, errb.String())
		}
	}
}
