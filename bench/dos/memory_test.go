package main

import (
	"bufio"
	"net"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// memoryGoal is the bound on the server's RSS under every attack
// class, at its default limits.
const memoryGoal = 64 << 20

// The costliest class for memory: one client fills MAX_CONCURRENT_STREAMS
// of more connections than it may hold with uploads that never send a
// body. A child `spdylab serve` must keep its peak RSS (VmHWM, which the
// kernel keeps, so no sample can miss it) under memoryGoal. This is a
// resource bound, not a timing: the attack is over once the server has
// answered every stream it will not run, however long that takes.
func TestNeverFinishedStreamsStayUnderMemoryGoal(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "spdylab")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/spdylab").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/spdylab: %v\n%s", err, out)
	}
	p, err := startSpdylab(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()

	const conns = server.DefaultMaxConnsPerClient + 16 // the surplus is closed at accept
	want := int64(server.DefaultMaxConnsPerClient*spdy.DefaultMaxConcurrentStreams - server.DefaultMaxStreamsPerClient)
	var refused atomic.Int64
	for range conns {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write(unfinishedStreams()); err != nil {
			continue // closed at accept: over the per-client cap
		}
		go countRefused(c, &refused)
	}
	for deadline := time.Now().Add(90 * time.Second); refused.Load() < want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) || !p.alive() {
			t.Fatalf("the server refused %d streams, want %d (every stream past the per-client cap); stderr:\n%s", refused.Load(), want, p.stderr)
		}
	}
	time.Sleep(time.Second) // the admitted handlers reach their body read
	peak, err := statusBytes(p.pid(), "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %.1f MiB with %d streams held open and %d refused", float64(peak)/(1<<20), server.DefaultMaxStreamsPerClient, refused.Load())
	if peak > memoryGoal {
		t.Fatalf("peak RSS %.1f MiB, over the goal of %d MiB", float64(peak)/(1<<20), memoryGoal>>20)
	}
}

// countRefused counts the RST_STREAM REFUSED_STREAMs the server sends on c.
func countRefused(c net.Conn, n *atomic.Int64) {
	fr := spdy.NewFramer(nil, bufio.NewReader(c), 0)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if r, ok := f.(*spdy.RstStreamFrame); ok && r.Status == spdy.RstRefusedStream {
			n.Add(1)
		}
	}
}
