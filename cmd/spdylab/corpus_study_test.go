package main

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/pagedata"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// TestRunNeedsPagesNamesHowToGetThem: a study over real pages without
// --pages fails before it touches the network, and says how to get pages.
func TestRunNeedsPagesNamesHowToGetThem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "real.toml")
	src := "name = \"real\"\nruns = 1\n[factors]\nprotocol = \"https\"\npages = \"dir:$PAGES\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var code int
	msg := captureStderr(t, func(stderr io.Writer) {
		code = runCmd([]string{file, "--out", filepath.Join(dir, "out"), "-q"}, io.Discard, stderr)
	})
	if code == 0 || !strings.Contains(msg, "--pages DIR") || !strings.Contains(msg, "spdylab record") || !strings.Contains(msg, "spdylab page import") {
		t.Errorf("exit %d, message %q: want a failure naming --pages, spdylab record and spdylab page import", code, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the failed run wrote its output directory")
	}
}

// smallestSharedRecordings links the n smallest shared recordings into a
// folder of their own: a corpus of a few pages for CI.
func smallestSharedRecordings(t *testing.T, n int) string {
	t.Helper()
	files, dir := pagedata.HARFiles()
	if len(files) < n {
		t.Skipf("needs %d recordings in %s (the shared pages; absent on this machine)", n, dir)
	}
	size := func(f string) int64 {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	sort.Slice(files, func(i, j int) bool { return size(files[i]) < size(files[j]) })
	corpus := t.TempDir()
	for _, f := range files[:n] {
		if err := os.Symlink(f, filepath.Join(corpus, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	return corpus
}

// realPageShard picks the slice i/N of s (about four bench groups each)
// holding the most groups of real pages, so CI loads some of them.
func realPageShard(t *testing.T, s *spec.Study, corpus string) (shard string, real int) {
	t.Helper()
	n := max(1, len(spec.Groups(s))/4)
	for i := 0; i < n; i++ {
		sh := spec.Shard{I: i, N: n}
		k := 0
		for _, g := range spec.ShardGroups(s, sh) {
			if strings.Contains(g.Conds[0].Page, corpus) {
				k++
			}
		}
		if k > real {
			shard, real = sh.String(), k
		}
	}
	if real == 0 {
		t.Fatalf("no slice of %s holds a page of %s", s.Name, corpus)
	}
	return shard, real
}

// TestStudy4GoogleOverSharedPages runs a slice of study4-google --pages
// over the two smallest shared recordings, one load per condition, through
// the real pipeline (namespaces, emulated link, servers for every recorded
// host, the store and the report).
func TestStudy4GoogleOverSharedPages(t *testing.T) {
	testutil.RequireRoot(t)
	if testing.Short() {
		t.Skip("loads recorded pages over emulated links")
	}
	corpus := smallestSharedRecordings(t, 2)
	s, err := studyfile.LoadPages("study4-google", corpus)
	if err != nil {
		t.Fatal(err)
	}
	shard, real := realPageShard(t, s, corpus)
	out := filepath.Join(t.TempDir(), "out")
	var code int
	msg := captureStderr(t, func(stderr io.Writer) {
		code = runCmd([]string{"study4-google", "--pages", corpus, "--runs", "1", "--shard", shard, "-j", "4", "-q", "--out", out}, io.Discard, stderr)
	})
	if code != 0 {
		t.Fatalf("spdylab run study4-google --pages %s --shard %s: exit %d\n%s", corpus, shard, code, msg)
	}
	st, err := store.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	okReal := map[string]bool{}
	for _, p := range probes {
		if !p.Result.Failed && strings.Contains(p.Result.Condition.Page, corpus) {
			okReal[p.CondHash] = true
		}
	}
	// Every real-page condition of the slice (3 protocols per group) loaded.
	if len(okReal) != 3*real {
		logFailedProbes(t, out)
		t.Errorf("%d real-page conditions loaded, want %d", len(okReal), 3*real)
	}
	t.Logf("slice %s: %d real-page conditions loaded", shard, len(okReal))
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	for _, pg := range s.Conditions {
		if strings.Contains(pg.Page, corpus) && !strings.HasPrefix(pg.Page, page.HARPrefix) {
			t.Errorf("corpus page %q is not a recording spec", pg.Page)
		}
	}
}

// TestStudyOverACorpusOfImportedPages runs a study whose page factor is a
// folder of pages written to disk (what `spdylab page import -o DIR/NAME`
// and `page gen` write) through the real pipeline, and finds the per-page
// views in its report.
func TestStudyOverACorpusOfImportedPages(t *testing.T) {
	testutil.RequireRoot(t)
	if testing.Short() {
		t.Skip("loads pages over an emulated link")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	// pageB over two hosts: a page on disk brings its own hosts.
	for name, hosts := range map[string]int{"pageA": 1, "pageB": 2} {
		m, err := page.Generate(name, hosts, 1, page.ShardRoundRobin)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WriteSite(filepath.Join(corpus, name)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "corpus.toml")
	src := "name = \"corpus\"\nruns = 1\n[factors]\npages = \"dir:corpus\"\nprotocol = [\"https\", \"spdy/3.1\"]\nrate = \"10mbit/1mbit\"\nrtt = \"20ms\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var code int
	msg := captureStderr(t, func(stderr io.Writer) {
		code = runCmd([]string{file, "--out", out, "-j", "2", "-q"}, io.Discard, stderr)
	})
	if code != 0 {
		logFailedProbes(t, out)
		t.Fatalf("spdylab run %s: exit %d\n%s", file, code, msg)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pages faster, within ±5%, slower", "Gain per page: spdy/3.1", "CDF of gains over pages"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
