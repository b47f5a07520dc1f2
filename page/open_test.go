package page

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestIsManifestPath(t *testing.T) {
	for spec, want := range map[string]bool{
		"pageA":                   false,
		"generic:n=5":             false,
		"generic:n=5,x=a/b.json":  false, // a source prefix wins over the path rule
		"har:rec/x.har":           false,
		"m.json":                  true,
		"dir/manifest":            true,
		"/abs/site/manifest.json": true,
	} {
		if got := IsManifestPath(spec); got != want {
			t.Errorf("IsManifestPath(%q) = %v, want %v", spec, got, want)
		}
	}
}

func TestOpenEverySource(t *testing.T) {
	gen, err := Open("pageA", 2, 1, ShardRoundRobin)
	if err != nil || len(gen.Hosts) != 2 {
		t.Fatalf("generator: %v, %v", gen, err)
	}
	if _, err := Open("generic:n=5", 1, 1, ""); err != nil {
		t.Fatalf("generic: %v", err)
	}
	dir := t.TempDir()
	if err := gen.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, ManifestFile)
	loaded, err := Open(file, 7, 7, "ignored")
	if err != nil || len(loaded.Resources) != len(gen.Resources) {
		t.Fatalf("manifest: %v", err)
	}
	if _, err := Open("har:/nonexistent/x.har", 1, 1, ""); err == nil || !strings.Contains(err.Error(), "x.har") {
		t.Fatalf("missing recording: %v", err)
	}
	if _, err := Open("har:", 1, 1, ""); err == nil || !strings.Contains(err.Error(), "names no file") {
		t.Fatalf("empty har spec: %v", err)
	}
	rec, err := Open("har:testdata/synthetic.har", 1, 1, "")
	if err != nil || len(rec.Resources) == 0 || len(rec.Hosts) < 2 {
		t.Fatalf("har:testdata/synthetic.har: %v", err)
	}
	canon, err := CheckSpec("har:testdata/synthetic.har", "")
	if err != nil || !strings.HasPrefix(canon, HARPrefix+"/") {
		t.Fatalf("CheckSpec har: %q, %v", canon, err)
	}
	if _, err := Open("nosuchpage", 1, 1, ""); err == nil {
		t.Fatal("unknown name accepted")
	}
}

func TestCheckSpec(t *testing.T) {
	dir := t.TempDir()
	m, _ := Generate("pageA", 1, 1, "")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	got, err := CheckSpec(filepath.Join(filepath.Base(dir), ManifestFile), filepath.Dir(dir))
	if err != nil || got != filepath.Join(dir, ManifestFile) {
		t.Fatalf("relative manifest: %q, %v", got, err)
	}
	if _, err := CheckSpec("missing.json", dir); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("missing manifest: %v", err)
	}
	if _, err := CheckSpec("generic:n=oops", ""); err == nil {
		t.Fatal("bad generic spec accepted")
	}
	if _, err := CheckSpec("pageZ", ""); err == nil || !strings.Contains(err.Error(), "pageA") {
		t.Fatalf("unknown page: %v", err)
	}
	if got, err := CheckSpec("pageA", ""); err != nil || got != "pageA" {
		t.Fatalf("name: %q, %v", got, err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	m, _ := Generate("youtube", 1, 1, "")
	m.Resources[0].Headers = map[string]string{"X-Orig": "1"}
	c := m.Clone()
	c.AddPreloadLinks()
	c.Resources[0].Headers["X-Orig"] = "changed"
	c.Resources[1].Path = "/changed"
	c.Hosts[0] = "changed"
	if m.Resources[0].Headers["X-Orig"] != "1" || len(m.Resources[0].Headers) != 1 {
		t.Fatalf("header map shared: %v", m.Resources[0].Headers)
	}
	if m.Resources[1].Path == "/changed" || m.Hosts[0] == "changed" {
		t.Fatal("resources or hosts shared")
	}
	if (*Manifest)(nil).Clone() != nil {
		t.Fatal("nil clone")
	}
}

// A page folder (what `page gen` and `page import` write) stands for its
// manifest, given as a path or as a bare name; a folder without one, and
// an unknown name, say what a page may be.
func TestPageFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	m, _ := Generate("pageA", 1, 1, "")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ManifestFile)
	for _, spec := range []string{dir, dir + "/", "site"} {
		got, err := CheckSpec(spec, parent)
		if err != nil || got != want {
			t.Errorf("CheckSpec(%q) = %q, %v; want %q", spec, got, err, want)
		}
	}
	if got, err := Open(dir, 1, 1, ""); err != nil || len(got.Resources) != len(m.Resources) {
		t.Errorf("Open(folder): %v", err)
	}
	empty := t.TempDir()
	for _, open := range []func() error{
		func() error { _, err := CheckSpec(empty, ""); return err },
		func() error { _, err := Open(empty, 1, 1, ""); return err },
	} {
		if err := open(); err == nil || !strings.Contains(err.Error(), "holds no "+ManifestFile) || !strings.Contains(err.Error(), "page import") {
			t.Errorf("folder without a manifest: %v", err)
		}
	}
	_, err := CheckSpec("pageZ", "")
	_, openErr := Open("pageZ", 1, 1, "")
	for _, form := range []string{"pageA", "generic:", "har:", "DIR/" + ManifestFile, "dir:"} {
		if err == nil || !strings.Contains(err.Error(), form) {
			t.Errorf("unknown page: %v does not mention %q", err, form)
		}
		if openErr == nil || !strings.Contains(openErr.Error(), form) || !strings.Contains(openErr.Error(), `unknown page "pageZ"`) {
			t.Errorf("Open(unknown page): %v does not mention %q and the name", openErr, form)
		}
	}
}
