package main

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/store"
)

const tinyEmulated = `
name = "tiny-pcap"
description = "one page, two protocols, one load each, over an emulated link"
runs = 1
seed = 1
[factors]
page = "twitter"
protocol = ["https", "spdy/3.1"]
rtt = "10ms"
rate = "20mbit/5mbit"
`

// `spdylab run --pcap DIR` leaves one capture per stored load, named by
// the load's key in the store (condition hash, protocol, run + 1).
func TestRunPcapNamesEachLoadByItsStoreKey(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	file, out, pcaps := filepath.Join(dir, "tiny.toml"), filepath.Join(dir, "out"), filepath.Join(dir, "pcap")
	os.WriteFile(file, []byte(tinyEmulated), 0o644)
	var code int
	msg := captureStderr(t, func(stderr io.Writer) {
		code = runCmd([]string{file, "--out", out, "-q", "--no-report", "--pcap", pcaps}, io.Discard, stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Probes(false)
	st.Close()
	// A load during which the emulator stalled is stored as a failed
	// attempt and loaded again under the same key (and capture name).
	var probes []store.Probe
	for _, p := range stored {
		switch {
		case !p.Result.Failed:
			probes = append(probes, p)
		case p.Result.Error != (&study.StalledError{}).Error():
			t.Errorf("load failed: %s", p.Result.Error)
		}
	}
	if err != nil || len(probes) != 2 {
		t.Fatalf("%d loads stored (%d attempts), %v", len(probes), len(stored), err)
	}
	var want []string
	for _, p := range probes {
		want = append(want, harness.LoadFileName(p.CondHash, p.Result.Condition.Proto, p.Run, ".pcap"))
	}
	ents, _ := os.ReadDir(pcaps)
	var got []string
	for _, e := range ents {
		if fi, err := e.Info(); err != nil || fi.Size() <= 24 {
			t.Errorf("%s: empty capture (%v)", e.Name(), err)
		}
		got = append(got, e.Name())
	}
	sort.Strings(want)
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("captures %v, want %v", got, want)
	}
}
