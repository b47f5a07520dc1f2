package loader

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/pagedata"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

var replayProtos = []string{probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoH2}

// importedSite imports a HAR and writes its site; noDelay drops the
// recorded compute delays (a real page's timeline runs for many seconds,
// up to minutes for late ads; what is fetched does not depend on them).
func importedSite(t *testing.T, file string, noDelay bool) *site {
	t.Helper()
	m, _, err := page.ImportHARFile(file, page.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Resources {
		if noDelay {
			m.Resources[i].Discovery.Delay = 0
		}
	}
	dir := filepath.Join(t.TempDir(), "site")
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	return &site{m: m, dir: dir}
}

// checkReplay asserts that the load fetched every resource of the
// recorded page exactly once, at its size, with its recorded status, and
// nothing else.
func checkReplay(t *testing.T, st *site, proto string, res probe.Result) har.Document {
	t.Helper()
	if res.Failed {
		t.Fatalf("%s: load failed: %s", proto, res.Error)
	}
	var h har.Document
	if err := json.Unmarshal(res.HAR, &h); err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(st.m.Resources))
	for _, e := range h.Log.Entries {
		if e.ResourceID == nil {
			t.Errorf("%s: fetched %s, which is not in the page", proto, e.Request.URL)
			continue
		}
		id := *e.ResourceID
		r := st.m.Resources[id]
		seen[id]++
		if e.Response.Status != r.StatusCode() || e.Response.Content.Size != int64(r.Size) {
			t.Errorf("%s: %s: status %d, %d bytes; recorded %d, %d bytes", proto, e.Request.URL, e.Response.Status, e.Response.Content.Size, r.StatusCode(), r.Size)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s: %s fetched %d times, want once", proto, st.m.URL(id), n)
		}
	}
	return h
}

func header(hs []har.NameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// TestLoadRecordedPage replays the synthetic recording (seven hosts, a
// redirected root, a redirected pixel, references in HTML and CSS,
// script-initiated requests) from spdylab's server on loopback.
func TestLoadRecordedPage(t *testing.T) {
	st := importedSite(t, "../page/testdata/synthetic.har", false)
	target := labServer(t, st, server.PushNone)
	for _, proto := range replayProtos {
		res, err := Load(context.Background(), target, Options{Proto: proto})
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		h := checkReplay(t, st, proto, res)
		for _, e := range h.Log.Entries {
			id := *e.ResourceID
			r := st.m.Resources[id]
			if c := st.m.RedirectChild(id); c >= 0 && header(e.Response.Headers, "Location") != st.m.URL(c) {
				t.Errorf("%s: %s answered Location %q, want %s", proto, e.Request.URL, header(e.Response.Headers, "Location"), st.m.URL(c))
			}
			if got := header(e.Request.Headers, "cookie"); got != r.RequestHeaders["cookie"] {
				t.Errorf("%s: %s sent cookie %q, recorded %q", proto, e.Request.URL, got, r.RequestHeaders["cookie"])
			}
			if v := r.Headers["Cache-Control"]; v != "" && header(e.Response.Headers, "Cache-Control") != v {
				t.Errorf("%s: %s: recorded Cache-Control %q not served", proto, e.Request.URL, v)
			}
		}
		hosts := connsPerHost(h)
		if len(hosts) != len(st.m.Hosts) {
			t.Errorf("%s: connections to %d hosts, the page has %d", proto, len(hosts), len(st.m.Hosts))
		}
	}
}

// TestLoadSharedRecordings replays every shared recording of a real page
// (up to 786 resources on 230 hosts) on loopback without the recorded
// compute delays: page i over protocol i mod 3, so that each protocol
// loads ten pages (about 25 s on 2 busy cores; every page over every
// protocol, 80 s, with SPDYLAB_REPLAY_ALL=1; one page with -short).
func TestLoadSharedRecordings(t *testing.T) {
	files, dir := pagedata.HARFiles()
	if len(files) == 0 {
		t.Skipf("no shared recordings in %s (set %s to the pages folder): skipping", dir, pagedata.EnvDir)
	}
	if testing.Short() {
		files = files[:1]
	}
	all := os.Getenv("SPDYLAB_REPLAY_ALL") != ""
	for i, f := range files {
		protos := replayProtos
		if !all {
			protos = replayProtos[i%len(replayProtos) : i%len(replayProtos)+1]
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".har"), func(t *testing.T) {
			st := importedSite(t, f, true)
			target := labServer(t, st, server.PushNone)
			for _, proto := range protos {
				res, err := Load(context.Background(), target, Options{Proto: proto})
				if err != nil {
					t.Fatalf("%s: %v", proto, err)
				}
				checkReplay(t, st, proto, res)
			}
		})
	}
}
