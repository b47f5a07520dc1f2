package page

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

const syntheticHAR = "testdata/synthetic.har"

func importSynthetic(t *testing.T) (*Manifest, *ImportReport) {
	t.Helper()
	m, rep, err := ImportHARFile(syntheticHAR, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, rep
}

// byURL finds an imported resource by its replay URL.
func byURL(t *testing.T, m *Manifest, u string) *Resource {
	t.Helper()
	for i := range m.Resources {
		if m.URL(i) == u {
			return &m.Resources[i]
		}
	}
	t.Fatalf("no resource %s in the import", u)
	return nil
}

func TestImportSyntheticRules(t *testing.T) {
	m, rep := importSynthetic(t)
	if rep.Recorded != 20 || rep.Replayable != 13 || rep.Repeats != 1 {
		t.Errorf("recorded %d, replayable %d, repeats %d; want 20, 13 (the repeated document replayed) and 1", rep.Recorded, rep.Replayable, rep.Repeats)
	}
	if r := byURL(t, m, "https://www.example.test/?spdylab-repeat=1"); r.Replay != ReplayRepeat {
		t.Errorf("the repeated document is marked replay %q, want %q", r.Replay, ReplayRepeat)
	}
	want := map[string]int{SkipScheme: 1, SkipSocket: 2, SkipMethod: 1, SkipAborted: 1, SkipNoBody: 1, SkipBadHost: 1}
	for reason, n := range want {
		if rep.Skipped[reason] != n {
			t.Errorf("skipped for %q: %d, want %d", reason, rep.Skipped[reason], n)
		}
	}
	for _, reason := range sortedReasons(rep.Skipped) {
		found := false
		for _, n := range m.Notes {
			found = found || strings.Contains(n, reason)
		}
		if !found {
			t.Errorf("the manifest's notes do not state the rule %q", reason)
		}
	}
	if rep.Hosts != 7 || len(m.Hosts) != 7 {
		t.Errorf("hosts %v, want 7", m.Hosts)
	}
	root := m.Root()
	if root.Status != 301 || root.Host != "example.test" || root.Scheme != "http" {
		t.Errorf("root %+v: want the recorded http 301", root)
	}
	www := byURL(t, m, "https://www.example.test/")
	if www.Parent != 0 || www.Discovery.Kind != KindRedirect || www.Type != TypeHTML {
		t.Errorf("main document %+v: want the redirect target of the root", www)
	}
	if www.DecodedSize != 6000 || www.EncodedSize >= 2400 || www.ContentEncoding != "gzip" || www.Size != www.EncodedSize {
		t.Errorf("main document sizes: size %d encoded %d decoded %d encoding %q", www.Size, www.EncodedSize, www.DecodedSize, www.ContentEncoding)
	}
	if got := www.RequestHeaders["cookie"]; got != "a=1; b=2" {
		t.Errorf("cookie request header %q, want both recorded cookies", got)
	}
	if _, ok := www.RequestHeaders[":authority"]; ok {
		t.Errorf("pseudo header kept: %v", www.RequestHeaders)
	}
	for k := range www.Headers {
		switch strings.ToLower(k) {
		case "connection", "content-length", "content-type", "content-encoding", "location":
			t.Errorf("response header %s kept", k)
		}
	}
	if www.Headers["Cache-Control"] != "max-age=60" {
		t.Errorf("recorded response header Cache-Control lost: %v", www.Headers)
	}
	css := byURL(t, m, "https://www.example.test/style.css?v=1&x=2")
	if css.Parent != www.ID || css.Discovery.Kind != KindRef || css.Query != "v=1&x=2" {
		t.Errorf("stylesheet %+v: want a reference in the main document", css)
	}
	png := byURL(t, m, "https://cdn.example.test/img/a%20b.png")
	if png.Parent != css.ID || png.Discovery.Kind != KindRef {
		t.Errorf("image %+v: want a reference in the stylesheet", png)
	}
	app := byURL(t, m, "https://cdn.example.test/app.js")
	photo := byURL(t, m, "https://img.example.test/photo.jpg")
	// app.js: started 60 ms, ended 60+20+10 = 90 ms; photo requested at 150 ms.
	if photo.Parent != app.ID || photo.Discovery.Kind != KindOnload || photo.Discovery.Delay != 60*time.Millisecond {
		t.Errorf("photo %+v: want requested by app.js 60 ms after it ended", photo)
	}
	if j := byURL(t, m, "https://api.example.test/data.json?q=%28x%29"); j.Type != TypeOther || j.ContentType != "application/json" {
		t.Errorf("json %+v", j)
	}
	pixel := byURL(t, m, "https://ads.example.test/pixel.gif")
	track := byURL(t, m, "https://track.example.test/p.gif")
	if pixel.Status != 302 || track.Parent != pixel.ID || track.Discovery.Kind != KindRedirect || pixel.Parent != app.ID {
		t.Errorf("redirect chain: pixel %+v track %+v", pixel, track)
	}
	webp := byURL(t, m, "https://www.example.test/img/logo.webp")
	if webp.ContentType != "image/png" || webp.RecordedContentType != "image/webp" {
		t.Errorf("webp image synthesized as %q (recorded %q), want PNG keeping the recorded type", webp.ContentType, webp.RecordedContentType)
	}
	if late := byURL(t, m, "https://www.example.test/late.js"); late.EncodedSize != 0 || late.Size < len(jsPreamble) {
		t.Errorf("late.js without sizes: %+v", late)
	}
	if rep.Inferred != 3 { // font.woff2, late.js and the repeated document have no initiator
		t.Errorf("inferred %d parents, want 3", rep.Inferred)
	}
}

// TestImportSyntheticBodies writes the site and checks each body: its
// size, that the HTML references sit where the manifest says, and that
// the generated scripts parse (node --check).
func TestImportSyntheticBodies(t *testing.T) {
	m, _ := importSynthetic(t)
	dir := filepath.Join(t.TempDir(), "site")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Load(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatalf("the written manifest does not load back: %v", err)
	}
	if len(back.Resources) != len(m.Resources) || back.Source != m.Source || len(back.Notes) != len(m.Notes) {
		t.Errorf("manifest round trip lost data")
	}
	www := byURL(t, m, "https://www.example.test/")
	body, err := os.ReadFile(filepath.Join(dir, www.File))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		for _, a := range tok.Attr {
			if a.Key == "src" || a.Key == "href" || a.Key == "data" {
				srcs = append(srcs, a.Val)
			}
		}
	}
	want := "/style.css?v=1&x=2" // the tokenizer undoes &amp;
	if !contains(srcs, want) || !contains(srcs, "https://cdn.example.test/app.js") {
		t.Errorf("main document references %v; want %s and app.js", srcs, want)
	}
	node, err := exec.LookPath("node")
	for id, r := range m.Resources {
		b, rerr := os.ReadFile(filepath.Join(dir, r.File))
		if rerr != nil || len(b) != r.Size {
			t.Fatalf("resource %d: %d bytes (%v), want %d", id, len(b), rerr, r.Size)
		}
		if r.Type == TypeJS && err == nil {
			if out, cerr := exec.Command(node, "--check", filepath.Join(dir, r.File)).CombinedOutput(); cerr != nil {
				t.Errorf("resource %d (%s) is not valid JavaScript: %v\n%s", id, m.URL(id), cerr, out)
			}
		}
	}
	if err != nil {
		t.Logf("node not found: scripts were not syntax-checked")
	}
}

// harWith builds a HAR from entry JSON snippets.
func harWith(pages string, entries ...string) []byte {
	return []byte(`{"log":{"version":"1.2","pages":[` + pages + `],"entries":[` + strings.Join(entries, ",") + `]}}`)
}

func entryJSON(url, start, mime string, size int, extra string) string {
	e := `{"pageref":"p1","startedDateTime":"2026-01-01T00:00:` + start + `Z","time":10,` +
		`"request":{"method":"GET","url":"` + url + `","headers":[]},` +
		`"response":{"status":200,"headers":[],"content":{"size":` + itoa(size) + `,"mimeType":"` + mime + `"},"bodySize":` + itoa(size) + `},` +
		`"timings":{"send":0,"wait":5,"receive":5}`
	if extra != "" {
		e += "," + extra
	}
	return e + "}"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestImportBadInput(t *testing.T) {
	root := entryJSON("https://a.test/", "00.000", "text/html", 500, "")
	cases := []struct {
		name, page string
		har        []byte
		wantErr    string // "" = imports
	}{
		{"empty", "", nil, "empty file"},
		{"not json", "", []byte("<html>"), "malformed HAR"},
		{"truncated", "", harWith(`{"id":"p1"}`, root)[:100], "truncated"},
		{"no log", "", []byte(`{"foo":1}`), `no "log"`},
		{"no entries", "", harWith(`{"id":"p1"}`), "no entries"},
		{"wrong type", "", []byte(`{"log":{"entries":{"a":1}}}`), "malformed HAR"},
		{"several pages", "", harWith(`{"id":"p1"},{"id":"p2"}`, root), "choose one with --page"},
		{"unknown page", "p9", harWith(`{"id":"p1"},{"id":"p2"}`, root), `no such page`},
		{"chosen page", "p1", harWith(`{"id":"p1"},{"id":"p2"}`, root), ""},
		{"no pages", "", harWith(``, root), ""},
		{"not a document first", "", harWith(`{"id":"p1"}`, entryJSON("https://a.test/x.png", "00.000", "image/png", 500, "")), "not an HTML document"},
		{"nothing replayable", "", harWith(`{"id":"p1"}`, entryJSON("data:text/html,hi", "00.000", "text/html", 5, "")), "none of its 1 entries"},
		{"negative sizes", "", harWith(`{"id":"p1"}`, root, entryJSON("https://a.test/x.png", "00.100", "image/png", -7, `"_initiator":"https://a.test/"`)), ""},
		{"unknown initiator", "", harWith(`{"id":"p1"}`, root, entryJSON("https://a.test/x.js", "00.100", "application/javascript", 300, `"_initiator":"https://nowhere.test/y.js","_initiator_type":"script"`)), ""},
		{"initiator cycle", "", harWith(`{"id":"p1"}`, root,
			entryJSON("https://a.test/x.js", "00.100", "application/javascript", 300, `"_initiator":"https://a.test/y.js","_initiator_type":"script"`),
			entryJSON("https://a.test/y.js", "00.200", "application/javascript", 300, `"_initiator":"https://a.test/x.js","_initiator_type":"script"`)), ""},
		{"initiator object", "", harWith(`{"id":"p1"}`, root,
			entryJSON("https://b.test/x.js", "00.100", "application/javascript", 300, `"_initiator":{"type":"parser","url":"https://a.test/","lineNumber":3}`)), ""},
		{"bad host names", "", harWith(`{"id":"p1"}`, root, entryJSON("https://bad_host.test/x.js", "00.100", "application/javascript", 300, ""),
			entryJSON("https://[::1]/x.js", "00.100", "application/javascript", 300, ""), entryJSON("https://10.0.0.1/x.js", "00.100", "application/javascript", 300, "")), ""},
		{"odd numbers", "", []byte(`{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","time":"x","request":{"url":"https://a.test/"},"response":{"status":"200","content":{"size":"12","mimeType":"text/html"},"bodySize":null},"timings":{"wait":"","receive":1e400}}]}}`), ""},
	}
	for _, c := range cases {
		m, rep, err := ImportHAR(c.har, ImportOptions{Page: c.page})
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
		case err == nil:
			if verr := m.Validate(); verr != nil {
				t.Errorf("%s: %v", c.name, verr)
			}
			if c.name == "bad host names" && rep.Skipped[SkipBadHost] != 3 {
				t.Errorf("bad host names: skipped %v", rep.Skipped)
			}
			if c.name == "unknown initiator" && rep.Inferred != 1 {
				t.Errorf("unknown initiator: not inferred (%d)", rep.Inferred)
			}
		}
	}
}

// TestImportWritesNothingOnFailure: a failed import leaves no site.
func TestImportWritesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.har")
	os.WriteFile(bad, []byte(`{"log":{"entries":[`), 0o644)
	out := filepath.Join(dir, "site")
	if _, err := ImportSite(bad, out, ImportOptions{}); err == nil {
		t.Fatal("a truncated HAR imported")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed import left files: %v", ents)
	}
}

// TestImportLargeHAR: a 50 MB recording (response bodies included, as
// DevTools exports them) imports.
func TestImportLargeHAR(t *testing.T) {
	text := strings.Repeat("x", 500<<10)
	entries := []string{entryJSON("https://a.test/", "00.000", "text/html", 500, "")}
	for i := 0; i < 100; i++ {
		e := entryJSON("https://a.test/i"+itoa(i)+".js", "00.1"+itoa(10+i%80), "application/javascript", 1000, `"_initiator":"https://a.test/"`)
		e = strings.Replace(e, `"mimeType":"application/javascript"`, `"mimeType":"application/javascript","text":"`+text+`"`, 1)
		entries = append(entries, e)
	}
	b := harWith(`{"id":"p1"}`, entries...)
	if len(b) < 50e6 {
		t.Fatalf("test HAR is %d bytes, want 50 MB", len(b))
	}
	_, rep, err := ImportHAR(b, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replayable != 101 {
		t.Errorf("replayable %d, want 101", rep.Replayable)
	}
}

// TestRedirectIsRequestedAsItsTarget: a recorded 3xx (an empty body typed
// "other") is requested as what its redirects end at, as the recorded
// page asked for that: a script behind a redirect gets a script element,
// in the markup and in an onload script alike, so that it runs.
func TestRedirectIsRequestedAsItsTarget(t *testing.T) {
	m := &Manifest{Name: "r", Seed: 1, Hosts: []string{"www.a.test", "ad.b.test", "cdn.c.test"}, Resources: []Resource{
		{ID: 0, Path: "/", Host: "www.a.test", Size: 2000, Type: TypeHTML, Parent: -1, File: "/_r/0"},
		{ID: 1, Path: "/adj", Query: "a=1&b=2", Host: "ad.b.test", Type: TypeOther, Status: 302, Parent: 0, File: "/_r/1",
			Discovery: Discovery{Kind: KindRef, Offset: 900}},
		{ID: 2, Path: "/ad.js", Host: "cdn.c.test", Size: 600, Type: TypeJS, Parent: 1, File: "/_r/2",
			Discovery: Discovery{Kind: KindRedirect}},
		{ID: 3, Path: "/rfw", Host: "ad.b.test", Type: TypeOther, Status: 302, Parent: 2, File: "/_r/3",
			Discovery: Discovery{Kind: KindOnload, Delay: 5 * time.Millisecond}},
		{ID: 4, Path: "/f.js", Host: "ad.b.test", Size: 100, Type: TypeJS, Parent: 3, File: "/_r/4",
			Discovery: Discovery{Kind: KindRedirect}},
	}}
	root, err := m.Content(0)
	if err != nil {
		t.Fatal(err)
	}
	if want := `<script src="https://ad.b.test/adj?a=1&amp;b=2"></script>`; !strings.Contains(string(root), want) {
		t.Errorf("root HTML lacks %s:\n%s", want, root)
	}
	js, err := m.Content(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["https://ad.b.test/rfw",5,"s"]`; !strings.Contains(string(js), want) {
		t.Errorf("script lacks %s:\n%s", want, js)
	}
}
