package studyfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
)

// corpusDir writes a folder of two pages: a recording and an imported page.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	har, err := os.ReadFile("../../page/testdata/synthetic.har")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recorded.har"), har, 0o644); err != nil {
		t.Fatal(err)
	}
	gen, err := page.Generate("pageA", 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteSite(filepath.Join(dir, "imported")); err != nil {
		t.Fatal(err)
	}
	return dir
}

const corpusStudy = `name = "corpus"
runs = 1
[factors]
protocol = ["https", "spdy/3.1"]
rtt = "20ms"

[[matrix]]
page = "pageB"

[[matrix]]
pages = "dir:$PAGES"
loss = ["0%", "1%"]
`

func TestCorpusIsOneValuePerPage(t *testing.T) {
	dir := corpusDir(t)
	src := "name = \"c\"\nruns = 1\n[factors]\nprotocol = [\"https\", \"h2\"]\npage = [\"pageA\", \"dir:" + filepath.Base(dir) + "\"]\n"
	s, err := ParsePages([]byte(src), filepath.Dir(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, c := range s.Conditions {
		if c.Values["protocol"] == "https" {
			pages = append(pages, c.Values["page"])
		}
	}
	want := []string{"pageA", filepath.Join(dir, "imported", page.ManifestFile), page.HARPrefix + filepath.Join(dir, "recorded.har")}
	if strings.Join(pages, " ") != strings.Join(want, " ") {
		t.Errorf("pages = %q, want %q", pages, want)
	}
	if s.Dir != filepath.Dir(dir) {
		t.Errorf("Dir = %q, want %q (the store re-reads the file from there)", s.Dir, filepath.Dir(dir))
	}
	// The same page twice (once by name, once through the folder) is a
	// duplicate value like any other.
	dup := "name = \"c\"\nruns = 1\n[factors]\nprotocol = \"https\"\npage = [\"" + want[1] + "\", \"dir:" + dir + "\"]\n"
	if _, err := ParsePages([]byte(dup), "", ""); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate page through a folder: %v", err)
	}
	both := "name = \"c\"\nruns = 1\n[factors]\nprotocol = \"https\"\npage = \"pageA\"\npages = \"dir:" + dir + "\"\n"
	if _, err := ParsePages([]byte(both), "", ""); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("page and pages together: %v", err)
	}
}

func TestCorpusPlaceholderNeedsPages(t *testing.T) {
	dir := corpusDir(t)
	// Without --pages the corpus blocks are left out, the rest runs.
	s, err := ParsePages([]byte(corpusStudy), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 2 || s.PagesOmitted != 1 || s.Pages != "" {
		t.Fatalf("without --pages: %d conditions, %d blocks omitted", len(s.Conditions), s.PagesOmitted)
	}
	with, err := ParsePages([]byte(corpusStudy), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Conditions) != 2+2*2*2 || with.PagesOmitted != 0 || with.Pages != dir {
		t.Fatalf("with --pages: %d conditions, %d omitted, pages %q", len(with.Conditions), with.PagesOmitted, with.Pages)
	}

	// A study that is nothing but real pages cannot run without them.
	only := strings.Replace(corpusStudy, "[[matrix]]\npage = \"pageB\"\n", "", 1)
	_, err = ParsePages([]byte(only), "", "")
	if !errors.Is(err, page.ErrNoCorpus) || !strings.Contains(err.Error(), "spdylab record") || !strings.Contains(err.Error(), "page import") {
		t.Errorf("real pages only, no --pages: %v", err)
	}
	if _, err := ParsePages([]byte(only), "", filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing --pages folder: %v", err)
	}
	// --pages for a study without a corpus is a mistake, not ignored.
	if _, err := LoadPages("quick", dir); err == nil || !strings.Contains(err.Error(), "takes no --pages") {
		t.Errorf("quick --pages: %v", err)
	}
}

func TestStudy4GoogleRealPageMatrix(t *testing.T) {
	dir := corpusDir(t)
	plain, err := Builtin("study4-google")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadPages("study4-google", dir)
	if err != nil {
		t.Fatal(err)
	}
	if plain.PagesOmitted != 3 || s.PagesOmitted != 0 {
		t.Errorf("blocks omitted: %d without --pages, %d with", plain.PagesOmitted, s.PagesOmitted)
	}
	// 2 pages x 3 protocols x (5 rates + 6 RTTs + 2 losses) on top of the
	// synthetic part, which stays as it was.
	if got, want := len(s.Conditions), len(plain.Conditions)+2*3*(5+6+2); got != want {
		t.Errorf("%d conditions with --pages, want %d", got, want)
	}
	type point struct{ rate, rtt, loss string }
	real := map[point]map[string]int{}
	for _, c := range s.Conditions {
		if !strings.HasPrefix(c.Values["page"], dir) && !strings.HasPrefix(c.Values["page"], page.HARPrefix+dir) {
			continue
		}
		if c.Shards != 0 {
			t.Errorf("%s: shards %d, want 0 (the page's own hosts)", c.Page, c.Shards)
		}
		p := point{c.Values["rate"], c.Values["rtt"], c.Values["loss"]}
		if real[p] == nil {
			real[p] = map[string]int{}
		}
		real[p][c.Values["protocol"]]++
	}
	for _, p := range []point{{"1mbit/256kbit", "60ms", "0%"}, {"5mbit/1mbit", "200ms", "0%"}, {"5mbit/1mbit", "60ms", "1%"}, {"5mbit/1mbit", "60ms", "2%"}} {
		for _, proto := range []string{"https", "spdy/3.1", "h2"} {
			if real[p][proto] != 2 {
				t.Errorf("%+v %s: %d pages, want 2", p, proto, real[p][proto])
			}
		}
	}
}

func TestStudy3SCTPRealPageMatrix(t *testing.T) {
	dir := corpusDir(t)
	plain, err := Builtin("study3-sctp")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadPages("study3-sctp", dir)
	if err != nil {
		t.Fatal(err)
	}
	// 2 pages x (TCP, SCTP) x (1%, 2%) on top of the synthetic part.
	if plain.PagesOmitted != 1 || len(s.Conditions) != len(plain.Conditions)+2*2*2 {
		t.Errorf("%d blocks omitted without --pages; %d conditions with, want %d", plain.PagesOmitted, len(s.Conditions), len(plain.Conditions)+8)
	}
}

func TestFidelityRealPageMatrix(t *testing.T) {
	dir := corpusDir(t)
	plain, err := Builtin("fidelity")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadPages("fidelity", dir)
	if err != nil {
		t.Fatal(err)
	}
	if plain.PagesOmitted != 1 || len(plain.Conditions) != 342 {
		t.Fatalf("without --pages: %d blocks omitted, %d conditions, want 1 and 342 (288 calibration, 54 validation)", plain.PagesOmitted, len(plain.Conditions))
	}
	// Each page at 2 RTTs x 3 protocols, loaded by Chromium and by the
	// loader at both profiles; every real-page cell has its Chromium
	// reference, over the page's own hosts, without loss.
	clients := map[string]int{}
	for _, c := range s.Conditions[len(plain.Conditions):] {
		if !page.HasOwnHosts(c.Page) {
			t.Fatalf("condition %s after the study pages is not a real page", c.Page)
		}
		if c.Role != spec.RoleValidation {
			t.Errorf("%s: role %q, want the recordings in the validation set", c.Page, c.Role)
		}
		if c.Shards != 0 || c.Values["loss"] != "0%" {
			t.Errorf("%s: shards %d, loss %s; want the page's own hosts, 0%%", c.Page, c.Shards, c.Values["loss"])
		}
		clients[c.ClientName()+"/"+c.BrowserProfileName()]++
	}
	for _, k := range []string{"chromium/chrome16", "loader/chrome16", "loader/chromium-modern"} {
		if clients[k] != 2*3*2 {
			t.Errorf("%s: %d real-page conditions, want 12 (%v)", k, clients[k], clients)
		}
	}
}
