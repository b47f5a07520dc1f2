package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/server"
)

// TestRecordLabPage records a generated two-host study page served by
// spdylab's server on loopback and checks that the HAR lists every page
// resource once, each with the initiator that discovered it.
func TestRecordLabPage(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("%v", err)
	}
	m, err := page.Generate("pageA", 2, 1, page.ShardEqual)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.WriteSite(filepath.Join(dir, "site")); err != nil {
		t.Fatal(err)
	}
	ca, err := certs.NewCA("record test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue(m.Hosts...)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, ca.PEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{}
	var pageURL string
	for i, h := range m.Hosts {
		srv, err := server.New(server.Config{Root: filepath.Join(dir, "site"), Certificate: &cert, HostNames: m.Hosts})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+1))
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		args = append(args, "--resolve", h+"="+ln.Addr().String())
		if i == 0 {
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			pageURL = "https://" + h + ":" + port + "/index.html"
		}
	}
	harFile := filepath.Join(dir, "rec.har")
	args = append([]string{pageURL, "-o", harFile, "--trust", caFile, "--settle", "300ms"}, args...)
	var stdout, stderr bytes.Buffer
	if code := runRecord(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("record exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "with initiators") {
		t.Errorf("summary %q", stdout.String())
	}
	b, err := os.ReadFile(harFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := har.Validate(b); err != nil {
		t.Fatalf("recorded HAR: %v", err)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
				Initiator struct {
					Type string `json:"type"`
					URL  string `json:"url"`
				} `json:"_initiator"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// key: host + path, ports dropped (the servers listen on ephemeral ones).
	key := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return raw
		}
		return u.Hostname() + u.Path
	}
	type seen struct {
		n         int
		typ, from string
	}
	got := map[string]*seen{}
	for _, e := range doc.Log.Entries {
		k := key(e.Request.URL)
		if got[k] == nil {
			got[k] = &seen{}
		}
		got[k].n++
		got[k].typ, got[k].from = e.Initiator.Type, key(e.Initiator.URL)
	}
	for _, r := range m.Resources {
		s := got[key(m.URL(r.ID))]
		switch {
		case s == nil:
			t.Errorf("%s (%s) is not in the recording", r.Path, r.Host)
		case s.n != 1:
			t.Errorf("%s recorded %d times", r.Path, s.n)
		case r.Parent < 0:
			if s.typ != "other" {
				t.Errorf("root %s: initiator %q, want other (navigation)", r.Path, s.typ)
			}
		case r.Discovery.Kind == page.KindRef:
			if want := key(m.URL(r.Parent)); s.typ != "parser" || s.from != want {
				t.Errorf("%s: initiator %s %s, want parser %s", r.Path, s.typ, s.from, want)
			}
		case r.Discovery.Kind == page.KindOnload:
			if s.typ != "script" {
				t.Errorf("%s: initiator %s, want script", r.Path, s.typ)
			}
		}
	}
	// The recording keeps its paints; the LCP element's URL (none for a
	// text block) reaches the imported manifest.
	var timings struct {
		Log struct {
			Pages []struct {
				PageTimings struct {
					FCP    *float64 `json:"_firstContentfulPaint"`
					LCP    *float64 `json:"_largestContentfulPaint"`
					LCPURL string   `json:"_largestContentfulPaintUrl"`
				} `json:"pageTimings"`
			} `json:"pages"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &timings); err != nil || len(timings.Log.Pages) != 1 {
		t.Fatalf("recorded pages: %v", err)
	}
	pt := timings.Log.Pages[0].PageTimings
	if pt.FCP == nil || pt.LCP == nil {
		t.Fatalf("recorded page timings %+v: want FCP and LCP", pt)
	}
	imported, _, err := page.ImportHAR(b, page.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case pt.LCPURL == "" && (imported.LCPResource != nil || !strings.Contains(strings.Join(imported.Notes, "\n"), "is a text block")):
		t.Errorf("a text LCP imported as resource %v, notes %q", imported.LCPResource, imported.Notes)
	case pt.LCPURL != "" && (imported.LCPResource == nil || key(imported.URL(*imported.LCPResource)) != key(pt.LCPURL)):
		t.Errorf("LCP image %s imported as resource %v", pt.LCPURL, imported.LCPResource)
	}
	// A failed recording writes nothing.
	bad := filepath.Join(dir, "bad.har")
	if code := runRecord(context.Background(), []string{pageURL, "-o", bad, "--resolve", m.Hosts[0] + "=127.0.0.1:1", "--timeout", "10s"}, &stdout, &stderr); code == 0 {
		t.Error("recording an unreachable page succeeded")
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed recording left a HAR behind")
	}
}
