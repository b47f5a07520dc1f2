package server

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spdylab/spdylab/page"
)

// A bench hands its servers the page it already parsed (Config.Site): they
// answer with its content types, headers and push map although no manifest
// is on disk to read.
func TestSiteGivenParsedNeedsNoManifestFile(t *testing.T) {
	dir, m := writeSite(t)
	if err := os.Remove(filepath.Join(dir, page.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, Config{Root: dir, Site: m, Push: PushManifest})
	c := dial(t, s, ProtoHTTP11, nil)
	for _, r := range m.Resources {
		resp, _ := c.do(t, "GET", s.URL()+r.Path[1:], nil)
		if got := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || got != r.ContentType {
			t.Errorf("%s: status %d, Content-Type %q; want 200 and the page's %q", r.Path, resp.StatusCode, got, r.ContentType)
		}
		for k, v := range r.Headers {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: header %s = %q, want the page's %q", r.Path, k, got, v)
			}
		}
	}
	// Compared as sets: the push order is the SPDY session's, not the map's.
	pushed := slices.Sorted(slices.Values(pushedOverSPDY(t, s, dir, "/index.html")))
	if want := slices.Sorted(slices.Values(m.PushMap()["/index.html"])); len(want) == 0 || !slices.Equal(pushed, want) {
		t.Errorf("pushed %q, want the page's push map %q", pushed, want)
	}
}
