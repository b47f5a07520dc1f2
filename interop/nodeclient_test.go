package interop_test

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// pushSite writes the files client.js's push check expects: /push.html
// referencing /pushed.js, which is 100000 deterministic bytes (seed 7).
func pushSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	html := `<!doctype html><title>push</title><script src="/pushed.js"></script>` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "push.html"), []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pushed.js"), server.DeterministicBytes(100000, 7), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startOurServer runs a server.Server on loopback for the test's lifetime.
func startOurServer(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	for s.URL() == "" {
		time.Sleep(time.Millisecond)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

func TestNodeClientAgainstOurServer(t *testing.T) {
	for _, ic := range interopCases {
		t.Run(ic.name, func(t *testing.T) {
			t.Parallel()
			requireNode(t)
			frames := newFrameLog()
			cfg := server.Config{
				Root:    pushSite(t),
				Push:    server.PushManifest,
				PushMap: map[string][]string{"/push.html": {"/pushed.js"}},
				SPDY:    ic.spdyConfig(spdy.Config{Trace: frames.trace}),
			}
			if ic.plain {
				cfg.Plain = ic.proto
			} else {
				cfg.Protocols = []string{ic.proto}
			}
			slog := &syncBuffer{}
			cfg.Log = log.New(slog, "", log.Lmicroseconds)
			s := startOurServer(t, cfg)
			cfg.Log = nil
			// 64 KiB node windows (stream and session) make our server's
			// sends wait for node's WINDOW_UPDATEs on every large body.
			rep := runNodeClient(t, s.URL(), ic.plain, "--window", "65536", "--protocol", ic.proto, "--checks", "get,upload,concurrent,slow")
			requireChecks(t, rep, "get", "upload", "concurrent", "slow")

			frames.mu.Lock()
			checkLowercaseNames(t, "node-spdy client", frames.received)
			requests := 0
			for _, f := range frames.received {
				if s, ok := f.(*spdy.SynStreamFrame); ok {
					requests++
					for _, h := range []string{":method", ":path", ":version", ":host", ":scheme"} {
						if s.Headers.Get(h) == "" {
							t.Errorf("node-spdy SYN_STREAM %d lacks %s: %v", s.Stream, h, s.Headers)
						}
					}
				}
			}
			if requests < 60 {
				t.Errorf("saw %d requests from node-spdy, want >= 60 (get, upload, 50 concurrent, 8 slow)", requests)
			}
			if ic.sessionWindows() {
				// Our server never sent more than node had granted.
				granted := windowUpdates(frames.received)
				if granted[0] == 0 {
					t.Errorf("node-spdy sent no session WINDOW_UPDATE on a spdy/3.1 session")
				}
				if got, limit := sum(frames.dataOut), 65536+granted[0]; got > limit {
					t.Errorf("we sent %d DATA bytes on the session, node granted only %d", got, limit)
				}
				for id, got := range frames.dataOut {
					if limit := 65536 + granted[id]; got > limit {
						t.Errorf("we sent %d bytes on stream %d, node granted only %d", got, id, limit)
					}
				}
			} else {
				checkStreamWindows(t, frames)
			}
			if t.Failed() {
				t.Logf("frames received: %d, sent: %d", len(frames.received), len(frames.sent))
				for _, f := range append(frames.sent, frames.received...) {
					switch f.(type) {
					case *spdy.GoAwayFrame, *spdy.RstStreamFrame:
						t.Logf("  %v", f)
					}
				}
				t.Logf("server log:\n%s", slog.String())
			}
			frames.mu.Unlock()

			// Push gets its own session: a peer that rejects a push frame
			// ends the whole session, which must not hide the other checks.
			t.Run("push", func(t *testing.T) {
				pframes := newFrameLog()
				cfg.SPDY.Trace = pframes.trace
				s := startOurServer(t, cfg)
				rep := runNodeClient(t, s.URL(), ic.plain, "--protocol", ic.proto, "--checks", "push", "--timeout", "20000")
				pframes.mu.Lock()
				defer pframes.mu.Unlock()
				var pushed bool
				for _, f := range pframes.sent {
					if s, ok := f.(*spdy.SynStreamFrame); ok && s.AssociatedTo != 0 {
						pushed = true
						if s.Flags&spdy.FlagUnidirectional == 0 || s.Headers.Get(":path") != "/pushed.js" {
							t.Errorf("our push SYN_STREAM %v is not unidirectional or not for /pushed.js", s)
						}
					}
				}
				if !pushed {
					t.Errorf("our server sent no push SYN_STREAM for /push.html")
				}
				knownIssue(t, 2, checkError(rep, "push")) // SPDY_ISSUES.md #2, fixed
			})
		})
	}
}
