package harness

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

func TestServerTLSMaxCapsOnlyBrowserBenchesAt12(t *testing.T) {
	for _, tc := range []struct {
		client, tls string
		want        uint16
	}{
		{probe.ClientChromium, probe.TLS12, tls.VersionTLS12},
		{probe.ClientChromium, probe.TLS13, 0},
		{"", probe.TLS12, 0}, // the loader caps itself; h3 on its benches needs 1.3
	} {
		if got := serverTLSMax(probe.Condition{Client: tc.client, TLS: tc.tls}); got != tc.want {
			t.Errorf("%q at %s: TLSMax %#x, want %#x", tc.client, tc.tls, got, tc.want)
		}
	}
}

func TestChromiumBenchRefusesSPDYWithTheReason(t *testing.T) {
	b := openBench(t, probe.Condition{Page: "pageC", NoLink: true, Client: probe.ClientChromium}, Options{})
	r := b.Load(context.Background(), probe.ProtoSPDY31, 0)
	if !r.Failed || !strings.Contains(r.Error, "removed SPDY") {
		t.Fatalf("chromium spdy/3.1 load: failed %v, %q", r.Failed, r.Error)
	}
}

// TestChromiumBenchLoadsOverLoopback: a chromium bench's load is
// Chromium's (its HAR carries DevTools' fields) and matches the manifest.
func TestChromiumBenchLoadsOverLoopback(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	b := openBench(t, probe.Condition{Page: "pageC", NoLink: true, Client: probe.ClientChromium, TLS: probe.TLS12}, Options{})
	r := b.Load(context.Background(), probe.ProtoH2, 0)
	if r.Failed {
		t.Fatal(r.Error)
	}
	if r.Condition.Client != probe.ClientChromium || r.Resources != len(b.Manifest().Resources) || r.PLTms <= 0 {
		t.Fatalf("result: client %q, %d of %d resources, PLT %v", r.Condition.Client, r.Resources, len(b.Manifest().Resources), r.PLTms)
	}
	if !strings.Contains(string(r.HAR), `"_chromePriority"`) {
		t.Error("the HAR is not Chromium's")
	}
}

// TestChromiumBenchLoadsOverH3: with TLS 1.3 Chromium loads the page over
// QUIC through the emulated link (forced to the lab's hosts); every page
// response says h3 (browser fails a load that fell back to TCP) and the
// load passes the TLS check, which sees QUIC as TLS 1.3.
func TestChromiumBenchLoadsOverH3(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	// At the default TLS 1.2 too: the TCP servers are capped at 1.2, h3
	// runs QUIC's 1.3 (probe.LoadTLS).
	for _, v := range []string{probe.TLS13, probe.DefaultTLS} {
		c := probe.Condition{Page: "pageC", Client: probe.ClientChromium, TLS: v,
			Link: probe.Link{RTT: 20 * time.Millisecond, DownBps: 10e6, UpBps: 1e6}}
		b := openBench(t, c, Options{})
		r := b.Load(context.Background(), probe.ProtoH3, 0)
		if r.Failed {
			t.Fatalf("tls %s: %s", v, r.Error)
		}
		if r.Resources != len(b.Manifest().Resources) || r.Condition.TLS != v {
			t.Fatalf("tls %s: %d of %d resources, stored tls %q", v, r.Resources, len(b.Manifest().Resources), r.Condition.TLS)
		}
		var doc har.Document
		if err := json.Unmarshal(r.HAR, &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range doc.Log.Entries {
			if e.Response.HTTPVersion != har.HTTPVersion(probe.ProtoH3) && !strings.HasSuffix(e.Request.URL, "favicon.ico") {
				t.Errorf("tls %s: %s answered over %q", v, e.Request.URL, e.Response.HTTPVersion)
			}
		}
	}
}

// recordingForChromium is a recording of what tripped real Chromium on
// replays: a cross-site iframe (an out-of-process frame under site
// isolation) with an image of its own, and a script that requests its
// child 2.5 s after it ran (longer than the browser's quiet settle).
//
// With nosniff, the script also asks a third host for text that the
// recorded page read with XHR and the replay requests as an image, which
// Chromium's opaque response blocking withholds from the page.
func recordingForChromium(t *testing.T, nosniff bool) string {
	t.Helper()
	const root, frame, script = "https://www.example.org/", "https://ads.example.net/it?e=1&s=2", "https://www.example.org/app.js"
	entry := func(u, start, mime string, size int, initiator string) string {
		headers := ""
		if strings.HasPrefix(mime, "text/plain") {
			headers = `{"name":"content-type","value":"` + mime + `"},{"name":"x-content-type-options","value":"nosniff"}`
		}
		return `{"pageref":"p1","startedDateTime":"2026-01-01T00:00:` + start + `Z","time":10,` +
			`"request":{"method":"GET","url":"` + u + `","headers":[]},` +
			`"response":{"status":200,"headers":[` + headers + `],"content":{"size":` + fmt.Sprint(size) + `,"mimeType":"` + mime + `"},"bodySize":` + fmt.Sprint(size) + `},` +
			`"timings":{"send":0,"wait":5,"receive":5}` + initiator + `}`
	}
	parser := func(u string) string { return `,"_initiator":{"type":"parser","url":"` + u + `"}` }
	entries := []string{
		entry(root, "00.000", "text/html", 4000, ""),
		entry(frame, "00.020", "text/html; charset=utf-8", 400, parser(root)),
		entry("https://cdn.example.com/ad.png", "00.040", "image/png", 900, parser(frame)),
		entry(script, "00.030", "application/javascript", 2000, parser(root)),
		entry("https://api.example.com/late.json", "02.550", "application/json", 300,
			`,"_initiator":{"type":"script","stack":{"callFrames":[{"url":"`+script+`"}]}}`),
	}
	if nosniff {
		entries = append(entries, entry("https://message.example.com/count.htm?_=1", "00.300", "text/plain; charset=utf-8", 55,
			`,"_initiator":{"type":"script","stack":{"callFrames":[{"url":"`+script+`"}]}}`))
	}
	har := `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"pages":[{"id":"p1","title":"t","startedDateTime":"2026-01-01T00:00:00.000Z","pageTimings":{}}],"entries":[` + strings.Join(entries, ",") + `]}}`
	file := filepath.Join(t.TempDir(), "chromium.har")
	if err := os.WriteFile(file, []byte(har), 0o644); err != nil {
		t.Fatal(err)
	}
	return "har:" + file
}

// TestChromiumReplaysCrossSiteFramesAndLateScripts: Chromium requests and
// finishes every resource of a replay, those of an out-of-process iframe
// and one a script asks for seconds later included.
func TestChromiumReplaysCrossSiteFramesAndLateScripts(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	b := openBench(t, probe.Condition{Page: recordingForChromium(t, false), NoLink: true, Client: probe.ClientChromium}, Options{})
	m := b.Manifest()
	if late := m.Resources[len(m.Resources)-1]; late.Discovery.Kind != page.KindOnload || late.Discovery.Delay < 2*time.Second {
		t.Fatalf("the recording's last request imported as %+v, want an onload request 2.5 s after its script", late.Discovery)
	}
	r := b.Load(context.Background(), probe.ProtoH2, 0)
	if r.Failed {
		t.Fatal(r.Error)
	}
	if r.Resources != len(m.Resources) {
		t.Fatalf("Chromium fetched %d of the page's %d resources:\n%s", r.Resources, len(m.Resources), r.HAR)
	}
}

// TestChromiumReplayWithBlockedResponseCompletes: a response Chromium
// withholds from the page (ERR_BLOCKED_BY_ORB) was still requested and
// answered; the load completes with every other resource.
func TestChromiumReplayWithBlockedResponseCompletes(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	b := openBench(t, probe.Condition{Page: recordingForChromium(t, true), NoLink: true, Client: probe.ClientChromium}, Options{})
	r := b.Load(context.Background(), probe.ProtoH2, 0)
	if r.Failed {
		t.Fatal(r.Error)
	}
	blocked := `"url": "https://message.example.com/count.htm?_=1"`
	if n := len(b.Manifest().Resources); r.Resources != n-1 || !strings.Contains(string(r.HAR), blocked) || !strings.Contains(string(r.HAR), "ERR_BLOCKED_BY_ORB") {
		t.Fatalf("%d of %d resources completed; want all but the blocked one, which the HAR shows blocked:\n%s", r.Resources, n, r.HAR)
	}
}
