package page

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeCorpus makes a folder with one page of every kind a corpus holds,
// plus files a corpus ignores.
func writeCorpus(t *testing.T) (dir string, want []string) {
	t.Helper()
	dir = t.TempDir()
	har, err := os.ReadFile("testdata/synthetic.har")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := Generate("pageA", 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteSite(filepath.Join(dir, "b-imported")); err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "b-imported", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"c-recorded.har":  har,
		"a-manifest.json": manifest,
		"notes.txt":       []byte("not a page"),
		".c.har.swp":      har,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A sub-folder without a manifest is not a page.
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	want = []string{
		filepath.Join(dir, "a-manifest.json"),
		filepath.Join(dir, "b-imported", ManifestFile),
		HARPrefix + filepath.Join(dir, "c-recorded.har"),
	}
	return dir, want
}

func TestExpandCorpus(t *testing.T) {
	dir, want := writeCorpus(t)
	got, err := ExpandSpec(DirPrefix+dir, "", "")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ExpandSpec(dir:%s) = %q, %v; want %q", dir, got, err, want)
	}
	// Relative to the study file's folder.
	got, err = ExpandSpec(DirPrefix+filepath.Base(dir), filepath.Dir(dir), "")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("relative dir: %q, %v", got, err)
	}
	// The placeholder takes the user's folder.
	got, err = ExpandSpec(CorpusPlaceholder, "/elsewhere", dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("placeholder: %q, %v", got, err)
	}
	// Every expanded spec is a page CheckSpec accepts unchanged.
	for _, s := range got {
		canon, err := CheckSpec(s, "")
		if err != nil || canon != s {
			t.Errorf("CheckSpec(%q) = %q, %v", s, canon, err)
		}
	}
	// Other specs stand for themselves.
	if got, err := ExpandSpec("pageA", dir, dir); err != nil || !reflect.DeepEqual(got, []string{"pageA"}) {
		t.Errorf("ExpandSpec(pageA) = %q, %v", got, err)
	}
}

func TestExpandCorpusErrors(t *testing.T) {
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "readme.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ spec, corpus, want string }{
		{DirPrefix + empty, "", "holds no page"},
		{DirPrefix + filepath.Join(empty, "missing"), "", "no such file or directory"},
		{DirPrefix + filepath.Join(empty, "readme.txt"), "", "not a directory"},
		{DirPrefix, "", "names no folder"},
		{CorpusPlaceholder, "", "spdylab record"},
		{CorpusPlaceholder, empty, "holds no page"},
	} {
		_, err := ExpandSpec(c.spec, "", c.corpus)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ExpandSpec(%q, corpus %q) = %v, want an error containing %q", c.spec, c.corpus, err, c.want)
		}
	}
	if _, err := ExpandSpec(CorpusPlaceholder, "", ""); !errors.Is(err, ErrNoCorpus) {
		t.Errorf("placeholder without a corpus: %v, want ErrNoCorpus", err)
	}
	if !strings.Contains(ErrNoCorpus.Error(), "page import") {
		t.Errorf("ErrNoCorpus does not name `spdylab page import`: %v", ErrNoCorpus)
	}
	// A corpus is not one page.
	if _, err := CheckSpec(DirPrefix+empty, ""); err == nil || !strings.Contains(err.Error(), "folder of pages") {
		t.Errorf("CheckSpec(dir:) = %v", err)
	}
	if _, err := Open(DirPrefix+empty, 1, 1, ""); err == nil || !strings.Contains(err.Error(), "folder of pages") {
		t.Errorf("Open(dir:) = %v", err)
	}
	if IsManifestPath(DirPrefix + "/a/b") {
		t.Error("a dir: spec taken for a manifest path")
	}
}

func TestDisplayName(t *testing.T) {
	for spec, want := range map[string]string{
		"pageA":                           "pageA",
		"generic:n=5":                     "generic:n=5",
		"har:/p/har/cnn-2024.har":         "cnn-2024",
		"har:/p/two.har#page_2":           "two#page_2",
		"/p/imported/cnn/" + ManifestFile: "cnn",
		"/p/site.json":                    "site",
	} {
		if got := DisplayName(spec); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", spec, got, want)
		}
	}
}

// "har:$PAGES/NAME" is one page of the user's folder: without a folder it
// is ErrNoCorpus (the study says to give --pages), with one it names the
// page by its absolute path.
func TestExpandCorpusPage(t *testing.T) {
	if _, err := ExpandSpec("har:$PAGES/a.har", "", ""); !errors.Is(err, ErrNoCorpus) {
		t.Fatalf("without a folder: %v, want ErrNoCorpus", err)
	}
	dir := t.TempDir()
	got, err := ExpandSpec("har:$PAGES/a.har", "/elsewhere", dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "har:" + filepath.Join(dir, "a.har"); len(got) != 1 || got[0] != want {
		t.Fatalf("got %q, want [%q]", got, want)
	}
	if IsCorpusPage("har:/x/a.har") || !IsCorpusPage("har:$PAGES/a.har") {
		t.Fatal("IsCorpusPage")
	}
}
