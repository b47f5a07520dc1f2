package browser

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/probe"
)

func TestBadOptionsFailBeforeStarting(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{URL: "https://s1.spdylab.test/", Proto: probe.ProtoSPDY31}, "cannot speak SPDY"},
		{Options{URL: "https://s1.spdylab.test/", Proto: "gopher"}, "unknown protocol"},
		{Options{URL: "ftp://x/"}, "scheme"},
		{Options{URL: "https://x/", TLSVersion: "1.1"}, "TLS version"},
		{Options{URL: "https://x/", Resolve: map[string]string{"x": "not-an-ip"}}, "not an IP"},
		{Options{URL: "https://x/", Binary: "/nonexistent/chromium"}, "Chromium not found"},
	} {
		res, err := Load(context.Background(), tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.o, err, tc.want)
		}
		if !res.Failed || res.Error != err.Error() {
			t.Errorf("%+v: result Failed=%v Error=%q, want the error", tc.o, res.Failed, res.Error)
		}
	}
	if _, err := Load(context.Background(), Options{URL: "https://x/", Proto: probe.ProtoSPDY3}); !errors.Is(err, ErrSPDYUnsupported) {
		t.Errorf("spdy/3: %v, want ErrSPDYUnsupported", err)
	}
}

// TestBrokenBrowserFails runs stand-ins for a browser that dies at once and
// one that answers DevTools with garbage.
func TestBrokenBrowserFails(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage-browser")
	if err := os.WriteFile(garbage, []byte("#!/bin/sh\nprintf 'not json\\000' >&4\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	started := watchStarts(t)
	for _, tc := range []struct{ bin, want string }{
		{"/bin/false", "Chromium exited: exit status 1"},
		{garbage, "malformed message"},
	} {
		_, err := Load(context.Background(), Options{URL: "https://s1.spdylab.test/", Binary: tc.bin, Timeout: 10 * time.Second})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.bin, err, tc.want)
		}
	}
	requireGone(t, started())
}

// hangingSite serves a page whose script never arrives; onHang runs when
// Chromium asks for it.
func hangingSite(t *testing.T, onHang func()) (url string, ca *x509.Certificate) {
	t.Helper()
	authority, err := certs.NewCA("hang CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := authority.Issue("s1.spdylab.test")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var once sync.Once
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.html":
			io.WriteString(w, `<html><body><script src="/slow.js"></script></body></html>`)
		case "/slow.js":
			if onHang != nil {
				once.Do(onHang)
			}
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate test's handshake errors
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(func() { close(stop); srv.Close() })
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	return "https://s1.spdylab.test:" + port + "/index.html", authority.Cert
}

// watchStarts records browser PIDs started during the test.
func watchStarts(t *testing.T) func() []int {
	var mu sync.Mutex
	var pids []int
	startedHook = func(pid int) { mu.Lock(); pids = append(pids, pid); mu.Unlock() }
	t.Cleanup(func() { startedHook = nil })
	return func() []int { mu.Lock(); defer mu.Unlock(); return append([]int(nil), pids...) }
}

func requireGone(t *testing.T, pids []int) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatal("no browser was started")
	}
	for _, pid := range pids {
		if left := groupPIDs(pid); len(left) > 0 {
			t.Errorf("Chromium processes %v of browser %d survived", left, pid)
		}
	}
	// Tests run one load at a time: no profile of this process may be left.
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, ownerFile)); err == nil && string(b) == strconv.Itoa(os.Getpid()) {
			t.Errorf("profile %s was not removed", d)
		}
	}
}

func TestPageWithoutOnloadFailsAndCleansUp(t *testing.T) {
	requireChromium(t)
	started := watchStarts(t)
	// The caller gives up a second after Chromium asked for the script that
	// never comes (a fixed Timeout could also expire during a slow start on
	// a busy machine, and this test is about the report of a hung page).
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	pageURL, ca := hangingSite(t, func() {
		time.AfterFunc(time.Second, func() { cancel(errors.New("caller gave up")) })
	})
	opts := Options{URL: pageURL, Proto: probe.ProtoH2, Timeout: time.Minute,
		Resolve: map[string]string{"s1.spdylab.test": "127.0.0.1"}, TrustCerts: []*x509.Certificate{ca}}
	res, err := Load(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "caller gave up") || !strings.Contains(err.Error(), "onload had not fired") || !strings.Contains(err.Error(), "/slow.js") {
		t.Fatalf("error %v: want the cause, onload not fired and the open /slow.js", err)
	}
	if !res.Failed || res.PLTms != 0 || len(res.HAR) == 0 {
		t.Errorf("result Failed=%v PLT=%v HAR %d bytes: want failed, no PLT, the partial HAR", res.Failed, res.PLTms, len(res.HAR))
	}
	// Options.Timeout ends a load the same way, whatever it is doing.
	opts.Timeout = 500 * time.Millisecond
	if _, err := Load(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "did not finish within 500ms") {
		t.Errorf("error %v: want the timeout named", err)
	}
	requireGone(t, started())
}

func TestUntrustedCertificateFails(t *testing.T) {
	requireChromium(t)
	pageURL, _ := hangingSite(t, nil)
	other, err := certs.NewCA("not the server's CA")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(context.Background(), Options{URL: pageURL, Timeout: 10 * time.Second,
		Resolve: map[string]string{"s1.spdylab.test": "127.0.0.1"}, TrustCerts: []*x509.Certificate{other.Cert}})
	if err == nil || !strings.Contains(err.Error(), "ERR_CERT") {
		t.Fatalf("error %v: want a certificate error", err)
	}
}

func TestBrowserKilledMidLoadFails(t *testing.T) {
	requireChromium(t)
	started := watchStarts(t)
	pageURL, ca := hangingSite(t, func() {
		for _, pid := range started() {
			syscall.Kill(pid, syscall.SIGKILL) // the browser only, as a crash would
		}
	})
	res, err := Load(context.Background(), Options{URL: pageURL, Timeout: 20 * time.Second,
		Resolve: map[string]string{"s1.spdylab.test": "127.0.0.1"}, TrustCerts: []*x509.Certificate{ca}})
	if err == nil || !strings.Contains(err.Error(), "DevTools connection lost") || !strings.Contains(err.Error(), "Chromium exited") {
		t.Fatalf("error %v: want the lost DevTools connection and Chromium's exit", err)
	}
	if !res.Failed {
		t.Error("result not marked failed")
	}
	requireGone(t, started())
}

// TestKilledParentLeavesNoChromium runs a load in a child process, kills
// that process with SIGKILL mid-load, and checks that Chromium dies with it.
func TestKilledParentLeavesNoChromium(t *testing.T) {
	if os.Getenv("SPDYLAB_BROWSER_PARENT") == "1" {
		parentHelper(t)
		return
	}
	requireChromium(t)
	// Profiles under a temp folder of this test's own: another process
	// starting Chromium on the machine (a second suite) sweeps the shared
	// one and would remove the killed parent's profile before it is counted.
	t.Setenv("TMPDIR", t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledParentLeavesNoChromium$", "-test.v")
	cmd.Env = append(os.Environ(), "SPDYLAB_BROWSER_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	pid := 0
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "HANGING "); ok {
			pid, _ = strconv.Atoi(s)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the helper never reported a hanging load")
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for len(groupPIDs(pid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := groupPIDs(pid); len(left) > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
		t.Fatalf("Chromium processes %v outlived their killed parent", left)
	}
	// The killed parent could not remove its profile; the next start does.
	owned := func() (n int) {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
		for _, d := range dirs {
			if b, err := os.ReadFile(filepath.Join(d, ownerFile)); err == nil && string(b) == strconv.Itoa(cmd.Process.Pid) {
				n++
			}
		}
		return n
	}
	if owned() != 1 {
		t.Fatalf("%d profiles owned by the killed parent, want its one", owned())
	}
	sweepProfiles()
	if n := owned(); n != 0 {
		t.Errorf("%d profiles of the killed parent left after the sweep", n)
	}
}

func parentHelper(t *testing.T) {
	var pid atomic.Int64
	startedHook = func(p int) { pid.Store(int64(p)) }
	pageURL, ca := hangingSite(t, func() { fmt.Printf("HANGING %d\n", pid.Load()) })
	Load(context.Background(), Options{URL: pageURL, Timeout: time.Minute,
		Resolve: map[string]string{"s1.spdylab.test": "127.0.0.1"}, TrustCerts: []*x509.Certificate{ca}})
}

func TestNamedCauseSaysWhyTheLoadEnded(t *testing.T) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Nanosecond, errors.New("page did not finish within 1ns"))
	defer cancel()
	<-ctx.Done()
	err := namedCause(ctx, errors.New("browser: Network.enable: writing to DevTools: i/o timeout"))
	if err == nil || !strings.Contains(err.Error(), "did not finish within 1ns") || !strings.Contains(err.Error(), "i/o timeout") {
		t.Errorf("error %v: want the cause and what was going on", err)
	}
	if err := namedCause(ctx, errors.New("browser: page did not finish within 1ns; still in flight: /x")); strings.Count(err.Error(), "did not finish") != 1 {
		t.Errorf("an error naming the cause got it twice: %v", err)
	}
	if err := namedCause(context.Background(), errors.New("boom")); err.Error() != "boom" {
		t.Errorf("an error of a live load was changed: %v", err)
	}
}
