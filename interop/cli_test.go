package interop_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/server"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// spdylabBinary builds cmd/spdylab once per test binary run.
func spdylabBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "spdylab-interop-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "spdylab")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/spdylab").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ../cmd/spdylab: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// runGet runs `spdylab get args...` and returns stdout, stderr and the exit
// status.
func runGet(t *testing.T, args ...string) (stdout []byte, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, spdylabBinary(t), append([]string{"get"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("spdylab get %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.Bytes(), errb.String(), code
}

func TestGetCommandAgainstNodeServer(t *testing.T) {
	for _, plain := range []bool{false, true} {
		name := "tls_alpn"
		if plain {
			name = "plain_tcp"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ns := startNodeServer(t, plain)
			const n = 3 << 20
			// Two URLs, one session: the 3 MiB body then the page that
			// pushes; -v traces every frame.
			out, stderr, code := runGet(t, "-k", "--proto", "spdy/3.1", "-v",
				fmt.Sprintf("%s_spdylab/bytes?n=%d&seed=11", ns.URL, n), ns.URL+"push.html")
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, tail(stderr))
			}
			if len(out) < n || sha(out[:n]) != server.DeterministicSHA256(n, 11) {
				t.Fatalf("stdout does not start with the 3 MiB body (%d bytes)", len(out))
			}
			if !strings.Contains(string(out[n:]), `src="/pushed.js"`) {
				t.Errorf("second body is not push.html: %q", out[n:])
			}
			for _, want := range []string{
				"spdy/3.1 200, 3145728 bytes", // per-URL summary
				"> SYN_STREAM stream=1 ",      // our requests, one session
				"> SYN_STREAM stream=3 ",
				"< SYN_REPLY stream=1 ",
				"> WINDOW_UPDATE stream=0 ",    // session flow control (3.1)
				"< SYN_STREAM stream=2 assoc=", // node's push, traced
				"ttfb", "total",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, tail(stderr))
				}
			}
			if strings.Count(stderr, ": spdy/3.1, dns ") != 1 {
				t.Errorf("want exactly one connection for two URLs of one origin:\n%s", tail(stderr))
			}

			// Upload: --data @FILE posts it; node answers the hash.
			payload := server.DeterministicBytes(2<<20, 23)
			file := filepath.Join(t.TempDir(), "upload.bin")
			if err := os.WriteFile(file, payload, 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, code = runGet(t, "-k", "--proto", "spdy/3.1", "--data", "@"+file, ns.URL+"_spdylab/sha256")
			var ur server.UploadResult
			if code != 0 || json.Unmarshal(out, &ur) != nil || ur.SHA256 != sha(payload) || ur.Length != int64(len(payload)) {
				t.Errorf("upload: exit %d, answer %q; stderr:\n%s", code, out, tail(stderr))
			}

			// Failures exit non-zero and say why.
			_, stderr, code = runGet(t, "-k", "--proto", "spdy/3.1", ns.URL+"no-such-page")
			if code == 0 || !strings.Contains(stderr, "status 404") {
				t.Errorf("404: exit %d, stderr:\n%s", code, tail(stderr))
			}
			if !plain {
				_, stderr, code = runGet(t, ns.URL)
				if code != 1 || !strings.Contains(stderr, "add --insecure") {
					t.Errorf("untrusted certificate without --insecure: exit %d, stderr:\n%s", code, tail(stderr))
				}
				_, stderr, code = runGet(t, "-k", "--proto", "h2", ns.URL)
				if code == 0 || !strings.Contains(stderr, "h2") {
					t.Errorf("ALPN mismatch (node speaks only spdy/3.1, we insisted on h2): exit %d, stderr:\n%s", code, tail(stderr))
				}
			}
		})
	}
}

func TestGetCommandRejectsBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no URL"},
		{[]string{"--proto", "spdy/1", "https://127.0.0.1:1/"}, `--proto "spdy/1"`},
		{[]string{"ftp://x/"}, "scheme"},
		{[]string{"-o", "a", "-o", "b", "https://127.0.0.1:1/"}, "2 -o files for 1 URLs"},
		{[]string{"--data", "@/nonexistent/file", "https://127.0.0.1:1/"}, "--data"},
	} {
		_, stderr, code := runGet(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("get %q: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

// startServe runs `spdylab serve args...` and returns its URL (the first
// line of stdout) and the running command.
type serveProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited <-chan struct{}
}

func startServe(t *testing.T, args ...string) (string, *serveProc) {
	t.Helper()
	cmd := exec.Command(spdylabBinary(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	line, stderr, exited := startProcess(t, cmd)
	if !strings.HasPrefix(line, "https://") && !strings.HasPrefix(line, "http://") {
		t.Fatalf("serve's first line is %q, want its URL; stderr:\n%s", line, stderr)
	}
	return line, &serveProc{cmd: cmd, stderr: stderr, exited: exited}
}

// stopServe sends SIGTERM and expects a clean exit.
func stopServe(t *testing.T, p *serveProc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not exit within 10 s of SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("serve exited %d after SIGTERM; stderr:\n%s", code, tail(p.stderr.String()))
	}
}

func TestServeCommand(t *testing.T) {
	requireNode(t)
	// A generated study page: its manifest gives content types, and the
	// manifest push map what "--push manifest" pushes with the root HTML.
	m, err := page.Generate("pageA", 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	if err := m.WriteSite(site); err != nil {
		t.Fatal(err)
	}
	root := m.Resources[0]
	children := m.PushMap()[root.Path]
	if len(children) == 0 {
		t.Fatalf("page has nothing to push with %s", root.Path)
	}
	rootBody, _ := os.ReadFile(filepath.Join(site, root.Path))

	t.Run("tls", func(t *testing.T) {
		t.Parallel()
		url, proc := startServe(t, "--root", site, "--push", "manifest", "--quiet")

		// node-spdy as the client, spdy/3.1 over TLS with ALPN.
		rep := runNodeClient(t, url, false, "--window", "65536", "--checks", "get,upload,concurrent,slow")
		requireChecks(t, rep, "get", "upload", "concurrent", "slow")
		t.Run("node_push", func(t *testing.T) {
			first, _ := os.ReadFile(filepath.Join(site, children[0]))
			rep := runNodeClient(t, url, false, "--checks", "push", "--timeout", "20000",
				"--push-path", root.Path, "--pushed-path", children[0],
				"--pushed-size", fmt.Sprint(len(first)), "--pushed-sha256", sha(first))
			knownIssue(t, 2, checkError(rep, "push")) // SPDY_ISSUES.md #2, fixed
		})

		// h2 and http/1.1 with Go's client: the same files, exact sizes and
		// manifest content types.
		for _, proto := range []string{"h2", "http/1.1"} {
			tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: proto == "h2"}
			if proto == "http/1.1" {
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			resp, err := (&http.Client{Transport: tr}).Get(url + root.Path[1:])
			if err != nil {
				t.Fatalf("%s: %v", proto, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			tr.CloseIdleConnections()
			wantMajor := map[string]int{"h2": 2, "http/1.1": 1}[proto]
			if resp.ProtoMajor != wantMajor || resp.StatusCode != 200 || !bytes.Equal(body, rootBody) {
				t.Errorf("%s: got %s %d with %d bytes, want %d bytes", proto, resp.Proto, resp.StatusCode, len(body), len(rootBody))
			}
			if ct := resp.Header.Get("Content-Type"); ct != root.ContentType {
				t.Errorf("%s: Content-Type %q, want the manifest's %q", proto, ct, root.ContentType)
			}
		}

		// Our own client against our own server, h2 traced with -v.
		out, gerr, code := runGet(t, "-k", "--proto", "h2", "-v", url+root.Path[1:])
		if code != 0 || !bytes.Equal(out, rootBody) || !strings.Contains(gerr, "< HEADERS stream=1") || !strings.Contains(gerr, ":status=200") {
			t.Errorf("get --proto h2 -v: exit %d, %d bytes; stderr:\n%s", code, len(out), tail(gerr))
		}
		// http/1.1 to a file: the body lands whole under -o, headers traced.
		outFile := filepath.Join(t.TempDir(), "root.html")
		_, gerr, code = runGet(t, "-k", "--proto", "http/1.1", "-v", "-o", outFile, url+root.Path[1:])
		if got, _ := os.ReadFile(outFile); code != 0 || !bytes.Equal(got, rootBody) || !strings.Contains(gerr, "> GET "+root.Path+" HTTP/1.1") || !strings.Contains(gerr, "< HTTP/1.1 200 OK") {
			t.Errorf("get --proto http/1.1 -v -o: exit %d, file %d bytes; stderr:\n%s", code, len(got), tail(gerr))
		}
		// Without --proto the server's ALPN preference decides: spdy/3.1.
		_, gerr, code = runGet(t, "-k", url+"_spdylab/info")
		if code != 0 || !strings.Contains(gerr, ": spdy/3.1 200") {
			t.Errorf("get without --proto: exit %d, want spdy/3.1 chosen; stderr:\n%s", code, tail(gerr))
		}
		// And spdy/3.1 with push: the manifest's children arrive pushed.
		_, gerr, code = runGet(t, "-k", "--proto", "spdy/3.1", "-v", url+root.Path[1:])
		if code != 0 || !strings.Contains(gerr, "< SYN_STREAM stream=2 assoc=1 ") || !strings.Contains(gerr, "* pushed "+strings.TrimSuffix(url, "/")+children[0]+": 200") {
			t.Errorf("get --proto spdy/3.1 -v with --push manifest: exit %d, want a pushed stream in the trace:\n%s", code, tail(gerr))
		}
		stopServe(t, proc)
	})

	t.Run("plain", func(t *testing.T) {
		t.Parallel()
		url, proc := startServe(t, "--root", site, "--plain", "spdy/3.1", "--quiet")
		if !strings.HasPrefix(url, "http://") {
			t.Fatalf("plain serve URL %q, want http://", url)
		}
		rep := runNodeClient(t, url, true, "--window", "65536", "--checks", "get,upload,concurrent,slow")
		requireChecks(t, rep, "get", "upload", "concurrent", "slow")
		out, gerr, code := runGet(t, "--proto", "spdy/3.1", url+root.Path[1:])
		if code != 0 || !bytes.Equal(out, rootBody) {
			t.Errorf("get over plain spdy/3.1: exit %d, %d bytes; stderr:\n%s", code, len(out), tail(gerr))
		}
		stopServe(t, proc)
	})
}

func TestServeCommandRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--protocols", "spdy/3.1,gopher"}, `unknown protocol "gopher"`},
		{[]string{"--push", "sometimes"}, `push policy "sometimes"`},
		{[]string{"--plain", "h3"}, `--plain "h3": h3 does not run over plain TCP`},
		{[]string{"--max-streams", "-1"}, "--max-streams -1"},
		{[]string{"--cert", "x.pem"}, "--cert and --key go together"},
		{[]string{"--root", "/nonexistent/spdylab-site"}, "root"},
		{[]string{"--tls-min", "1.4"}, "--tls-min"},
		{[]string{"--frame-size", "20000000"}, "--frame-size"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		cmd := exec.Command(spdylabBinary(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("serve %q: %v, stderr %q; want exit 2 mentioning %q", tc.args, err, stderr.String(), tc.want)
		}
	}
}

// tail keeps failure messages readable when a trace is long.
func tail(s string) string {
	const max = 4000
	if len(s) > max {
		return "...\n" + s[len(s)-max:]
	}
	return s
}
