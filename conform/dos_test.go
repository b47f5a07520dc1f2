package conform

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

var newCases = []string{"ping-flood", "settings-flood", "empty-frame-flood", "rapid-reset", "slow-reader", "header-inflate",
	"header-bytes-bounded", "data-beyond-stream-window", "data-beyond-session-window", "window-update-zero", "session-window-overflow"}

// runOnly runs the named cases against a plain-TCP spdylab server built
// from cfg (its Plain set to version), measuring this process's memory:
// the server runs in it.
func runOnly(t *testing.T, cfg server.Config, version string, mem int64, ids ...string) map[string]Result {
	t.Helper()
	return runWith(t, cfg, Options{Version: version, MemoryLimit: mem, Only: ids})
}

func runWith(t *testing.T, cfg server.Config, o Options) map[string]Result {
	t.Helper()
	cfg.Plain = o.Version
	o.URL, o.Path, o.ServerPID = startServe(t, cfg), "/_spdylab/info", os.Getpid()
	rs, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Result{}
	for _, r := range rs {
		out[r.ID] = r
	}
	return out
}

// Each flood and flow-control case passes against spdylab's server in every
// version it applies to, for the reason the server's limits give: the
// floods it rate-limits are stopped, the DoS cases carry a measured memory
// and a served fresh connection.
func TestNewCasesPassAgainstSpdylab(t *testing.T) {
	stoppedBy := map[string]string{ // the reaction spdylab's limits give
		"settings-flood": "stopped", "empty-frame-flood": "stopped", "rapid-reset": "stopped", "slow-reader": "stopped",
		"header-inflate": "stopped", "header-bytes-bounded": "stopped", "ping-flood": "kept up",
	}
	for _, v := range spdy.VersionNames() {
		t.Run(v, func(t *testing.T) {
			rs := runOnly(t, server.Config{}, v, 0, newCases...)
			for _, id := range newCases {
				r := rs[id]
				_, _, _, skip := Cases()[caseIndex(id)].For(v)
				if skip != "" {
					if !r.Skipped || r.Skip == "" {
						t.Errorf("%s under %s: not skipped: %+v", id, v, r)
					}
					continue
				}
				if !r.Pass {
					t.Errorf("%s under %s failed: %s; reaction %q; received %s; fresh %q", id, v, r.Error, r.Reaction, r.Received, r.Fresh)
				}
				want, dos := stoppedBy[id]
				if !dos {
					if r.Class != "" || r.Memory != nil {
						t.Errorf("%s is not a DoS case but has class %q / memory %+v", id, r.Class, r.Memory)
					}
					continue
				}
				if !strings.HasPrefix(r.Reaction, want) {
					t.Errorf("%s under %s: reaction %q, want %s", id, v, r.Reaction, want)
				}
				if r.Memory == nil || !r.Memory.Measured || r.Memory.Error != "" || r.Memory.PeakRSSKiB < r.Memory.RSSBeforeKiB || r.Memory.RSSBeforeKiB == 0 {
					t.Errorf("%s under %s: memory not measured: %+v", id, v, r.Memory)
				}
				if !strings.HasPrefix(r.Fresh, "served") {
					t.Errorf("%s under %s: fresh connection %q", id, v, r.Fresh)
				}
			}
		})
	}
}

func caseIndex(id string) int {
	for i, c := range Cases() {
		if c.ID == id {
			return i
		}
	}
	panic("no case " + id)
}

// With spdylab's limits switched off, the cases whose rule demands a limit
// fail, and those that accept a server keeping up pass by keeping up: the
// verdicts follow the server, not the case.
func TestFloodVerdictsFollowTheServer(t *testing.T) {
	open := server.Config{SPDY: spdy.Config{MaxResetsPerSecond: -1, MaxRefusedStreamsPerSecond: -1, MaxSettingsPerSecond: -1,
		MaxEmptyFramesPerSecond: -1, MaxHeaderBlockSize: 80 << 20, MaxHeaderBytesPerStream: 80 << 20}}
	rs := runOnly(t, open, spdy.ProtoSPDY31, 0, "rapid-reset", "settings-flood", "empty-frame-flood", "header-inflate")
	for id, want := range map[string]string{"rapid-reset": "kept up", "header-inflate": "accepted"} {
		if r := rs[id]; r.Pass || !strings.HasPrefix(r.Reaction, want) || !strings.Contains(r.Error, "reaction") {
			t.Errorf("%s against an unlimited server: pass %v, reaction %q, error %q; want a failed reaction %q", id, r.Pass, r.Reaction, r.Error, want)
		}
	}
	for _, id := range []string{"settings-flood", "empty-frame-flood"} {
		if r := rs[id]; !r.Pass || !strings.HasPrefix(r.Reaction, "kept up") {
			t.Errorf("%s against an unlimited server: pass %v, reaction %q (%s); want a pass by keeping up", id, r.Pass, r.Reaction, r.Error)
		}
	}
}

// A server that queues every PING echo for a reader that never reads fails
// the slow reader twice: on its reaction and on its memory, whose growth
// (tens of MiB of queued echoes) is over a limit of 1 MiB. 8 MiB of PINGs
// are twice what loopback's kernel buffers can hold.
func TestSlowReaderFailsAnUnboundedQueue(t *testing.T) {
	open := server.Config{SPDY: spdy.Config{MaxQueuedControlFrames: 1 << 30}}
	r := runWith(t, open, Options{Version: spdy.ProtoSPDY31, MemoryLimit: 1 << 20, SlowReaderBytes: 8 << 20,
		Only: []string{"slow-reader"}})["slow-reader"]
	if r.Pass || !strings.HasPrefix(r.Reaction, "kept reading") {
		t.Fatalf("slow reader against an unbounded queue: pass %v, reaction %q, error %q", r.Pass, r.Reaction, r.Error)
	}
	if !strings.Contains(r.Error, "memory") || r.Memory.Within() {
		t.Errorf("memory %+v within 1 MiB; error %q", r.Memory, r.Error)
	}
	t.Logf("reaction %q; memory %+v", r.Reaction, *r.Memory)
}

// Without the server's process id the memory is reported as not measured,
// with the reason, and does not decide the verdict; an unknown case id is
// refused by name.
func TestMemoryNotMeasuredWithoutPID(t *testing.T) {
	url := startServe(t, server.Config{Plain: spdy.ProtoSPDY31})
	rs, err := Run(context.Background(), Options{URL: url, Path: "/_spdylab/info", Only: []string{"ping-flood"}, Flood: 100})
	if err != nil {
		t.Fatal(err)
	}
	m := rs[0].Memory
	if !rs[0].Pass || m == nil || m.Measured || !strings.Contains(m.NotMeasured, "--server-pid") || m.GrowthKiB != 0 {
		t.Errorf("ping-flood without a pid: pass %v, memory %+v", rs[0].Pass, m)
	}
	if _, err := Run(context.Background(), Options{URL: url, Only: []string{"no-such-case"}}); err == nil || !strings.Contains(err.Error(), "no-such-case") {
		t.Errorf("unknown case: %v", err)
	}
	if _, _, err := procMemory(1 << 30); err == nil {
		t.Error("procMemory of a process that does not exist succeeded")
	}
}
