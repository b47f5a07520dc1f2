package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/server"
)

// getServer runs spdylab's server on loopback over a site of two files,
// pushing /style.css with /index.html.
func getServer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>hello</html>"), 0o644)
	os.WriteFile(filepath.Join(dir, "style.css"), bytes.Repeat([]byte("p{}"), 30000), 0o644)
	return "https://" + loopbackServer(t, server.Config{Root: dir, HostNames: []string{"localhost"}, Push: server.PushManifest,
		PushMap: map[string][]string{"/index.html": {"/style.css"}}}, (*server.Server).Serve)
}

func TestGetEveryProtocolWithTraceAndPush(t *testing.T) {
	base := getServer(t)
	for _, tc := range []struct {
		proto, frame string // a line -v must print
		push         bool
	}{
		{"spdy/3.1", "SYN_STREAM", true},
		{"spdy/3", "SYN_STREAM", true},
		{"h2", "> HEADERS stream=1", true},
		{"http/1.1", "> GET /index.html HTTP/1.1", false},
	} {
		t.Run(tc.proto, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runGet([]string{"-k", "--proto", tc.proto, base + "/index.html", "-v", base + "/style.css"}, &out, &errb)
			stderr := errb.String()
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want := "<html>hello</html>" + strings.Repeat("p{}", 30000)
			if out.String() != want {
				t.Errorf("stdout has %d bytes, want both bodies in URL order (%d bytes)", out.Len(), len(want))
			}
			for _, s := range []string{"* " + base + ": " + tc.proto, tc.frame, base + "/index.html: " + tc.proto + " 200, 18 bytes", "(reused connection)"} {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			// The server pushes style.css with index.html; whether the push
			// or the request wins the race, no push is left unread.
			if tc.push && strings.Contains(stderr, "* pushed") && !strings.Contains(stderr, "* pushed "+base+"/style.css: 200, 90000 bytes") {
				t.Errorf("push reported wrongly:\n%s", stderr)
			}
		})
	}
}

func TestGetWritesFilesAndFailsOnMissing(t *testing.T) {
	base := getServer(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	var out, errb bytes.Buffer
	code := runGet([]string{"-k", "-o", a, "-o", b, base + "/index.html", base + "/nope"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "1 of 2 requests failed: "+base+"/nope (status 404)") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	if got, _ := os.ReadFile(a); string(got) != "<html>hello</html>" {
		t.Errorf("-o file holds %q", got)
	}
	if out.Len() != 0 {
		t.Errorf("stdout got %d bytes with -o", out.Len())
	}
}

func TestGetBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no URL given"},
		{[]string{"--proto", "h4", "https://x/"}, `--proto "h4": unknown protocol (want https, spdy/3.1`},
		{[]string{"--proto", "h3", "http://x/"}, "h3 has no plaintext"},
		{[]string{"ftp://x/"}, "scheme must be https or http"},
		{[]string{"-H", "novalue", "https://x/"}, "is not \"Name: value\""},
		{[]string{"--session-window", "10", "https://x/"}, "out of range"},
	} {
		var out, errb bytes.Buffer
		if code := runGet(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("get %q: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// An http:// URL with --proto h2 is fetched as h2c with prior knowledge.
func TestGetH2CPriorKnowledge(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>hello</html>"), 0o644)
	h2c := func(srv *server.Server, ln net.Listener) error { return srv.ServePlain(ln, server.ProtoH2) }
	u := "http://" + loopbackServer(t, server.Config{Root: dir}, h2c) + "/index.html"
	var out, errb bytes.Buffer
	if code := runGet([]string{"--proto", "h2", "-v", u}, &out, &errb); code != 0 || out.String() != "<html>hello</html>" {
		t.Fatalf("exit %d, body %q: %s", code, out.String(), errb.String())
	}
	if s := errb.String(); !strings.Contains(s, "> HEADERS stream=1") || !strings.Contains(s, u+": h2 200") {
		t.Errorf("not an h2 exchange:\n%s", s)
	}
}

// A push nobody asked for is read to its end and reported (SPDY and h2).
func TestGetReportsPushes(t *testing.T) {
	base := getServer(t)
	for _, proto := range []string{"spdy/3.1", "h2"} {
		var out, errb bytes.Buffer
		if code := runGet([]string{"-k", "--proto", proto, base + "/index.html"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", proto, code, errb.String())
		}
		if want := "* pushed " + base + "/style.css: 200, 90000 bytes"; !strings.Contains(errb.String(), want) {
			t.Errorf("%s: stderr lacks %q:\n%s", proto, want, errb.String())
		}
	}
}

// `get -o` onto a device (as `curl -o /dev/null` is used) writes to the
// device and leaves it one; onto a directory it fails naming the path. The
// device is a node made in the test's directory, never the real /dev/null.
func TestGetOutputOntoDeviceKeepsTheDevice(t *testing.T) {
	testutil.RequireRoot(t)
	base := getServer(t)
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	if err := unix.Mknod(dev, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runGet([]string{"-k", "-o", dev, base + "/index.html"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after get -o the device is %v (%v)", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside the device: %v", entries)
	}

	sub := filepath.Join(dir, "bodies")
	os.Mkdir(sub, 0o755)
	errb.Reset()
	if code := runGet([]string{"-k", "-o", sub, base + "/index.html"}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), sub+": is a directory") {
		t.Fatalf("get -o DIR: exit %d, stderr %s", code, errb.String())
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Fatalf("the directory is gone: %v", err)
	}
}
