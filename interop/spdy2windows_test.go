package interop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// node-spdy 4.0.2 keeps SPDY/3 stream windows on spdy/2 (SPDY_ISSUES.md
// #8). With the default --spdy2-windows auto, `spdylab get --proto spdy/2`
// sees node's window SETTINGS and returns what it reads, so 3 MiB arrive
// instead of stalling at 64 KiB; with "off" (the draft) they stall.
func TestSPDY2AutoDetectsNode(t *testing.T) {
	ns := startNodeServer(t, false, "--protocol", spdy.ProtoSPDY2)
	const n = 3 << 20
	url := fmt.Sprintf("%s_spdylab/bytes?n=%d&seed=31", ns.URL, n)
	t.Run("get", func(t *testing.T) {
		out, stderr, code := runGet(t, "-k", "--proto", spdy.ProtoSPDY2, "-v", url)
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, tail(stderr))
		}
		if len(out) != n || sha(out) != server.DeterministicSHA256(n, 31) {
			t.Fatalf("got %d bytes (sha %s), want the 3 MiB body", len(out), sha(out))
		}
		for _, want := range []string{"< SETTINGS INITIAL_WINDOW_SIZE=", "> WINDOW_UPDATE stream=1 "} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, tail(stderr))
			}
		}
	})
	t.Run("upload", func(t *testing.T) {
		payload := server.DeterministicBytes(2<<20, 37)
		file := filepath.Join(t.TempDir(), "upload.bin")
		if err := os.WriteFile(file, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := runGet(t, "-k", "--proto", spdy.ProtoSPDY2, "--data", "@"+file, ns.URL+"_spdylab/sha256")
		var ur server.UploadResult
		if code != 0 || json.Unmarshal(out, &ur) != nil || ur.SHA256 != sha(payload) || ur.Length != int64(len(payload)) {
			t.Errorf("upload: exit %d, answer %q; stderr:\n%s", code, out, tail(stderr))
		}
	})
	t.Run("off_stalls", func(t *testing.T) {
		// A stall is permanent, so the short timeout only bounds the wait.
		_, stderr, code := runGet(t, "-k", "--proto", spdy.ProtoSPDY2, "--spdy2-windows", "off", "--timeout", "2s", url)
		if code == 0 {
			t.Fatalf("--spdy2-windows off fetched 3 MiB from node-spdy: the draft-2 stall is gone, update SPDY_ISSUES.md #8; stderr:\n%s", tail(stderr))
		}
	})
}

// node-spdy as a spdy/2 client against our server with its default
// (auto): node's window SETTINGS makes our server return what handlers
// read (uploads complete), and node's first stream WINDOW_UPDATE makes the
// streams opened afterwards keep to node's 64 KiB windows.
func TestSPDY2AutoServesNodeClient(t *testing.T) {
	requireNode(t)
	w := &windowWatch{frames: newFrameLog(), windowed: map[uint32]bool{}}
	cfg := server.Config{Root: pushSite(t), Plain: spdy.ProtoSPDY2, SPDY: spdy.Config{Version: spdy.ProtoSPDY2, Trace: w.trace}}
	s := startOurServer(t, cfg)
	rep := runNodeClient(t, s.URL(), true, "--window", "65536", "--protocol", spdy.ProtoSPDY2, "--checks", "get,upload,concurrent,slow")
	requireChecks(t, rep, "get", "upload", "concurrent", "slow")

	w.mu.Lock()
	defer w.mu.Unlock()
	w.frames.mu.Lock()
	defer w.frames.mu.Unlock()
	if len(w.windowed) == 0 {
		t.Fatal("no stream opened after node's first WINDOW_UPDATE: the check below checks nothing")
	}
	granted := windowUpdates(w.frames.received)
	for id := range w.windowed {
		if got, limit := w.frames.dataOut[id], 65536+granted[id]; got > limit {
			t.Errorf("we sent %d bytes on stream %d, opened after detection, node granted only %d", got, id, limit)
		}
	}
}

// windowWatch records which streams node opened after its first stream
// WINDOW_UPDATE reached our server (the trace runs on the session's reader
// goroutine, in the order the session handles frames).
type windowWatch struct {
	frames   *frameLog
	mu       sync.Mutex
	detected bool
	windowed map[uint32]bool
}

func (w *windowWatch) trace(sent bool, f spdy.Frame) {
	w.frames.trace(sent, f)
	if sent {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch f := f.(type) {
	case *spdy.WindowUpdateFrame:
		w.detected = w.detected || (f.Stream != 0 && f.Delta > 0)
	case *spdy.SynStreamFrame:
		if w.detected {
			w.windowed[f.Stream] = true
		}
	}
}
