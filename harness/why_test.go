package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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

// The critical path's known answers: loads through real testbeds built
// so that one category must be the largest on the path by construction.
// Each test fails if another category comes first, or if the categories
// do not add up to the PLT.

// explainedLoad loads m once with proto under c and returns the result,
// which must have a breakdown whose categories add up to its PLT.
func explainedLoad(t *testing.T, c probe.Condition, m *page.Manifest, proto string) probe.Result {
	t.Helper()
	testutil.RequireRoot(t)
	c.Page, c.Shards = m.Name, len(m.Hosts)
	b := openBench(t, c, Options{Page: m})
	r := b.Load(context.Background(), proto, 0)
	if r.Failed {
		t.Fatalf("load failed: %s", r.Error)
	}
	bd := r.Breakdown
	if bd == nil || bd.None != "" {
		t.Fatalf("no breakdown: %+v", bd)
	}
	if sum := bd.Total(); sum < r.PLTms*0.99 || sum > r.PLTms*1.01 {
		t.Fatalf("categories add up to %.1f ms, PLT %.1f ms: %v", sum, r.PLTms, bd.Ms)
	}
	t.Logf("%s PLT %.0f ms: %v; path %d steps; server retransmits %d, link lost %d", proto, r.PLTms, bd.Ms, len(bd.Path), r.ServerTCP.Retransmits(), r.Link.Down.PktsLost)
	return r
}

func generated(t *testing.T, spec string) *page.Manifest {
	t.Helper()
	m, err := page.Generate(spec, 1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantLargest(t *testing.T, r probe.Result, cats ...string) {
	t.Helper()
	got := r.Breakdown.Largest()
	for _, c := range cats {
		if got == c {
			return
		}
	}
	t.Fatalf("largest category %q (%.0f ms), want %v: %v", got, r.Breakdown.Ms[got], cats, r.Breakdown.Ms)
}

// Sixty small objects on one host at 200 ms: HTTPS's six connections
// take ten round trips, so the last object waits in the client.
func TestWhyManySmallObjectsQueueInTheClient(t *testing.T) {
	c := probe.Condition{Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 200 * time.Millisecond}}
	r := explainedLoad(t, c, generated(t, "generic:n=60,mean=1k,dist=fixed"), probe.ProtoHTTPS)
	wantLargest(t, r, probe.CatQueued)
}

// One 4 MB object over 2% loss on a fast, long link (100 Mbit/s, 100 ms):
// at the link's rate it takes 350 ms and slow start from the initial
// window adds at most 550 ms (the model's bound), so what a clean link
// would not need is loss recovery. A slower machine only adds to it.
func TestWhyOneLargeObjectOverLossIsLossRecovery(t *testing.T) {
	c := probe.Condition{Link: probe.Link{DownBps: 100e6, UpBps: 100e6, RTT: 100 * time.Millisecond, LossDown: 0.02}}
	r := explainedLoad(t, c, generated(t, "generic:n=1,mean=4m"), probe.ProtoHTTPS)
	wantLargest(t, r, probe.CatLoss, probe.CatWindowOrLoss)
}

// A server that thinks 500 ms before answering the page's one image.
func TestWhySlowServerIsServerWait(t *testing.T) {
	m := generated(t, "generic:n=2,mean=2k")
	m.Resources[1].Headers = map[string]string{page.ServerDelayHeader: "500ms"}
	c := probe.Condition{Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 20 * time.Millisecond}}
	r := explainedLoad(t, c, m, probe.ProtoH2)
	wantLargest(t, r, probe.CatServer)
}

// A server that does not think (a generated page asks for no server
// delay) answers sixty small images at once with an initial window of 64
// segments into a 10-packet downlink queue: the burst's drops hold the
// later responses' first bytes back until their retransmissions arrive
// (TCP delivers in order), so what their waits hold beyond the round trip
// and the bytes ahead of them is loss recovery, and no server wait.
func TestWhyDropsBeforeTheFirstByteAreLossRecovery(t *testing.T) {
	c := probe.Condition{TLS: probe.TLS13, TCP: probe.TCP{IW: 64},
		Link: probe.Link{DownBps: 10e6, UpBps: 10e6, RTT: 100 * time.Millisecond, QueueDown: probe.Queue{Pkts: 10}}}
	r := explainedLoad(t, c, generated(t, "generic:n=60,mean=3k,dist=fixed"), probe.ProtoSPDY31)
	if r.ServerTCP.Retransmits() == 0 || r.Link.Down.PktsQueueDrop == 0 {
		t.Fatalf("the burst dropped nothing (queue drops %d, server retransmits %d): the test's construction failed", r.Link.Down.PktsQueueDrop, r.ServerTCP.Retransmits())
	}
	wantLargest(t, r, probe.CatLoss)
	if sw := r.Breakdown.Ms[probe.CatServer]; sw > 0 {
		t.Errorf("server wait %.1f ms on a path whose server thinks 0 ms over a lossy connection: %v", sw, r.Breakdown.Ms)
	}
}

// A hundred requests with 6 KB cookies each (different, so that no header
// compression shares them) over a 1 Mbit/s uplink: about 4 s of upload.
func TestWhyNarrowUplinkIsUpload(t *testing.T) {
	m := generated(t, "generic:n=101,mean=1k,dist=fixed")
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i := 1; i < len(m.Resources); i++ {
		cookie := make([]byte, 6000)
		for j := range cookie {
			cookie[j] = letters[rng.IntN(len(letters))]
		}
		m.Resources[i].RequestHeaders = map[string]string{"cookie": "id=" + string(cookie)}
	}
	c := probe.Condition{Link: probe.Link{DownBps: 50e6, UpBps: 1e6, RTT: 20 * time.Millisecond}}
	r := explainedLoad(t, c, m, probe.ProtoH2)
	wantLargest(t, r, probe.CatSend)
}

// A script that runs 300 ms before it requests its images.
func TestWhyScriptDelayIsCompute(t *testing.T) {
	m := generated(t, "generic:n=8,mean=2k,depth=2")
	onload := 0
	for i := range m.Resources {
		if d := &m.Resources[i].Discovery; d.Kind == page.KindOnload {
			d.Delay = 300 * time.Millisecond
			onload++
		}
	}
	if onload == 0 {
		t.Fatal("the page has no script-loaded images")
	}
	c := probe.Condition{Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 10 * time.Millisecond}}
	r := explainedLoad(t, c, m, probe.ProtoH2)
	wantLargest(t, r, probe.CatCompute)
}

// Every client connection of a real HTTPS load (six to one host) finds
// the servers' record of the same connection by its port, so loss
// recovery can be charged per connection; over 3% loss the breakdown then
// charges it without the per-load note.
func TestWhyConnectionsMatchTheServersRecords(t *testing.T) {
	c := probe.Condition{Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 40 * time.Millisecond, LossDown: 0.03}}
	r := explainedLoad(t, c, generated(t, "generic:n=24,mean=40k,dist=fixed"), probe.ProtoHTTPS)
	if len(r.TCP) < 2 || r.ServerTCP == nil {
		t.Fatalf("want several client connections and the servers' records: %d client, %+v", len(r.TCP), r.ServerTCP)
	}
	peers := map[string]bool{}
	for _, s := range r.ServerTCP.Conns {
		peers[s.Peer] = true
	}
	for _, ti := range r.TCP {
		if ti.Local == "" || !peers[ti.Local] {
			t.Errorf("client connection %d (local %q) has no server record; servers saw %v", ti.ConnID, ti.Local, peers)
		}
	}
	t.Logf("servers: %d retransmits, %d RTOs (%d ms)", r.ServerTCP.Sum.Retransmits, r.ServerTCP.Sum.RTOs, r.ServerTCP.Sum.RTOTimems)
	for _, m := range r.Breakdown.Merged {
		if strings.Contains(m, "not per connection") {
			t.Errorf("loss charged per load although the records match: %q", m)
		}
	}
}

// A script that busy-loops 300 ms on Chromium's main thread before it
// requests its image: the manifest gives the image no delay, so only the
// traced main thread can say that the gap was compute.
func TestWhyChromiumScriptBusyLoopIsCompute(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	m := generated(t, "generic:n=8,mean=2k,depth=2")
	js := -1
	var children []string
	for i := range m.Resources {
		d := &m.Resources[i].Discovery
		if d.Kind != page.KindOnload {
			continue
		}
		d.Delay = 0 // no script's delay explains any gap
		if js < 0 || m.Resources[i].Parent == js {
			js = m.Resources[i].Parent
			children = append(children, m.URL(i))
		}
	}
	if js < 0 || m.Resources[js].Type != page.TypeJS {
		t.Fatal("the page has no script-loaded resources")
	}
	c := probe.Condition{Client: probe.ClientChromium, MainThreadTrace: true, TLS: probe.TLS13, Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 10 * time.Millisecond}}
	c.Page, c.Shards = m.Name, len(m.Hosts)
	b := openBench(t, c, Options{Page: m})
	script := "var t0=Date.now();while(Date.now()-t0<300){}"
	for _, u := range children {
		script += fmt.Sprintf("new Image().src=%q;", u)
	}
	script += "/*" + strings.Repeat("x", max(m.Resources[js].Size-len(script)-5, 0)) + "*/\n"
	if err := os.WriteFile(filepath.Join(b.SiteDir(), m.Resources[js].SiteFile()), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := b.Load(context.Background(), probe.ProtoH2, 0)
	if r.Failed {
		t.Fatalf("load failed: %s", r.Error)
	}
	bd := r.Breakdown
	if bd == nil || bd.None != "" {
		t.Fatalf("no breakdown: %+v", bd)
	}
	if sum := bd.Total(); sum < r.PLTms*0.99 || sum > r.PLTms*1.01 {
		t.Fatalf("categories add up to %.1f ms, PLT %.1f ms: %v", sum, r.PLTms, bd.Ms)
	}
	if len(r.MainThread) == 0 {
		var d har.Document
		json.Unmarshal(r.HAR, &d)
		t.Fatalf("no main-thread intervals; the HAR says: %s", d.Log.Comment)
	}
	busy := 0.0
	for _, iv := range r.MainThread {
		busy += iv.EndMs - iv.StartMs
	}
	t.Logf("chromium PLT %.0f ms: %v; %d main-thread intervals, %.0f ms busy", r.PLTms, bd.Ms, len(r.MainThread), busy)
	wantLargest(t, r, probe.CatCompute)
}

// Chromium over h2 with loss, two hosts: each host's one session is
// matched by its server address to the servers' record, so loss recovery
// is charged per connection, not per load.
func TestWhyChromiumLossIsChargedPerConnection(t *testing.T) {
	testutil.RequireRoot(t)
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	m, err := page.Generate("generic:n=12,mean=60k,dist=fixed", 2, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	c := probe.Condition{Client: probe.ClientChromium, TLS: probe.TLS13, Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 40 * time.Millisecond, LossDown: 0.03}}
	r := explainedLoad(t, c, m, probe.ProtoH2)
	if r.ServerTCP.Retransmits() == 0 {
		t.Skip("no retransmission in this load: nothing to charge")
	}
	for _, s := range r.ServerTCP.Conns {
		if s.Local == "" {
			t.Fatalf("a server record without its address: %+v", s)
		}
	}
	for _, note := range r.Breakdown.Merged {
		if strings.Contains(note, "not per connection") {
			t.Fatalf("loss charged per load: %q (servers %+v)", note, r.ServerTCP.Conns)
		}
	}
}
