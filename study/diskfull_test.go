package study

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/store"
)

// bulkyBench is a fake bench whose loads carry 96 KiB of incompressible
// HAR, so a small disk fills after a few stored loads.
type bulkyBench struct{ *fakeBench }

func (b bulkyBench) Load(ctx context.Context, proto string, run int) probe.Result {
	r := b.fakeBench.Load(ctx, proto, run)
	junk := make([]byte, 96<<10)
	rand.Read(junk)
	r.HAR = []byte(`{"log":{"comment":"` + string(hexBytes(junk)) + `"}}`)
	return r
}

func hexBytes(b []byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return out
}

// TestFullDiskStopsTheRunAndResumes: an output disk that fills up mid-run
// stops the run with an error saying so, keeps every load stored before
// it, and the run resumes to completion once there is space again.
func TestFullDiskStopsTheRunAndResumes(t *testing.T) {
	testutil.RequireRootTo(t, "mount a small tmpfs")
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("sl-diskfull", disk, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	s := mustParse(t, tinyStudy)
	log := &loadLog{}
	fake := fakeOpener(log, 0, nil)
	open := func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (Bench, error) {
		b, err := fake(ctx, c, pg, seed, dir)
		if err != nil {
			return nil, err
		}
		return bulkyBench{b.(*fakeBench)}, nil
	}
	out := filepath.Join(disk, "out")
	cfg := RunConfig{Study: s, Out: out, Jobs: 1, Open: open, Quiet: true}
	_, err := RunInto(context.Background(), cfg)
	if err == nil {
		t.Fatal("a run that cannot fit on its disk succeeded")
	}
	t.Logf("run on a full disk: %v", err)
	if !strings.Contains(err.Error(), "output disk is full") || !strings.Contains(err.Error(), "resume") {
		t.Errorf("error %q does not say the disk is full and how to go on", err)
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatalf("the store does not open after the disk filled: %v", err)
	}
	kept, err := st.Probes(true)
	st.Close()
	if err != nil || len(kept) == 0 || len(kept) >= 24 {
		t.Fatalf("after the disk filled: %d loads readable (err %v), want some but not all 24", len(kept), err)
	}
	for _, p := range kept {
		if len(p.Result.HAR) < 96<<10 {
			t.Errorf("load %d kept a truncated HAR (%d bytes)", p.ID, len(p.Result.HAR))
		}
	}
	if err := syscall.Mount("sl-diskfull", disk, "tmpfs", syscall.MS_REMOUNT, "size=16m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	cfg.Resume = true
	sum, err := RunInto(context.Background(), cfg)
	if err != nil {
		t.Fatalf("resume after space was freed: %v", err)
	}
	if sum.Planned != 24-len(kept) {
		t.Errorf("resume planned %d loads, want the %d missing", sum.Planned, 24-len(kept))
	}
	st, err = store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if all, _ := st.Probes(false); len(all) != 24 {
		t.Errorf("%d loads stored after the resume, want 24", len(all))
	}
}
