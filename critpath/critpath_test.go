package critpath

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// entry is a HAR entry of resource id on connection conn, started at
// startMs, with the given timings.
func entry(id int, conn string, startMs float64, tm har.Timings, bodyBytes int64) har.Entry {
	rid := id
	return har.Entry{
		StartedDateTime: har.FormatTime(t0.Add(time.Duration(startMs * float64(time.Millisecond)))),
		Time:            tm.Sum(),
		Request:         har.Request{URL: "https://s1.spdylab.test/r" + string(rune('a'+id)), HeadersSize: 300},
		Response:        har.Response{Status: 200, BodySize: bodyBytes, HeadersSize: 100},
		Timings:         tm,
		Connection:      conn,
		ResourceID:      &rid,
	}
}

func doc(entries ...har.Entry) *har.Document {
	return &har.Document{Log: har.Log{Pages: []har.Page{har.NewPage(t0, "p", "", har.PageTimings{})}, Entries: entries}}
}

// twoLevel is a root of rootSize bytes referencing child 1 at offset
// (kind ref) and, on its completion, child 2 (kind onload, delay).
func twoLevel(rootSize, offset int, delay time.Duration) *page.Manifest {
	return &page.Manifest{Name: "t", Hosts: []string{"s1.spdylab.test"}, Resources: []page.Resource{
		{ID: 0, Path: "/", Host: "s1.spdylab.test", Size: rootSize, Type: page.TypeHTML, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}},
		{ID: 1, Path: "/a.js", Host: "s1.spdylab.test", Size: 1000, Type: page.TypeJS, Parent: 0, Discovery: page.Discovery{Kind: page.KindRef, Offset: offset}},
		{ID: 2, Path: "/b.jpg", Host: "s1.spdylab.test", Size: 1000, Type: page.TypeImage, Parent: 1, Discovery: page.Discovery{Kind: page.KindOnload, Delay: delay}},
	}}
}

func linkResult(plt float64) *probe.Result {
	return &probe.Result{PLTms: plt, Condition: probe.Condition{Link: probe.Link{DownBps: 8e6, UpBps: 8e6, RTT: 100 * time.Millisecond}},
		ServerTCP: &probe.ServerTCP{Conns: []probe.TCPInfo{{}}}, Link: probe.LinkCounters{Down: probe.LinkDir{PktsOffered: 10}}}
}

func checkSum(t *testing.T, b *probe.Breakdown, plt float64) {
	t.Helper()
	if b.None != "" {
		t.Fatalf("no breakdown: %s", b.None)
	}
	if got := b.Total(); math.Abs(got-plt) > plt/100 {
		t.Fatalf("categories add up to %.3f ms, PLT %.3f ms: %v", got, plt, b.Ms)
	}
}

func TestChainAttributesEveryPhaseAndGap(t *testing.T) {
	m := twoLevel(10000, 5000, 400*time.Millisecond)
	root := entry(0, "1", 0, har.Timings{Blocked: 1, DNS: -1, Connect: 300, SSL: 200, Send: 1, Wait: 150, Receive: 100}, 10000)
	// Child 1 starts when the root's middle byte arrived (452 + 50), plus 3 ms.
	js := entry(1, "1", 505, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 1, Wait: 110, Receive: 10}, 1000)
	// Child 2 starts 400 ms (its delay) plus 20 ms after the script ended (626).
	img := entry(2, "1", 1046, har.Timings{Blocked: 4, DNS: -1, Connect: -1, SSL: -1, Send: 1, Wait: 200, Receive: 5}, 1000)
	plt := 1046 + 210.0
	b := Analyze(Input{Result: linkResult(plt), Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	want := map[string]float64{
		probe.CatConnect: 100, probe.CatTLS: 200, probe.CatCompute: 400,
		probe.CatServer: 50 + 10 + 100, // each wait less one round trip
	}
	for c, v := range want {
		if math.Abs(b.Ms[c]-v) > 1.5 {
			t.Errorf("%s = %.2f ms, want %.0f (all: %v)", c, b.Ms[c], v, b.Ms)
		}
	}
	if len(b.Path) != 3 || b.Path[0].ResourceID != 0 || b.Path[2].ResourceID != 2 || b.Path[2].Trigger != page.KindOnload {
		t.Fatalf("path %+v, want root, script, image", b.Path)
	}
	if b.Largest() != probe.CatCompute {
		t.Errorf("largest %s, want compute: %v", b.Largest(), b.Ms)
	}
}

func TestFailedLoadHasNoBreakdown(t *testing.T) {
	b := Analyze(Input{Result: &probe.Result{Failed: true}})
	if b.None == "" || len(b.Ms) != 0 {
		t.Fatalf("failed load: %+v", b)
	}
}

func TestLoopbackMergesWhatItCannotTellApart(t *testing.T) {
	m := twoLevel(10000, 5000, 0)
	root := entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 2, SSL: 1, Send: 0.1, Wait: 3, Receive: 40}, 10000)
	r := &probe.Result{PLTms: 45.1, Condition: probe.Condition{NoLink: true}}
	b := Analyze(Input{Result: r, Doc: doc(root), Manifest: m})
	checkSum(t, b, 45.1)
	if b.Largest() != probe.CatReceive || b.Ms[probe.CatWait] != 3 || len(b.Merged) != 2 {
		t.Fatalf("loopback: %v, merged %q", b.Ms, b.Merged)
	}
	for _, c := range []string{probe.CatTransfer, probe.CatWindow, probe.CatRTT, probe.CatServer} {
		if b.Ms[c] != 0 {
			t.Errorf("loopback load claims %s: %v", c, b.Ms)
		}
	}
}

func TestReceiveSplitsByEvidence(t *testing.T) {
	m := &page.Manifest{Hosts: []string{"s1.spdylab.test"}, Resources: []page.Resource{{ID: 0, Size: 1 << 20, Parent: -1, Discovery: page.Discovery{Kind: page.KindRoot}}}}
	// 1 MiB at 8 Mbit/s is about 1086 ms with headers; the receive took 4000.
	root := entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: -1, Send: 0, Wait: 100, Receive: 4000}, 1<<20)
	plt := 4200.0
	for _, tc := range []struct {
		name  string
		edit  func(*probe.Result)
		want  string
		merge bool
	}{
		{"no retransmissions", func(*probe.Result) {}, probe.CatWindow, false},
		// No ports recorded: the load's retransmissions decide, and the breakdown says so.
		{"retransmissions", func(r *probe.Result) { r.ServerTCP.Sum.Retransmits = 30 }, probe.CatLoss, true},
		{"no TCP_INFO, link losses", func(r *probe.Result) { r.ServerTCP = nil; r.Link.Down.PktsLost = 20 }, probe.CatWindowOrLoss, true},
		{"no TCP_INFO, clean link", func(r *probe.Result) { r.ServerTCP = nil }, probe.CatWindow, false},
	} {
		r := linkResult(plt)
		tc.edit(r)
		b := Analyze(Input{Result: r, Doc: doc(root), Manifest: m})
		checkSum(t, b, plt)
		if b.Largest() != tc.want || (len(b.Merged) > 0) != tc.merge {
			t.Errorf("%s: largest %s, want %s; %v merged %q", tc.name, b.Largest(), tc.want, b.Ms, b.Merged)
		}
		if math.Abs(b.Ms[probe.CatTransfer]-1086) > 10 {
			t.Errorf("%s: transfer %.1f ms, want about 1086", tc.name, b.Ms[probe.CatTransfer])
		}
	}
}

// siblings is a 2000-byte root referencing a script and an image (both
// kind ref), and the root's entry on connection 1, ending at 202 ms.
func siblings() (*page.Manifest, har.Entry) {
	m := twoLevel(2000, 100, 0)
	m.Resources[2].Parent, m.Resources[2].Discovery = 0, page.Discovery{Kind: page.KindRef, Offset: 200}
	return m, entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: -1, Send: 0, Wait: 100, Receive: 2}, 2000)
}

func TestHeadOfLineCountsOtherStreamsOnTheConnection(t *testing.T) {
	m, root := siblings()
	// The script (1 MB) and the image share the connection; the image's
	// receive overlaps the script's whole receive.
	js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 1000}, 1000000)
	img := entry(2, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 1100}, 10000)
	plt := 202 + 1200.0
	b := Analyze(Input{Result: linkResult(plt), Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	if b.Largest() != probe.CatHOL {
		t.Fatalf("largest %s, want hol: %v", b.Largest(), b.Ms)
	}
}

func TestUploadBacklogCountsAsSend(t *testing.T) {
	m, root := siblings()
	js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 1100, Receive: 1}, 100)
	img := entry(2, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 2100, Receive: 1}, 100)
	// 1 MB of request headers each at 8 Mbit/s up: about 1 s per request.
	js.Request.HeadersSize, img.Request.HeadersSize = 1000000, 1000000
	plt := 202 + 2101.0
	b := Analyze(Input{Result: linkResult(plt), Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	if b.Largest() != probe.CatSend || b.Ms[probe.CatSend] < 1900 {
		t.Fatalf("largest %s (send %.0f ms), want send about 2000: %v", b.Largest(), b.Ms[probe.CatSend], b.Ms)
	}
}

func TestPLTBeyondTheLastEntryIsOtherTime(t *testing.T) {
	m := twoLevel(2000, 100, 0)
	root := entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: -1, Send: 0, Wait: 100, Receive: 2}, 2000)
	b := Analyze(Input{Result: linkResult(300), Doc: doc(root), Manifest: m})
	checkSum(t, b, 300)
	if math.Abs(b.Ms[probe.CatOther]-98) > 0.01 {
		t.Fatalf("other %.3f, want 98: %v", b.Ms[probe.CatOther], b.Ms)
	}
	if b := Analyze(Input{Result: &probe.Result{PLTms: 10, HAR: []byte("{")}}); !strings.Contains(b.None, "decode") {
		t.Fatalf("bad HAR: %+v", b)
	}
}

func TestPushAndRendererCosts(t *testing.T) {
	m, root := siblings()
	// The script was pushed: the client waited 50 ms for its bytes.
	js := entry(1, "1", 202, har.Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 0, Receive: 50}, 1000)
	js.Pushed = true
	b := Analyze(Input{Result: linkResult(252), Doc: doc(root, js), Manifest: m})
	checkSum(t, b, 252)
	if b.Ms[probe.CatPush] != 50 {
		t.Errorf("push %.1f ms, want 50: %v", b.Ms[probe.CatPush], b.Ms)
	}
	// The image starts 20 ms after the root ended: the renderer's commit
	// delay (15 ms) and its dispatch cost (3 of its 5 blocked ms) are compute.
	img := entry(2, "1", 222, har.Timings{Blocked: 5, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 1}, 100)
	b = Analyze(Input{Result: linkResult(328), Doc: doc(root, img), Manifest: m,
		Renderer: Renderer{CommitDelay: 15 * time.Millisecond, DispatchCost: 3 * time.Millisecond}})
	checkSum(t, b, 328)
	if math.Abs(b.Ms[probe.CatCompute]-18) > 0.01 || math.Abs(b.Ms[probe.CatOther]-5) > 0.01 || math.Abs(b.Ms[probe.CatQueued]-2) > 0.01 {
		t.Errorf("compute %.2f (want 18), other %.2f (want 5), queued %.2f (want 2): %v", b.Ms[probe.CatCompute], b.Ms[probe.CatOther], b.Ms[probe.CatQueued], b.Ms)
	}
}

// TestHeadOfLineCountsOtherStreamsOnTheConnection's exchange with the
// script on a second session to the same host (the loader's sessions per
// host): its bytes now share the link with the image's connection, not
// its stream queue, so the image's wait behind them is link sharing, and
// no head-of-line time remains.
func TestAnotherSessionToTheHostIsLinkSharingNotHeadOfLine(t *testing.T) {
	m, root := siblings()
	js := entry(1, "2", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 1000}, 1000000)
	img := entry(2, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 1100}, 10000)
	plt := 202 + 1200.0
	b := Analyze(Input{Result: linkResult(plt), Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	if b.Largest() != probe.CatShare || b.Ms[probe.CatHOL] != 0 {
		t.Fatalf("largest %s, hol %.1f ms; want link sharing and no hol: %v", b.Largest(), b.Ms[probe.CatHOL], b.Ms)
	}
}

// An SCTP association with DATA bundled on COOKIE-ECHO is dialled at once:
// the loader times no connect, and the first request leaves one round trip
// (INIT, INIT-ACK) after the dial, so that round trip is in the first
// wait. It is the connection's set-up, not the server's; without bundling
// the dial waits for COOKIE-ACK and the connect is timed.
func TestSCTPHandshakeInTheFirstWaitIsConnect(t *testing.T) {
	m := twoLevel(10000, 5000, 0)
	for _, tc := range []struct {
		name      string
		noBundle  bool
		connectMs float64 // the HAR's connect of the first entry
		wantConn  float64
	}{
		{"bundled", false, 0.2, 100.2},
		{"not bundled", true, 200, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firstWait := 250.0 // bundled: INIT round trip + request round trip + 50 ms of server
			if tc.noBundle {
				firstWait = 150
			}
			root := entry(0, "1", 0, har.Timings{Blocked: 1, DNS: -1, Connect: tc.connectMs, SSL: -1, Send: 0, Wait: firstWait, Receive: 20}, 10000)
			st := 1 + tc.connectMs + firstWait + 10 // the middle of the root's receive
			js := entry(1, "1", st, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 110, Receive: 10}, 1000)
			img := entry(2, "1", st+120, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 110, Receive: 10}, 1000)
			plt := st + 240
			r := linkResult(plt)
			r.Condition.Proto = "spdy/3.1+sctp"
			r.Condition.SCTP.NoBundleCookie = tc.noBundle
			b := Analyze(Input{Result: r, Doc: doc(root, js, img), Manifest: m})
			checkSum(t, b, plt)
			if math.Abs(b.Ms[probe.CatConnect]-tc.wantConn) > 1.5 {
				t.Errorf("connect %.1f ms, want %.1f (all: %v)", b.Ms[probe.CatConnect], tc.wantConn, b.Ms)
			}
			if math.Abs(b.Ms[probe.CatServer]-(50+10+10)) > 1.5 {
				t.Errorf("server wait %.1f ms, want 70: each wait less its round trips (all: %v)", b.Ms[probe.CatServer], b.Ms)
			}
		})
	}
}

// A multiplexed session's later request waits (blocked) while the
// session, opened for the host's first request, connects and shakes
// hands: that wait is the set-up HTTPS's request would spend on a
// connection of its own, timed there as connect and tls, not client
// queueing. Only what lies beyond the set-up is queueing.
func TestWaitThroughTheSessionsSetUpIsSetUp(t *testing.T) {
	m, root := siblings()
	root.Connection = "0"
	js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: 300, SSL: 200, Send: 0, Wait: 100, Receive: 10}, 1000)
	for _, tc := range []struct {
		blocked, wantQueued float64
		start               float64 // the image's; the session's opener starts at 202
	}{{300, 0, 202}, {340, 40, 202}, {300.5, 0, 201.5}} {
		// The last row: the image was queued half a millisecond before the
		// request that opened the session, in the same instant.
		img := entry(2, "1", tc.start, har.Timings{Blocked: tc.blocked, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 50}, 1000)
		plt := tc.start + tc.blocked + 150
		b := Analyze(Input{Result: linkResult(plt), Doc: doc(root, js, img), Manifest: m})
		checkSum(t, b, plt)
		// The root's own connect (100 ms) and the session's 100 ms TCP and
		// 200 ms TLS the image waited through.
		if math.Abs(b.Ms[probe.CatConnect]-200) > 1.5 || math.Abs(b.Ms[probe.CatTLS]-200) > 1.5 || math.Abs(b.Ms[probe.CatQueued]-tc.wantQueued) > 1.5 {
			t.Errorf("blocked %.0f ms: connect %.1f, tls %.1f, queued %.1f ms; want 200, 200, %.0f (all: %v)",
				tc.blocked, b.Ms[probe.CatConnect], b.Ms[probe.CatTLS], b.Ms[probe.CatQueued], tc.wantQueued, b.Ms)
		}
	}
}

// A response queued on a session behind other streams' bytes while the
// session is still in slow start waits for acknowledgements, not for the
// server: that part of its wait is the sender's window. On a keep-alive
// connection whose request follows the earlier response, there is no
// ramp to wait for.
func TestWaitBehindTheSessionsSlowStartIsTheWindow(t *testing.T) {
	m, root := siblings()
	// The script's 40 KB arrive over three round trips of a 3-segment
	// initial window.
	js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 300}, 40000)
	for _, tc := range []struct {
		name                          string
		start, wait                   float64 // the image's request and wait for its first byte
		windowLo, windowHi, serverMax float64
	}{
		// Requested with the script: its first byte comes after the script's.
		{"multiplexed", 202, 400, 150, 300, 100},
		// Requested once the script is in: no ramp left to wait for.
		{"keep-alive", 602, 150, 0, 1, 51},
	} {
		img := entry(2, "1", tc.start, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: tc.wait, Receive: 1}, 1000)
		plt := tc.start + tc.wait + 1
		r := linkResult(plt)
		r.Condition.TCP.IW = 3
		b := Analyze(Input{Result: r, Doc: doc(root, js, img), Manifest: m})
		checkSum(t, b, plt)
		if w, s := b.Ms[probe.CatWindow], b.Ms[probe.CatServer]; w < tc.windowLo || w > tc.windowHi || s > tc.serverMax {
			t.Errorf("%s: window %.0f ms, server %.0f ms; want %.0f-%.0f ms of window and at most %.0f ms of server: %v",
				tc.name, w, s, tc.windowLo, tc.windowHi, tc.serverMax, b.Ms)
		}
	}
}
