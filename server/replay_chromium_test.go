package server

import (
	"bytes"
	"context"
	"log"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/page"
)

// TestRecordedPageInChromium serves the synthetic recording and lets real
// headless Chromium load it (every host name mapped to the server): it
// must request every replayable URL of the recording, including the
// stylesheet's image, the scripts' children and the redirect chains.
func TestRecordedPageInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed: skipping the real-browser replay check")
	}
	m, _, err := page.ImportHARFile("../page/testdata/synthetic.har", page.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	var access testutil.SyncBuffer
	srv, err := New(Config{Root: dir, HostNames: m.Hosts, Log: log.New(&access, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--ignore-certificate-errors",
		"--host-resolver-rules=MAP * "+ln.Addr().String(), "--virtual-time-budget=5000",
		"--dump-dom", m.URL(0))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte("<html")) {
		t.Fatalf("chromium: %v (%d bytes of DOM)\n%s", err, len(out), stderr.String())
	}
	fetched := map[string]bool{}
	for _, line := range strings.Split(access.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 4 && f[1] == "GET" {
			fetched[f[2]] = true
		}
	}
	for id := range m.Resources {
		if r := &m.Resources[id]; !fetched[r.Target()] {
			t.Errorf("chromium did not request %s", m.URL(id))
		}
	}
}
