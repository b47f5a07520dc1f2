package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

var allProtos = []string{probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoSPDY3, probe.ProtoH2, probe.ProtoH3}

func openBench(t *testing.T, c probe.Condition, opt Options) *Bench {
	t.Helper()
	if opt.WorkDir == "" {
		opt.WorkDir = t.TempDir()
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Open(ctx, c, opt)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// harEntries counts the entries of a HAR document.
func harEntries(t *testing.T, har []byte) int {
	t.Helper()
	var doc struct {
		Log struct {
			Version string            `json:"version"`
			Entries []json.RawMessage `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(har, &doc); err != nil {
		t.Fatalf("HAR does not parse: %v", err)
	}
	if doc.Log.Version == "" {
		t.Fatal("HAR has no log.version")
	}
	return len(doc.Log.Entries)
}

func TestNoLinkLoadOfPageAWithEveryProtocol(t *testing.T) {
	b := openBench(t, probe.Condition{Page: "pageA", Shards: 2, ShardMode: "roundrobin", NoLink: true}, Options{})
	m := b.Manifest()
	if len(m.Hosts) != 2 || len(b.BaseURLs()) != 2 {
		t.Fatalf("bench hosts %v, base URLs %v", m.Hosts, b.BaseURLs())
	}
	for i, proto := range allProtos {
		r := b.Load(context.Background(), proto, i)
		if r.Failed {
			t.Fatalf("%s: load failed: %s", proto, r.Error)
		}
		if r.Condition.Proto != proto || r.Run != i || r.Condition.Page != "pageA" || r.Condition.Shards != 2 {
			t.Fatalf("%s: result carries condition %+v run %d", proto, r.Condition, r.Run)
		}
		if r.Resources != len(m.Resources) {
			t.Fatalf("%s: %d resources loaded, page has %d", proto, r.Resources, len(m.Resources))
		}
		if r.PLTms <= 0 || r.ToWms <= 0 || r.ToWms > r.PLTms {
			t.Fatalf("%s: PLT %.2f ms, ToW %.2f ms: want 0 < ToW <= PLT", proto, r.PLTms, r.ToWms)
		}
		if r.BytesWireIn < m.TotalBytes() {
			t.Fatalf("%s: received %d wire bytes, less than the page's %d", proto, r.BytesWireIn, m.TotalBytes())
		}
		if n := harEntries(t, r.HAR); n != len(m.Resources) {
			t.Fatalf("%s: HAR has %d entries, want %d", proto, n, len(m.Resources))
		}
		switch proto {
		case probe.ProtoHTTPS:
			if r.Connections <= 2 {
				t.Errorf("https opened %d connections to 2 hosts with 102 resources; want several per host", r.Connections)
			}
		default:
			if r.Connections != 2 {
				t.Errorf("%s opened %d connections to 2 hosts; want one session per host", proto, r.Connections)
			}
		}
	}
}

func TestPushPoliciesPushThePage(t *testing.T) {
	for _, push := range []string{"manifest", "preload"} {
		b := openBench(t, probe.Condition{Page: "youtube", Push: push, NoLink: true}, Options{})
		for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoSPDY3} { // the h2 client, like Go's, disables push
			r := b.Load(context.Background(), proto, 0)
			if r.Failed {
				t.Fatalf("push %s, %s: %s", push, proto, r.Error)
			}
			if r.Pushed == 0 || r.Resources != len(b.Manifest().Resources) {
				t.Errorf("push %s, %s: %d of %d resources pushed", push, proto, r.Pushed, r.Resources)
			}
		}
		r := b.Load(context.Background(), probe.ProtoHTTPS, 0)
		if r.Failed || r.Pushed != 0 {
			t.Errorf("push %s over https: failed=%v pushed=%d", push, r.Failed, r.Pushed)
		}
	}
}

func TestOpenRejectsBadConditions(t *testing.T) {
	cases := map[string]struct {
		c    probe.Condition
		want string
	}{
		"no page":     {probe.Condition{NoLink: true}, "names no page"},
		"bad page":    {probe.Condition{Page: "pageQ", NoLink: true}, `unknown page "pageQ"`},
		"shards":      {probe.Condition{Page: "pageA", Shards: 9, NoLink: true}, "shards 9 out of range"},
		"shard mode":  {probe.Condition{Page: "pageA", ShardMode: "zigzag", NoLink: true}, `unknown shard mode "zigzag"`},
		"tls":         {probe.Condition{Page: "pageA", TLS: "1.4", NoLink: true}, `unknown TLS version "1.4"`},
		"push":        {probe.Condition{Page: "pageA", Push: "always", NoLink: true}, `unknown push policy "always"`},
		"streams":     {probe.Condition{Page: "pageA", MaxStreams: -1, NoLink: true}, "max streams -1"},
		"window":      {probe.Condition{Page: "pageA", InitialWindow: -1, NoLink: true}, "initial window -1"},
		"no manifest": {probe.Condition{Page: "/nonexistent/manifest.json", NoLink: true}, "no such file"},
	}
	for label, c := range cases {
		work := t.TempDir()
		b, err := Open(context.Background(), c.c, Options{WorkDir: work, Seed: 1})
		if err == nil {
			b.Close()
			t.Errorf("%s: Open succeeded", label)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to mention %q", label, err, c.want)
		}
		if ents, _ := os.ReadDir(filepath.Join(work, "pages")); len(ents) > 0 {
			t.Errorf("%s: a rejected condition wrote %d entries", label, len(ents))
		}
	}
}

func TestManifestPageFromFile(t *testing.T) {
	m, err := page.Generate("pageC", 2, 3, page.ShardRoundRobin)
	if err != nil {
		t.Fatal(err)
	}
	// A complete site is served where it is.
	site := filepath.Join(t.TempDir(), "site")
	if err := m.WriteSite(site); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	file := filepath.Join(site, "manifest.json")
	b := openBench(t, probe.Condition{Page: file, NoLink: true}, Options{WorkDir: work})
	if b.SiteDir() != site || b.Condition().Shards != 2 {
		t.Fatalf("complete site served from %s with %d shards; want %s and 2", b.SiteDir(), b.Condition().Shards, site)
	}
	r := b.Load(context.Background(), probe.ProtoSPDY31, 0)
	if r.Failed || r.Resources != 11 {
		t.Fatalf("load of a manifest file: failed=%v %s, %d resources", r.Failed, r.Error, r.Resources)
	}
	// A manifest without its files gets generated content in the work dir.
	lone := filepath.Join(t.TempDir(), "lone.json")
	js, _ := os.ReadFile(file)
	if err := os.WriteFile(lone, js, 0o644); err != nil {
		t.Fatal(err)
	}
	b2 := openBench(t, probe.Condition{Page: lone, NoLink: true}, Options{WorkDir: work})
	if !strings.HasPrefix(b2.SiteDir(), work) {
		t.Fatalf("a bare manifest is served from %s, not from the work dir", b2.SiteDir())
	}
	if r := b2.Load(context.Background(), probe.ProtoHTTPS, 0); r.Failed || r.Resources != 11 {
		t.Fatalf("load of a bare manifest: failed=%v %s", r.Failed, r.Error)
	}
	// A page whose hosts the bench cannot serve is refused.
	m.Hosts[1] = "cdn.example.test"
	for i := range m.Resources {
		if m.Resources[i].Host == page.HostName(2) {
			m.Resources[i].Host = "cdn.example.test"
		}
	}
	odd := filepath.Join(t.TempDir(), "odd.json")
	js, _ = json.Marshal(m)
	os.WriteFile(odd, js, 0o644)
	if _, err := Open(context.Background(), probe.Condition{Page: odd, NoLink: true}, Options{WorkDir: work}); err == nil || !strings.Contains(err.Error(), "mixes the lab's host name") {
		t.Fatalf("a page on foreign hosts: %v", err)
	}
}

func TestSiteIsGeneratedOnceAndReused(t *testing.T) {
	work := t.TempDir()
	c := probe.Condition{Page: "pageC", Shards: 2, NoLink: true}
	a := openBench(t, c, Options{WorkDir: work})
	st1, err := os.Stat(filepath.Join(a.SiteDir(), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	// A writer killed mid-write leaves a temporary directory; the next
	// bench of the page removes it.
	stale := filepath.Join(filepath.Dir(a.SiteDir()), "."+filepath.Base(a.SiteDir())+".spdylab-tmp-123")
	if err := os.MkdirAll(filepath.Join(stale, "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := openBench(t, c, Options{WorkDir: work})
	if _, err := os.Stat(stale); err == nil {
		t.Fatal("stale temporary site survived")
	}
	st2, err := os.Stat(filepath.Join(b.SiteDir(), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a.SiteDir() != b.SiteDir() || !st1.ModTime().Equal(st2.ModTime()) {
		t.Fatal("a second bench of the same page rewrote the site")
	}
	other := openBench(t, probe.Condition{Page: "pageC", Shards: 2, NoLink: true}, Options{WorkDir: work, Seed: 2})
	if other.SiteDir() == a.SiteDir() {
		t.Fatal("a different seed reused the same site")
	}
}

func TestLoadFailsCleanlyOnTimeoutAndAfterClose(t *testing.T) {
	b := openBench(t, probe.Condition{Page: "pageC", NoLink: true}, Options{Timeout: time.Millisecond})
	r := b.Load(context.Background(), probe.ProtoHTTPS, 0)
	if !r.Failed || r.Error == "" {
		t.Fatalf("a load of 3 MB with a 1 ms budget did not fail: %+v", r)
	}
	if r := b.Load(context.Background(), "spdy/1", 0); !r.Failed || !strings.Contains(r.Error, `unknown protocol "spdy/1"`) {
		t.Fatalf("unknown protocol: %+v", r.Error)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if r := b.Load(context.Background(), probe.ProtoHTTPS, 1); !r.Failed || !strings.Contains(r.Error, "closed") {
		t.Fatalf("load after Close: %+v", r.Error)
	}
}

func TestCancelledContextFailsTheLoad(t *testing.T) {
	b := openBench(t, probe.Condition{Page: "pageA", NoLink: true}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := b.Load(ctx, probe.ProtoSPDY31, 0); !r.Failed {
		t.Fatal("a load with a cancelled context succeeded")
	}
}

// A real testbed: namespaces, TUN and the user-space link at a small RTT.
func TestEmulatedLinkLoad(t *testing.T) {
	testutil.RequireRoot(t)
	c := probe.Condition{
		Page: "pageC", Shards: 2, DNS: true,
		Link: probe.Link{DownBps: 50e6, UpBps: 10e6, RTT: 10 * time.Millisecond, QueuePkts: 100, Shared: true},
		TCP:  probe.TCP{IW: 10, CC: "cubic"},
	}
	b := openBench(t, c, Options{})
	id := b.Testbed().ID()
	m := b.Manifest()
	for i, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
		r := b.Load(context.Background(), proto, i)
		if r.Failed {
			t.Fatalf("%s over the emulated link: %s", proto, r.Error)
		}
		if r.Resources != len(m.Resources) {
			t.Fatalf("%s: %d resources", proto, r.Resources)
		}
		// The page really crossed the emulated link.
		if got := int64(r.Link.Down.BytesDelivered); got < m.TotalBytes() {
			t.Fatalf("%s: link delivered %d bytes downstream, page is %d", proto, got, m.TotalBytes())
		}
		if r.Link.Up.PktsDelivered == 0 {
			t.Fatalf("%s: no packets went up the link", proto)
		}
		if r.Phases.DNS <= 0 {
			t.Errorf("%s: no DNS time with DNS across the link", proto)
		}
	}
	lc := b.Check(context.Background())
	if !lc.OK || lc.RTTConfiguredms != 10 {
		t.Errorf("link self-check: %+v", lc)
	}
	// The short check measured the rate and the queue each way.
	if lc.DownMbps < 40 || lc.DownMbps > 55 || lc.UpMbps < 8 || lc.UpMbps > 11 ||
		lc.QueueDownPkts < 95 || lc.QueueDownPkts > 105 || lc.QueueUpPkts < 95 || lc.QueueUpPkts > 105 ||
		!strings.Contains(lc.Note, "dropped at the queue") {
		t.Errorf("link self-check's rates and queues (50/10 Mbit/s, 100 packets): %+v", lc)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir("/var/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "sl-"+id) {
			t.Fatalf("namespace %s survived Close", e.Name())
		}
	}
}

// Parallel benches of one page (a sweep runner's case) share one site and
// can load at the same time on loopback.
func TestParallelBenchesShareTheSite(t *testing.T) {
	work := t.TempDir()
	c := probe.Condition{Page: "youtube", Shards: 3, NoLink: true}
	benches := make([]*Bench, 4)
	errs := make(chan error, len(benches))
	for i := range benches {
		go func() {
			b, err := Open(context.Background(), c, Options{WorkDir: work, Seed: 5})
			benches[i] = b
			errs <- err
		}()
	}
	for range benches {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	results := make(chan probe.Result, len(benches))
	for i, b := range benches {
		t.Cleanup(func() { b.Close() })
		if b.SiteDir() != benches[0].SiteDir() {
			t.Fatalf("bench %d serves %s, bench 0 %s", i, b.SiteDir(), benches[0].SiteDir())
		}
		go func() { results <- b.Load(context.Background(), allProtos[i%len(allProtos)], 0) }()
	}
	for range benches {
		if r := <-results; r.Failed || r.Resources != 50 {
			t.Fatalf("%s: failed=%v %s, %d resources", r.Condition.Proto, r.Failed, r.Error, r.Resources)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(work, "pages"))
	sites := 0
	for _, e := range ents {
		if e.IsDir() {
			sites++
		}
	}
	if sites != 1 {
		t.Fatalf("%d site directories for one page", sites)
	}
}

// A caller's page (the runner's, shared by benches) is served as given and
// never changed, even when the preload policy adds links to the bench's copy.
func TestOpenUsesTheCallersPageWithoutChangingIt(t *testing.T) {
	shared, err := page.Generate("youtube", 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	shared.Name = "the caller's page"
	b := openBench(t, probe.Condition{Page: "youtube", Push: server.PushPreload, NoLink: true}, Options{Page: shared})
	if b.Manifest().Name != shared.Name {
		t.Fatalf("bench serves %q, not the caller's page", b.Manifest().Name)
	}
	links := 0
	for _, r := range b.Manifest().Resources {
		links += len(r.Headers)
	}
	if links == 0 {
		t.Fatal("preload policy added no links to the bench's page")
	}
	for i, r := range shared.Resources {
		if len(r.Headers) != 0 {
			t.Fatalf("the caller's resource %d got headers %v", i, r.Headers)
		}
	}
	if r := b.Load(context.Background(), probe.ProtoSPDY31, 0); r.Failed || r.Pushed == 0 {
		t.Fatalf("preload load: failed=%v pushed=%d %s", r.Failed, r.Pushed, r.Error)
	}
}

// openWithoutPanic is Open that turns a panic into a test failure, so one
// broken setup path does not hide the others.
func openWithoutPanic(t *testing.T, c probe.Condition, opt Options) (b *Bench, err error) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Errorf("Open panicked: %v", v)
			b, err = nil, nil
		}
	}()
	return Open(context.Background(), c, opt)
}

// A bench whose testbed or servers cannot be built is an error naming the
// cause, never a panic.
func TestOpenSetupFailureIsAnErrorNamingTheCause(t *testing.T) {
	cases := map[string]struct {
		c    probe.Condition
		opt  Options
		want string
	}{
		// netem rejects the testbed (a name only it checks), after the
		// bench's page is already on disk.
		"testbed": {probe.Condition{Page: "pageA"},
			Options{Testbed: func(cfg *netem.Config) { cfg.Name = "Not Valid" }}, `testbed name "Not Valid"`},
		// the servers cannot use the congestion control (a loopback bench
		// has no testbed to check it first).
		"servers": {probe.Condition{Page: "pageA", NoLink: true, TCP: probe.TCP{CC: "nosuchcc"}},
			Options{}, `congestion control "nosuchcc"`},
	}
	for label, c := range cases {
		c.opt.WorkDir, c.opt.Seed = t.TempDir(), 1
		b, err := openWithoutPanic(t, c.c, c.opt)
		if b != nil {
			b.Close()
		}
		if err == nil {
			t.Errorf("%s: Open succeeded", label)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to name %q", label, err, c.want)
		}
	}
}
