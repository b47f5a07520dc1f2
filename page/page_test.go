package page

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var testSeeds = []int64{1, 2, 7, 42}

func mustGen(t *testing.T, name string, shards int, seed int64, mode string) *Manifest {
	t.Helper()
	m, err := Generate(name, shards, seed, mode)
	if err != nil {
		t.Fatalf("Generate(%s, %d, %d, %s): %v", name, shards, seed, mode, err)
	}
	return m
}

func allNames() []string {
	return append(Names(), "generic:n=50,mean=10k,dist=lognormal,depth=2", "generic:n=20,mean=3k,dist=loguniform,domains=3", "generic:n=5,mean=1k,dist=fixed")
}

func siteHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, name := range []string{"pageA", "pageB", "youm7", "generic:n=30,mean=5k,depth=2"} {
		a := mustGen(t, name, 3, 11, ShardRoundRobin)
		b := mustGen(t, name, 3, 11, ShardRoundRobin)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two manifests from seed 11 differ", name)
		}
		d1, d2 := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		if err := a.WriteSite(d1); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteSite(d2); err != nil {
			t.Fatal(err)
		}
		if siteHash(t, d1) != siteHash(t, d2) {
			t.Fatalf("%s: sites from the same seed are not byte-identical", name)
		}
		c := mustGen(t, name, 3, 12, ShardRoundRobin)
		d3 := filepath.Join(t.TempDir(), "c")
		if err := c.WriteSite(d3); err != nil {
			t.Fatal(err)
		}
		if siteHash(t, d1) == siteHash(t, d3) {
			t.Fatalf("%s: seeds 11 and 12 gave identical sites", name)
		}
	}
}

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*want }

// Published Study 1 statistics (KB = 1024 bytes) and the tolerances the
// generator promises: min and max exact, mean within 0.5%, standard
// deviation within 5%, page total within 3% of the rounded published total.
func TestStudy1MatchesPublishedStats(t *testing.T) {
	type want struct {
		html, js         float64
		n                int
		lo, mean, hi, sd float64
		total            float64
	}
	pages := map[string]want{
		"pageA": {html: 12.8, js: 94.5, n: 100, lo: 1.3, mean: 2.6, hi: 5.5, sd: 1.2, total: 369},
		"pageB": {html: 8.2, n: 100, lo: 46.0 / KiB, mean: 14, hi: 103, sd: 24, total: 1.4 * 1024},
		"pageC": {html: 0.8, n: 10, lo: 298, mean: 302, hi: 310, sd: 4, total: 3.0 * 1024},
	}
	for name, w := range pages {
		for _, seed := range testSeeds {
			for _, shards := range []int{1, 4} {
				m := mustGen(t, name, shards, seed, ShardEqual)
				s := m.Summarize()
				img := s.ByType[TypeImage]
				kb := func(x float64) float64 { return x * KiB }
				if img.Count != w.n {
					t.Errorf("%s seed %d: %d images, want %d", name, seed, img.Count, w.n)
				}
				if math.Abs(float64(img.Min)-kb(w.lo)) > 1 || math.Abs(float64(img.Max)-kb(w.hi)) > 1 {
					t.Errorf("%s seed %d: image min/max %d/%d, want %.0f/%.0f", name, seed, img.Min, img.Max, kb(w.lo), kb(w.hi))
				}
				if !within(img.Mean, kb(w.mean), 0.005) {
					t.Errorf("%s seed %d: image mean %.0f, want %.0f", name, seed, img.Mean, kb(w.mean))
				}
				if !within(img.SD, kb(w.sd), 0.05) {
					t.Errorf("%s seed %d: image sd %.0f, want %.0f", name, seed, img.SD, kb(w.sd))
				}
				if got := float64(s.ByType[TypeHTML].Total); math.Abs(got-kb(w.html)) > 1 {
					t.Errorf("%s seed %d: html %0.f bytes, want %.0f", name, seed, got, kb(w.html))
				}
				if w.js > 0 && math.Abs(float64(s.ByType[TypeJS].Total)-kb(w.js)) > 1 {
					t.Errorf("%s seed %d: js %d bytes, want %.0f", name, seed, s.ByType[TypeJS].Total, kb(w.js))
				}
				if !within(float64(s.Resources.Total), kb(w.total), 0.03) {
					t.Errorf("%s seed %d: total %d, want %.0f within 3%%", name, seed, s.Resources.Total, kb(w.total))
				}
			}
		}
	}
}

func TestPageBIsRoughlyLogUniform(t *testing.T) {
	// Log-uniform over 46 B..103 KB puts about a third of the images in each
	// third of the log range; a linear-uniform draw would put almost none
	// in the lowest third.
	m := mustGen(t, "pageB", 1, 3, ShardEqual)
	lo, hi := math.Log(46), math.Log(103*KiB)
	var thirds [3]int
	types := map[string]int{}
	for _, r := range m.Resources[1:] {
		k := int(3 * (math.Log(float64(r.Size)) - lo) / (hi - lo))
		thirds[min(max(k, 0), 2)]++
		types[r.ContentType]++
	}
	for i, c := range thirds {
		if c < 15 {
			t.Errorf("third %d of the log size range holds %d of 100 images; not log-uniform-like: %v", i, c, thirds)
		}
	}
	for _, ct := range []string{"image/jpeg", "image/png", "image/gif"} {
		if types[ct] == 0 {
			t.Errorf("page B has no %s images: %v", ct, types)
		}
	}
}

func TestStudy2ProfilesMatchPublished(t *testing.T) {
	for name, p := range profiles {
		for _, seed := range testSeeds {
			m := mustGen(t, name, 0, seed, ShardEqual)
			s := m.Summarize()
			if s.Resources.Count != p.n {
				t.Errorf("%s: %d resources, want %d", name, s.Resources.Count, p.n)
			}
			if !within(s.Resources.Mean, p.meanKB*KiB, 0.03) {
				t.Errorf("%s seed %d: mean %.0f, want %.0f within 3%%", name, seed, s.Resources.Mean, p.meanKB*KiB)
			}
			if want := min(p.domains, MaxShards); len(m.Hosts) != want {
				t.Errorf("%s: default shards %d, want %d", name, len(m.Hosts), want)
			}
			used := map[string]bool{}
			for _, r := range m.Resources {
				used[r.Host] = true
			}
			if len(used) != len(m.Hosts) {
				t.Errorf("%s: uses %d of its %d hosts", name, len(used), len(m.Hosts))
			}
			if p.cssImgs+p.jsLoads > 0 && s.Depth != 2 {
				t.Errorf("%s: depth %d, want 2", name, s.Depth)
			}
		}
	}
}

func TestMultiDomainPagesKeepEachDomainOnOneHost(t *testing.T) {
	for _, mode := range []string{ShardEqual, ShardRoundRobin} {
		g, err := profiles["youm7"].build(newRNG(5))
		if err != nil {
			t.Fatal(err)
		}
		m := &Manifest{Name: "youm7", Seed: 5}
		for i := 1; i <= 8; i++ {
			m.Hosts = append(m.Hosts, HostName(i))
		}
		g.assignHosts(m, mode)
		hostOf := map[int]string{}
		for i, r := range g.res {
			if i == 0 {
				continue
			}
			if h, ok := hostOf[g.domain[i]]; ok && h != r.Host {
				t.Fatalf("%s: domain %d on %s and %s", mode, g.domain[i], h, r.Host)
			}
			hostOf[g.domain[i]] = r.Host
		}
		if len(hostOf) != 54 {
			t.Fatalf("%s: %d domains used, want 54", mode, len(hostOf))
		}
	}
}

func TestShardingModes(t *testing.T) {
	for _, shards := range []int{1, 2, 3, 4, 7, 8} {
		eq := mustGen(t, "pageA", shards, 1, ShardEqual)
		rr := mustGen(t, "pageA", shards, 1, ShardRoundRobin)
		for _, m := range []*Manifest{eq, rr} {
			if m.Root().Host != HostName(1) {
				t.Fatalf("root on %s, want s1", m.Root().Host)
			}
			if len(m.Hosts) != shards {
				t.Fatalf("%d hosts, want %d", len(m.Hosts), shards)
			}
		}
		counts := map[string]int{}
		last := 0
		for i, r := range eq.Resources[1:] {
			h := hostIndex(t, r.Host)
			if h < last {
				t.Fatalf("equal split is not contiguous: resource %d on s%d after s%d", i+1, h, last)
			}
			last = h
			counts[r.Host]++
		}
		for h, c := range counts {
			if c < 101/shards || c > 101/shards+1 {
				t.Errorf("equal split with %d shards: %s has %d of 101 resources", shards, h, c)
			}
		}
		for i, r := range rr.Resources[1:] {
			if want := HostName(i%shards + 1); r.Host != want {
				t.Fatalf("roundrobin: resource %d on %s, want %s", i+1, r.Host, want)
			}
		}
	}
}

func hostIndex(t *testing.T, h string) int {
	var i int
	if _, err := fmt.Sscanf(h, "s%d.spdylab.test", &i); err != nil {
		t.Fatalf("host %q: %v", h, err)
	}
	return i
}

func TestReferencesSitAtTheirOffsets(t *testing.T) {
	for _, name := range allNames() {
		for _, mode := range []string{ShardEqual, ShardRoundRobin} {
			m := mustGen(t, name, 4, 9, mode)
			content := map[int][]byte{}
			for id := range m.Resources {
				b, err := m.Content(id)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(b) != m.Resources[id].Size {
					t.Fatalf("%s %s: %d bytes, want %d", name, m.Resources[id].Path, len(b), m.Resources[id].Size)
				}
				content[id] = b
			}
			for id, r := range m.Resources {
				if r.Discovery.Kind != KindRef {
					continue
				}
				url := m.RefURL(id)
				pb := content[r.Parent]
				got := string(pb[r.Discovery.Offset:min(len(pb), r.Discovery.Offset+len(url))])
				if got != url {
					t.Fatalf("%s: resource %d: parent bytes at offset %d are %q, want %q", name, id, r.Discovery.Offset, got, url)
				}
				sameHost := r.Host == m.Resources[r.Parent].Host
				if sameHost != strings.HasPrefix(url, "/") {
					t.Fatalf("%s: resource %d: URL %q, same host %v", name, id, url, sameHost)
				}
			}
			// Every onload child of a script is named in the script.
			for id, r := range m.Resources {
				if r.Discovery.Kind == KindOnload && !bytes.Contains(content[r.Parent], []byte(`"`+m.RefURL(id)+`"`)) {
					t.Fatalf("%s: script %d does not load resource %d", name, r.Parent, id)
				}
			}
		}
	}
}

// A real HTML parser must find exactly the manifest's references.
func TestHTMLParsesToTheManifestReferences(t *testing.T) {
	for _, name := range allNames() {
		m := mustGen(t, name, 2, 4, ShardRoundRobin)
		b, err := m.Content(0)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		z := html.NewTokenizer(bytes.NewReader(b))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
				for _, a := range z.Token().Attr {
					if a.Key == "src" || a.Key == "href" || a.Key == "data" {
						found = append(found, a.Val)
					}
				}
			}
		}
		var want []string
		for id, r := range m.Resources {
			if r.Parent == 0 && r.Discovery.Kind == KindRef {
				want = append(want, m.RefURL(id))
			}
		}
		sort.Strings(found)
		sort.Strings(want)
		if !reflect.DeepEqual(found, want) {
			t.Fatalf("%s: HTML parser found %d references, manifest has %d", name, len(found), len(want))
		}
		if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(b, []byte("</html>\n")) {
			t.Fatalf("%s: HTML is not a complete document", name)
		}
	}
}

func TestImagesAndFlashAreValidFiles(t *testing.T) {
	formats := map[string]string{"image/jpeg": "jpeg", "image/png": "png", "image/gif": "gif"}
	for _, name := range []string{"pageA", "pageB", "pageC", "imgur"} {
		m := mustGen(t, name, 1, 2, ShardEqual)
		for id, r := range m.Resources {
			b, err := m.Content(id)
			if err != nil {
				t.Fatal(err)
			}
			switch r.Type {
			case TypeImage:
				_, format, err := image.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s %s (%d bytes): does not decode: %v", name, r.Path, r.Size, err)
				}
				if format != formats[r.ContentType] {
					t.Fatalf("%s %s: decodes as %s, content type %s", name, r.Path, format, r.ContentType)
				}
			case TypeFlash:
				if string(b[:3]) != "FWS" || int(binary.LittleEndian.Uint32(b[4:8])) != len(b) {
					t.Fatalf("%s %s: not an uncompressed SWF of its own length", name, r.Path)
				}
			}
		}
	}
	// Every size from the minimum up, across the padding edge cases of each
	// format, must decode.
	for ct := range formats {
		min := MinImageSize(ct)
		for size := min; size < min+300; size++ {
			checkImage(t, ct, size)
		}
		for _, size := range []int{4095 + pngMin, 4096 + pngMin, 65537 + 600, 65540 + 600, 200000} {
			checkImage(t, ct, size)
		}
	}
	// Content of an unvalidated manifest reports bad sizes instead of panicking.
	raw := mustGen(t, "imgur", 1, 1, ShardEqual)
	for id, r := range raw.Resources {
		if r.Type == TypeFlash || r.Type == TypeImage {
			raw.Resources[id].Size = 3
			if _, err := raw.Content(id); err == nil || !strings.Contains(err.Error(), "below the smallest") {
				t.Fatalf("%s of 3 bytes: %v", r.Path, err)
			}
			raw.Resources[id].Size = -1
			if _, err := raw.Content(id); err == nil || !strings.Contains(err.Error(), "negative") {
				t.Fatalf("%s of -1 bytes: %v", r.Path, err)
			}
		}
	}
	if _, err := imageBytes("image/jpeg", MinImageSize("image/jpeg")-1, newRNG(1)); err == nil {
		t.Fatal("a JPEG below the minimum size was accepted")
	}
}

func checkImage(t *testing.T, ct string, size int) {
	t.Helper()
	b, err := imageBytes(ct, size, newRNG(uint64(size)))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != size {
		t.Fatalf("%s: %d bytes, want %d", ct, len(b), size)
	}
	if _, _, err := image.Decode(bytes.NewReader(b)); err != nil {
		t.Fatalf("%s of %d bytes does not decode: %v", ct, size, err)
	}
}

func TestWriteSiteWritesEveryFileAtomically(t *testing.T) {
	m := mustGen(t, "youtube", 2, 1, ShardRoundRobin)
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Resources {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != int64(r.Size) {
			t.Fatalf("%s: %d bytes on disk, want %d", r.Path, st.Size(), r.Size)
		}
	}
	back, err := Load(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Fatal("manifest.json does not load back to the same manifest")
	}
	// Replacing an existing site works and leaves no temporary directories.
	m2 := mustGen(t, "twitter", 1, 1, ShardEqual)
	if err := m2.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "img")); err != nil {
		t.Fatal("new site is missing its images")
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m.Resources[len(m.Resources)-1].Path))); err == nil {
		t.Fatal("files of the replaced site survived")
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Fatalf("parent holds %d entries after two writes, want only the site", len(ents))
	}
	// A directory that is not a site is never overwritten.
	other := filepath.Join(parent, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "precious.txt"), []byte("x"), 0o644)
	if err := m.WriteSite(other); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("WriteSite over a non-site directory: %v", err)
	}
	// An invalid manifest writes nothing.
	bad := *m
	bad.Resources = append([]Resource(nil), m.Resources...)
	bad.Resources[3].Size = -1
	if err := bad.WriteSite(filepath.Join(parent, "bad")); err == nil {
		t.Fatal("invalid manifest written")
	}
	if _, err := os.Stat(filepath.Join(parent, "bad")); err == nil {
		t.Fatal("invalid manifest left a directory behind")
	}
}

func TestPushMap(t *testing.T) {
	m := mustGen(t, "pageA", 1, 1, ShardEqual)
	pm := m.PushMap()
	if len(pm) != 1 || len(pm["/index.html"]) != 101 {
		t.Fatalf("pageA on 1 host: push map %d keys, root list %d; want 1 key with 101 paths", len(pm), len(pm["/index.html"]))
	}
	if pm["/index.html"][0] != m.Resources[1].Path {
		t.Fatalf("first pushed path %s, want the script (referenced first)", pm["/index.html"][0])
	}
	m2 := mustGen(t, "pageA", 2, 1, ShardEqual)
	for _, p := range m2.PushMap()["/index.html"] {
		for _, r := range m2.Resources {
			if r.Path == p && r.Host != m2.Root().Host {
				t.Fatalf("push map offers %s from %s with a document on %s", p, r.Host, m2.Root().Host)
			}
		}
	}
	// Depth 2: stylesheet children are pushable with the root (transitively)
	// and listed under the stylesheet too.
	y := mustGen(t, "youtube", 1, 1, ShardEqual)
	ym := y.PushMap()
	if len(ym["/index.html"]) != len(y.Resources)-1 {
		t.Fatalf("youtube root pushes %d of %d", len(ym["/index.html"]), len(y.Resources)-1)
	}
	for id, r := range y.Resources {
		if r.Type == TypeCSS && len(ym[r.Path]) != len(y.Children(id)) {
			t.Fatalf("%s: pushes %d, has %d children", r.Path, len(ym[r.Path]), len(y.Children(id)))
		}
	}
}

func TestGenerateRejectsBadArguments(t *testing.T) {
	cases := map[string]struct {
		name   string
		shards int
		mode   string
		want   string
	}{
		"unknown page":  {"pageZ", 1, "", "known pages: pageA, pageB"},
		"shards":        {"pageA", 9, "", "shards 9 out of range"},
		"mode":          {"pageA", 2, "striped", `unknown shard mode "striped"`},
		"generic key":   {"generic:n=5,colour=red", 1, "", `unknown key "colour"`},
		"generic n":     {"generic:n=0", 1, "", "n=0: must be 1..10000"},
		"generic mean":  {"generic:mean=lots", 1, "", "not a size"},
		"generic depth": {"generic:depth=3", 1, "", "must be 1 or 2"},
		"generic dist":  {"generic:dist=pareto", 1, "", "want lognormal, loguniform or fixed"},
		"generic form":  {"generic:n", 1, "", "not KEY=VALUE"},
	}
	for label, c := range cases {
		_, err := Generate(c.name, c.shards, 1, c.mode)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", label, err, c.want)
		}
	}
}

func manifestJSON(t *testing.T, m *Manifest) []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadReportsProblemsByResource(t *testing.T) {
	base := mustGen(t, "pageC", 2, 1, ShardEqual)
	cases := map[string]struct {
		edit func(m *Manifest)
		want string
	}{
		"duplicate path": {func(m *Manifest) { m.Resources[4].Path = m.Resources[3].Path }, "resource 4 (/img/3.jpg): duplicate path (already used by resource 3)"},
		"missing parent": {func(m *Manifest) { m.Resources[2].Parent = 40 }, "resource 2 (/img/2.jpg): parent 40 does not exist"},
		"cycle": {func(m *Manifest) {
			m.Resources[1].Type, m.Resources[1].ContentType, m.Resources[1].Parent, m.Resources[1].Discovery = TypeHTML, "text/html", 2, Discovery{Kind: KindOnload}
			m.Resources[2].Type, m.Resources[2].ContentType, m.Resources[2].Parent, m.Resources[2].Discovery = TypeHTML, "text/html", 1, Discovery{Kind: KindOnload}
		}, "part of a parent cycle"},
		"offset beyond":  {func(m *Manifest) { m.Resources[5].Discovery.Offset = 5000 }, "resource 5 (/img/5.jpg): offset 5000 is beyond its parent 0"},
		"offset overlap": {func(m *Manifest) { m.Resources[5].Discovery.Offset = m.Resources[4].Discovery.Offset + 3 }, "resource 5 (/img/5.jpg): offset"},
		"unknown type":   {func(m *Manifest) { m.Resources[3].Type = "video" }, `resource 3 (/img/3.jpg): unknown type "video"`},
		"negative size":  {func(m *Manifest) { m.Resources[6].Size = -5 }, "resource 6 (/img/6.jpg): size -5 is negative"},
		"tiny image":     {func(m *Manifest) { m.Resources[6].Size = 10 }, "below the smallest valid image/jpeg"},
		"tiny html":      {func(m *Manifest) { m.Resources[0].Size = 300 }, "resource"},
		"wrong ctype":    {func(m *Manifest) { m.Resources[6].ContentType = "text/plain" }, `content type "text/plain" does not fit type image`},
		"bad ctype":      {func(m *Manifest) { m.Resources[6].ContentType = "" }, "content type"},
		"unknown host":   {func(m *Manifest) { m.Resources[7].Host = "s9.spdylab.test" }, `resource 7 (/img/7.jpg): host "s9.spdylab.test" is not in`},
		"id mismatch":    {func(m *Manifest) { m.Resources[7].ID = 9 }, "resource 7 (/img/7.jpg): id 9 does not match"},
		"bad path":       {func(m *Manifest) { m.Resources[7].Path = "/img/../x.jpg" }, "not clean"},
		"manifest path":  {func(m *Manifest) { m.Resources[7].Path = "/manifest.json" }, "reserved"},
		"root not html":  {func(m *Manifest) { m.Resources[0].Type, m.Resources[0].ContentType = TypeImage, "image/jpeg" }, "root document and must be html"},
		"second root":    {func(m *Manifest) { m.Resources[3].Parent = -1 }, "resource 3 (/img/3.jpg): parent -1 does not exist"},
		"unknown kind":   {func(m *Manifest) { m.Resources[3].Discovery.Kind = "magic" }, `unknown discovery kind "magic"`},
		"ref from image": {func(m *Manifest) { m.Resources[3].Parent = 2 }, "only html and css reference"},
		"bad header":     {func(m *Manifest) { m.Resources[3].Headers = map[string]string{"X Bad": "1"} }, `header name "X Bad"`},
		"header value":   {func(m *Manifest) { m.Resources[3].Headers = map[string]string{"Link": "a\r\nb"} }, "line break"},
		"server delay":   {func(m *Manifest) { m.Resources[3].Headers = map[string]string{ServerDelayHeader: "soon"} }, `resource 3 (/img/3.jpg): header X-Spdylab-Server-Delay "soon": want a duration`},
		"negative think": {func(m *Manifest) { m.Resources[3].Headers = map[string]string{ServerDelayHeader: "-1s"} }, "duration of 0 or more"},
		"no hosts":       {func(m *Manifest) { m.Hosts = nil }, "no hosts"},
		"dup host":       {func(m *Manifest) { m.Hosts = append(m.Hosts, m.Hosts[0]) }, "duplicate host"},
		"no resources":   {func(m *Manifest) { m.Resources = nil }, "no resources"},
		"negative delay": {func(m *Manifest) { m.Resources[3].Discovery.Delay = -1 }, "delay"},
	}
	for label, c := range cases {
		var m Manifest
		if err := json.Unmarshal(manifestJSON(t, base), &m); err != nil {
			t.Fatal(err)
		}
		c.edit(&m)
		_, err := Parse(manifestJSON(t, &m))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", label, err, c.want)
		}
	}
}

func TestLoadReportsMalformedJSONPosition(t *testing.T) {
	cases := map[string]struct{ text, want string }{
		"syntax":    {"{\n  \"name\": \"x\",\n  \"hosts\": [\"a\" \"b\"]\n}", "line 3 column"},
		"type":      {"{\n\"name\": \"x\",\n\"seed\": \"one\"}", "line 3"},
		"truncated": {"{\"name\": \"x\", \"hosts\": [", "truncated"},
		"unknown":   {`{"name": "x", "colour": 1}`, `unknown field "colour"`},
		"trailing":  {`{"name": "x"} {}`, "after the manifest"},
		"empty":     {"", "empty manifest"},
	}
	for label, c := range cases {
		_, err := Parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", label, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file loaded")
	}
}

func TestDiscoveryDelayRoundTripsInMilliseconds(t *testing.T) {
	m := mustGen(t, "youtube", 1, 1, ShardEqual)
	b := manifestJSON(t, m)
	if !bytes.Contains(b, []byte(`"delay_ms"`)) {
		t.Fatal("script-loaded resources carry no delay_ms")
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Fatal("round trip changed the manifest")
	}
}

func TestPreloadLinksNameThePushMap(t *testing.T) {
	m := mustGen(t, "youtube", 2, 1, ShardRoundRobin)
	pm := m.PushMap()
	m.AddPreloadLinks()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Resources {
		want := pm[r.Path]
		link := r.Headers["Link"]
		if len(want) == 0 {
			if link != "" {
				t.Fatalf("%s has a Link header but pushes nothing", r.Path)
			}
			continue
		}
		parts := strings.Split(link, ", ")
		if len(parts) != len(want) {
			t.Fatalf("%s: Link names %d resources, push map %d", r.Path, len(parts), len(want))
		}
		for i, p := range parts {
			if !strings.HasPrefix(p, "<"+want[i]+">; rel=preload") {
				t.Fatalf("%s: Link entry %q, want %s", r.Path, p, want[i])
			}
		}
	}
}

// BenchmarkGenerateAndWritePageB measures generating page B (101 files,
// 1.4 MB) and writing it atomically: the cost a bench pays on a cache miss.
func BenchmarkGenerateAndWritePageB(b *testing.B) {
	root := b.TempDir()
	first, err := Generate("pageB", 1, 0, ShardEqual)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(first.TotalBytes()) // every seed's total is within bytes of this
	for i := 0; b.Loop(); i++ {
		m, err := Generate("pageB", 1, int64(i), ShardEqual)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.WriteSite(filepath.Join(root, fmt.Sprint(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// Scripts must be valid JavaScript: node --check parses them when node is
// installed (CI installs it for the interop tests).
func TestScriptsParseAsJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	m := mustGen(t, "youtube", 2, 1, ShardRoundRobin)
	dir := filepath.Join(t.TempDir(), "site")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range m.Resources {
		if r.Type != TypeJS {
			continue
		}
		// node decides the module type by extension; .js is a classic script.
		out, err := exec.Command(node, "--check", filepath.Join(dir, filepath.FromSlash(r.Path))).CombinedOutput()
		if err != nil {
			t.Fatalf("%s is not valid JavaScript: %v\n%s", r.Path, err, out)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("youtube has no scripts to check")
	}
}

// DependencyMap keys documents only and lists their direct children on
// their host, without the grandchildren PushMap adds.
func TestDependencyMap(t *testing.T) {
	y := mustGen(t, "youtube", 2, 1, ShardEqual)
	dm, pm := y.DependencyMap(), y.PushMap()
	root := y.Root()
	var want []string
	for _, id := range y.discoveryOrder(root.ID) {
		if c := y.Resources[id]; c.Host == root.Host {
			want = append(want, c.Path)
		}
	}
	if len(want) == 0 || !slices.Equal(dm[root.Path], want) {
		t.Fatalf("root's dependencies %q, want its same-host children %q", dm[root.Path], want)
	}
	if len(pm[root.Path]) <= len(want) {
		t.Fatalf("youtube needs grandchildren for this test: push map %d, children %d", len(pm[root.Path]), len(want))
	}
	docs := map[string]bool{}
	for _, r := range y.Resources {
		docs[r.Path] = r.Type == TypeHTML
	}
	for p := range dm {
		if !docs[p] {
			t.Errorf("DependencyMap keys %s, not a document", p)
		}
	}
}
