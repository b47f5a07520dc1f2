package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// recordingWithHosts writes a HAR of one page on www.example.org whose
// document references one image on each of hosts-1 other hosts, all at the
// same path (the server must tell them apart by host), and returns its
// page spec.
func recordingWithHosts(t testing.TB, hosts int) string {
	t.Helper()
	entry := func(u, mime string, size int, extra string) string {
		return `{"pageref":"p1","startedDateTime":"2026-01-01T00:00:00.100Z","time":10,` +
			`"request":{"method":"GET","url":"` + u + `","headers":[{"name":"user-agent","value":"spdylab-test"}]},` +
			`"response":{"status":200,"headers":[],"content":{"size":` + fmt.Sprint(size) + `,"mimeType":"` + mime + `"},"bodySize":` + fmt.Sprint(size) + `},` +
			`"timings":{"send":0,"wait":5,"receive":5}` + extra + `}`
	}
	root := "https://www.example.org/"
	entries := []string{strings.Replace(entry(root, "text/html", 3000, ""), "00.100Z", "00.000Z", 1)}
	for i := 1; i < hosts; i++ {
		entries = append(entries, entry(fmt.Sprintf("https://h%d.example.net/pic.png", i), "image/png", 1500+i, `,"_initiator":"`+root+`"`))
	}
	har := `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"pages":[{"id":"p1","title":"t","startedDateTime":"2026-01-01T00:00:00.000Z","pageTimings":{}}],"entries":[` + strings.Join(entries, ",") + `]}}`
	file := filepath.Join(t.TempDir(), "hosts.har")
	if err := os.WriteFile(file, []byte(har), 0o644); err != nil {
		t.Fatal(err)
	}
	return "har:" + file
}

// checkReplay asserts a replay load fetched every resource once and that
// each host was reached at an address of its own.
func checkReplay(t *testing.T, b *Bench, r probe.Result, proto string) {
	t.Helper()
	m := b.Manifest()
	if r.Failed {
		t.Fatalf("%s: load failed: %s", proto, r.Error)
	}
	if r.Resources != len(m.Resources) {
		t.Fatalf("%s: %d resources fetched, the page has %d", proto, r.Resources, len(m.Resources))
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
				ServerIP string `json:"serverIPAddress"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(r.HAR, &doc); err != nil {
		t.Fatalf("%s: HAR: %v", proto, err)
	}
	hostOf := map[string]string{}
	for _, e := range doc.Log.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil || e.ServerIP == "" {
			t.Fatalf("%s: entry %q at server %q", proto, e.Request.URL, e.ServerIP)
		}
		if h, ok := hostOf[e.ServerIP]; ok && h != u.Hostname() {
			t.Fatalf("%s: hosts %s and %s share the address %s", proto, h, u.Hostname(), e.ServerIP)
		}
		hostOf[e.ServerIP] = u.Hostname()
	}
	if len(hostOf) != len(m.Hosts) {
		t.Errorf("%s: %d server addresses for %d hosts", proto, len(hostOf), len(m.Hosts))
	}
}

func TestReplayKeepsEveryHostOverLoopback(t *testing.T) {
	b := openBench(t, probe.Condition{Page: recordingWithHosts(t, 40), NoLink: true}, Options{})
	if got := b.Condition().Shards; got != probe.MaxShards {
		t.Errorf("a 40-host recording got %d servers, want %d", got, probe.MaxShards)
	}
	for i, proto := range allProtos {
		checkReplay(t, b, b.Load(context.Background(), proto, i), proto)
	}
}

// TestReplayOf300HostsBehindTheLink: every host of a recording answers at
// its own address behind one emulated bottleneck, resolved by DNS across
// it, with a certificate for its name that the loader verifies (the bench
// sets RootCAs) and that Chromium accepts.
func TestReplayOf300HostsBehindTheLink(t *testing.T) {
	testutil.RequireRoot(t)
	c := probe.Condition{Page: recordingWithHosts(t, 300), DNS: true,
		Link: probe.Link{RTT: 4 * time.Millisecond, DownBps: 50e6, UpBps: 10e6, Shared: true}}
	b := openBench(t, c, Options{})
	if n := len(b.Testbed().Sites()); n != 300 {
		t.Fatalf("%d sites, want 300", n)
	}
	for i, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoH2, probe.ProtoH3} {
		r := b.Load(context.Background(), proto, i)
		checkReplay(t, b, r, proto)
		if r.Link.Down.PktsDelivered == 0 {
			t.Errorf("%s: nothing crossed the link", proto)
		}
		if r.LinkSeed != 1 {
			t.Errorf("%s: the result records link seed %d; the bench's losses came from seed 1", proto, r.LinkSeed)
		}
	}
	if _, err := browser.FindBinary(""); err != nil {
		t.Logf("no Chromium, replay by the browser not checked: %v", err)
		return
	}
	// Chromium holds at most 256 sockets (its socket pools' limit) and
	// closes idle sessions to open more, which fails requests queued on
	// them; a real page under that many hosts (the largest shared
	// recording has 230) never meets the limit.
	cb := openBench(t, probe.Condition{Page: recordingWithHosts(t, 200), DNS: true, Link: c.Link, Client: probe.ClientChromium}, Options{})
	r := cb.Load(context.Background(), probe.ProtoH2, 0)
	if r.Failed || r.Resources != len(cb.Manifest().Resources) {
		t.Fatalf("chromium: failed %v (%s), %d of %d resources", r.Failed, r.Error, r.Resources, len(cb.Manifest().Resources))
	}
}

// BenchmarkReplayBenchSetup300Hosts is the time to build a bench for a
// 300-host recording behind an emulated link (namespaces, the emulator,
// 300 addresses and certificates, DNS, servers) and to tear it down again.
// Run: go test -run '^$' -bench ReplayBenchSetup ./harness/ (root).
func BenchmarkReplayBenchSetup300Hosts(b *testing.B) {
	testutil.RequireRoot(b)
	spec := recordingWithHosts(b, 300)
	work := b.TempDir()
	c := probe.Condition{Page: spec, DNS: true, Link: probe.Link{RTT: 40 * time.Millisecond, DownBps: 20e6, UpBps: 5e6, Shared: true}}
	m, err := Validate(c, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		bench, err := Open(context.Background(), c, Options{WorkDir: work, Seed: 1, Page: m})
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
