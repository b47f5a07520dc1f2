package critpath

import (
	"math"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Two HTTPS connections to one host: the servers' record of connection 2
// (client port 40002) retransmitted, connection 1's (port 40001) did not.
// Each child's receive is long enough that its rest is window or loss.
func twoConnLoad(lastOnLossy bool) (*probe.Result, *har.Document) {
	_, root := siblings()
	clean, lossy := 3000.0, 2500.0
	if lastOnLossy {
		clean, lossy = 2500, 3000
	}
	js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: clean}, 100000)
	img := entry(2, "2", 202, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: -1, Send: 0, Wait: 100, Receive: lossy - 100}, 100000)
	r := linkResult(202 + 100 + 3000)
	r.TCP = []probe.TCPInfo{
		{ConnID: 1, Host: "s1.spdylab.test", Local: "10.0.0.1:40001", Peer: "10.0.1.1:443"},
		{ConnID: 2, Host: "s1.spdylab.test", Local: "10.0.0.1:40002", Peer: "10.0.1.1:443"},
	}
	r.ServerTCP = probe.NewServerTCP([]probe.TCPInfo{
		{ConnID: 1, Host: "s1.spdylab.test", Local: "10.0.1.1:443", Peer: "10.0.0.1:40002", Retransmits: 40, BytesAcked: 300000},
		{ConnID: 2, Host: "s1.spdylab.test", Local: "10.0.1.1:443", Peer: "10.0.0.1:40001", BytesAcked: 300000},
		{ConnID: 3, Host: "s1.spdylab.test", Local: "10.0.1.1:443", Peer: "10.0.0.1:40003"}, // a preconnect never used
	})
	return r, doc(root, js, img)
}

func TestLossRecoveryIsChargedToItsConnection(t *testing.T) {
	m, _ := siblings()
	for _, tc := range []struct {
		name        string
		lastOnLossy bool
		oldRecords  bool // stored before Local was recorded
		wantLoss    bool
		wantPerLoad bool
	}{
		{"path on the clean connection", false, false, false, false},
		{"path on the lossy connection", true, false, true, false},
		{"no ports recorded: per load", false, true, true, true},
	} {
		r, d := twoConnLoad(tc.lastOnLossy)
		if tc.oldRecords {
			for i := range r.TCP {
				r.TCP[i].Local = ""
			}
		}
		b := Analyze(Input{Result: r, Doc: d, Manifest: m})
		checkSum(t, b, r.PLTms)
		if got := b.Ms[probe.CatLoss] > 0; got != tc.wantLoss {
			t.Errorf("%s: loss %.0f ms, want loss %v: %v", tc.name, b.Ms[probe.CatLoss], tc.wantLoss, b.Ms)
		}
		if !tc.wantLoss && b.Largest() != probe.CatWindow {
			t.Errorf("%s: largest %s, want window: %v", tc.name, b.Largest(), b.Ms)
		}
		perLoad := strings.Contains(strings.Join(b.Merged, "\n"), "not per connection")
		if perLoad != tc.wantPerLoad {
			t.Errorf("%s: merged %q, want the per-load note %v", tc.name, b.Merged, tc.wantPerLoad)
		}
	}
}

// Chromium's HAR names DevTools' socket ids, not the ss records' numbers:
// without server addresses in its HAR its loads are charged per load, even
// when ports were recorded.
func TestChromiumLossStaysPerLoad(t *testing.T) {
	m, _ := siblings()
	r, d := twoConnLoad(false)
	r.Condition.Client = probe.ClientChromium
	b := Analyze(Input{Result: r, Doc: d, Manifest: m})
	checkSum(t, b, r.PLTms)
	if b.Ms[probe.CatLoss] == 0 || !strings.Contains(strings.Join(b.Merged, "\n"), "not per connection") {
		t.Fatalf("chromium: %v, merged %q; want per-load loss", b.Ms, b.Merged)
	}
}

// Chromium's traced main thread: the gap between the script's last byte
// and the image's request is compute where the thread was busy, and the
// manifest's delay (none here) adds nothing; without the trace the gap is
// other client time.
func TestMainThreadBusyInAGapIsCompute(t *testing.T) {
	m := twoLevel(10000, 5000, 0)
	root := entry(0, "1", 0, har.Timings{Blocked: 0, DNS: -1, Connect: 100, SSL: -1, Send: 0, Wait: 100, Receive: 10}, 10000)
	js := entry(1, "1", 210, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 10}, 1000)
	// The script ends at 320; the image is requested at 650.
	img := entry(2, "1", 650, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 100, Receive: 10}, 1000)
	plt := 760.0
	r := linkResult(plt)
	b := Analyze(Input{Result: r, Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	if b.Ms[probe.CatCompute] != 0 || b.Ms[probe.CatOther] < 329 {
		t.Fatalf("untraced: compute %.1f, other %.1f; want the gap as other: %v", b.Ms[probe.CatCompute], b.Ms[probe.CatOther], b.Ms)
	}
	r.MainThread = []probe.BusyInterval{{StartMs: 100, EndMs: 150}, {StartMs: 321, EndMs: 621, What: "EvaluateScript", URL: "https://s1.spdylab.test/a.js"}, {StartMs: 640, EndMs: 700}}
	b = Analyze(Input{Result: r, Doc: doc(root, js, img), Manifest: m})
	checkSum(t, b, plt)
	// 300 ms of script and 10 ms of the last task before the request.
	if got := b.Ms[probe.CatCompute]; got < 309.9 || got > 310.1 || b.Largest() != probe.CatCompute {
		t.Fatalf("traced: compute %.1f ms, want 310, largest: %v", got, b.Ms)
	}
}

// Chromium's HAR names its connections by DevTools' ids and its servers'
// addresses: a server address with one connection (an h2 session per
// host) is that connection's evidence; one with several (HTTPS) is only
// evidence when none of them retransmitted.
func TestChromiumLossByServerAddress(t *testing.T) {
	m, _ := siblings()
	for _, tc := range []struct {
		name        string
		lossyIP     string // the lossy connection's server address; the clean one is 10.0.1.1
		wantLoss    bool
		wantPerLoad bool
	}{
		{"one connection per address, path on the clean one", "10.0.2.1", false, false},
		{"two connections at one address, one lossy", "10.0.1.1", true, true},
	} {
		r, d := twoConnLoad(false)
		r.Condition.Client = probe.ClientChromium
		d.Log.Entries[0].ServerIPAddress, d.Log.Entries[1].ServerIPAddress = "10.0.1.1", "10.0.1.1"
		d.Log.Entries[2].ServerIPAddress = tc.lossyIP
		r.ServerTCP.Conns[0].Local = tc.lossyIP + ":443" // the lossy one
		b := Analyze(Input{Result: r, Doc: d, Manifest: m})
		checkSum(t, b, r.PLTms)
		if got := b.Ms[probe.CatLoss] > 0; got != tc.wantLoss {
			t.Errorf("%s: loss %.0f ms, want loss %v: %v", tc.name, b.Ms[probe.CatLoss], tc.wantLoss, b.Ms)
		}
		if perLoad := strings.Contains(strings.Join(b.Merged, "\n"), "not per connection"); perLoad != tc.wantPerLoad {
			t.Errorf("%s: merged %q, want the per-load note %v", tc.name, b.Merged, tc.wantPerLoad)
		}
	}
}

// The rest of a wait for the first byte, after the round trip: a script
// whose first byte came 900 ms after its request on a 100 ms path, with
// nothing else on the link. The manifest's server delay is server wait;
// what remains is the server's on a connection that retransmitted nothing,
// loss recovery on one that did (TCP held the byte back behind a lost
// segment), and the window or loss where no TCP_INFO tells.
func TestWaitRestIsLossRecoveryOnALossyConnection(t *testing.T) {
	perConn := func(rt uint32) func(*probe.Result) {
		return func(r *probe.Result) {
			r.TCP = []probe.TCPInfo{{ConnID: 1, Local: "10.0.0.1:40001", Peer: "10.0.1.1:443"}}
			r.ServerTCP = probe.NewServerTCP([]probe.TCPInfo{{ConnID: 1, Local: "10.0.1.1:443", Peer: "10.0.0.1:40001", Retransmits: rt}})
		}
	}
	for _, tc := range []struct {
		name        string
		think       string // the script's server delay header ("": none)
		edit        func(*probe.Result)
		want        map[string]float64 // ms of the wait's 800-ms rest
		wantMerged  string             // a note the breakdown must carry
		wantNoNotes bool
	}{
		{"clean connection", "", perConn(0), map[string]float64{probe.CatServer: 800}, "", true},
		{"its connection retransmitted", "", perConn(3), map[string]float64{probe.CatLoss: 800}, "", true},
		{"known think time, lossy connection", "300ms", perConn(3), map[string]float64{probe.CatServer: 300, probe.CatLoss: 500}, "", true},
		{"known think time, clean connection", "300ms", perConn(0), map[string]float64{probe.CatServer: 800}, "", true},
		{"the load retransmitted, no ports", "", func(r *probe.Result) { r.ServerTCP.Sum.Retransmits = 3 }, map[string]float64{probe.CatLoss: 800}, "not per connection", false},
		{"no TCP_INFO, the link dropped", "", func(r *probe.Result) { r.ServerTCP = nil; r.Link.Down.PktsQueueDrop = 5 },
			map[string]float64{probe.CatWindowOrLoss: 800}, "the link dropped packets", false},
	} {
		m, root := siblings()
		if tc.think != "" {
			m.Resources[1].Headers = map[string]string{page.ServerDelayHeader: tc.think}
		}
		js := entry(1, "1", 202, har.Timings{Blocked: 0, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 900, Receive: 1}, 100)
		r := linkResult(202 + 901)
		tc.edit(r)
		b := Analyze(Input{Result: r, Doc: doc(root, js), Manifest: m})
		checkSum(t, b, r.PLTms)
		for _, c := range []string{probe.CatServer, probe.CatLoss, probe.CatWindowOrLoss} {
			// The root's own wait is one round trip: nothing of it is left.
			if math.Abs(b.Ms[c]-tc.want[c]) > 1 {
				t.Errorf("%s: %s = %.1f ms, want %.0f: %v", tc.name, c, b.Ms[c], tc.want[c], b.Ms)
			}
		}
		notes := strings.Join(b.Merged, "\n")
		if tc.wantNoNotes && notes != "" {
			t.Errorf("%s: merged %q, want none", tc.name, notes)
		}
		if !strings.Contains(notes, tc.wantMerged) {
			t.Errorf("%s: merged %q, want a note with %q", tc.name, notes, tc.wantMerged)
		}
	}
}
