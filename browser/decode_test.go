package browser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// A line `ss -tinpHO` printed for a Chromium socket in a testbed.
const ssSample = `ESTAB 0      31     10.200.0.1:44120 10.200.1.2:443 users:(("chromium",pid=28500,fd=27)) bbr wscale:10,10 rto:308 rtt:104.169/16.327 ato:40 mss:1448 pmtu:1500 rcvmss:1448 advmss:1448 cwnd:15 bytes_sent:2642 bytes_acked:2612 bytes_received:14353 segs_out:16 segs_in:17 data_segs_out:6 data_segs_in:14 bbr:(bw:314848bps,mrtt:100.891,pacing_gain:2.88672,cwnd_gain:2.88672) send 1668059bps lastsnd:88 lastrcv:64 lastack:64 pacing_rate 3279512bps delivery_rate 315344bps delivered:6 app_limited busy:308ms unacked:1 retrans:0/3 rcv_space:14480 rcv_ssthresh:80480 minrtt:100.891 snd_wnd:74752
ESTAB 0      0      [::1]:5000 [::1]:41234 users:(("other",pid=7,fd=3)) cubic cwnd:10 bytes_received:5
`

func TestParseSS(t *testing.T) {
	socks, err := parseSS([]byte(ssSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 2 {
		t.Fatalf("%d sockets, want 2", len(socks))
	}
	s := socks[0]
	if !s.ownedBy(map[int]bool{28500: true}) || s.ownedBy(map[int]bool{7: true}) {
		t.Errorf("pids %v", s.pids)
	}
	i := s.info
	if i.Host != "10.200.1.2:443" || i.CongestionCC != "bbr" || i.SndCwnd != 15 || i.BytesAcked != 2612 ||
		i.BytesRecv != 14353 || s.bytesSent != 2642 || i.SegsOut != 16 || i.SegsIn != 17 || i.Retransmits != 3 ||
		i.RTTms != 104.169 || i.RTTVarms != 16.327 {
		t.Errorf("parsed %+v (sent %d)", i, s.bytesSent)
	}
	if socks[1].info.CongestionCC != "cubic" || socks[1].info.Host != "[::1]:41234" {
		t.Errorf("second socket %+v", socks[1].info)
	}
	for _, bad := range []string{"ESTAB 0 0\n", "ESTAB 0 0 a:1 nothostport\n", "ESTAB 0 0 a:1 b:2 cwnd:x\n"} {
		if _, err := parseSS([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: error %v, want one naming line 1", bad, err)
		}
	}
}

func FuzzParseSS(f *testing.F) {
	f.Add([]byte(ssSample))
	f.Add([]byte("ESTAB 0 0 a:1 b:2 retrans:/ rtt:/ users:((pid=))\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		socks, err := parseSS(b)
		if err == nil {
			for _, s := range socks {
				_ = s.ownedBy(map[int]bool{1: true})
			}
		}
	})
}

func TestResolverRules(t *testing.T) {
	got, err := resolverRules(map[string]string{"s2.spdylab.test": "127.0.0.2:4431", "s1.spdylab.test": "10.200.1.2", "v6.test": "::1"})
	if err != nil {
		t.Fatal(err)
	}
	want := "MAP s1.spdylab.test 10.200.1.2,MAP s2.spdylab.test 127.0.0.2:4431,MAP v6.test [::1],MAP * ~NOTFOUND"
	if got != want {
		t.Errorf("rules\n %s\nwant\n %s", got, want)
	}
	for _, bad := range []map[string]string{{"a b": "1.2.3.4"}, {"x": "host.example"}, {"": "1.2.3.4"}} {
		if _, err := resolverRules(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// cdpStream frames messages as Chromium does on its pipe.
func cdpStream(msgs ...string) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		b.WriteString(m)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// feed decodes a pipe stream through the same path as a live load and
// returns the collector it filled, or the first error.
func feed(stream []byte) (*collector, error) {
	col := newCollector()
	c := &cdpConn{pending: map[int64]chan cdpReply{}, onEvent: col.handle}
	br := bufio.NewReader(bytes.NewReader(stream))
	for {
		msg, err := readCDPMessage(br)
		if err != nil {
			return col, err
		}
		if err := c.dispatch(msg); err != nil {
			return col, err
		}
	}
}

func TestEventsBuildExchanges(t *testing.T) {
	stream := cdpStream(
		`{"method":"Network.requestWillBeSentExtraInfo","sessionId":"S","params":{"requestId":"1","headers":{"accept":"*/*","user-agent":"x"}}}`,
		`{"method":"Network.requestWillBeSent","sessionId":"S","params":{"requestId":"1","request":{"url":"https://a.test/","method":"GET","headers":{},"initialPriority":"VeryHigh"},"timestamp":10.0,"wallTime":1700000000.0,"initiator":{"type":"other"},"type":"Document"}}`,
		`{"method":"Network.responseReceived","sessionId":"S","params":{"requestId":"1","timestamp":10.2,"type":"Document","response":{"url":"https://a.test/","status":200,"statusText":"OK","headers":{"content-type":"text/html"},"mimeType":"text/html","connectionId":7,"remoteIPAddress":"10.0.0.1","encodedDataLength":100,"protocol":"h2","timing":{"requestTime":10.001,"dnsStart":-1,"dnsEnd":-1,"connectStart":1,"connectEnd":100,"sslStart":50,"sslEnd":100,"sendStart":101,"sendEnd":102,"receiveHeadersEnd":199}}}}`,
		`{"method":"Network.dataReceived","sessionId":"S","params":{"requestId":"1","timestamp":10.25,"dataLength":5000,"encodedDataLength":5000}}`,
		`{"method":"Network.loadingFinished","sessionId":"S","params":{"requestId":"1","timestamp":10.3,"encodedDataLength":5100}}`,
		`{"method":"Page.loadEventFired","sessionId":"S","params":{"timestamp":10.4}}`,
		`{"id":5,"result":{}}`,
	)
	col, err := feed(stream)
	if err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("stream end: %v, want EOF", err)
	}
	if len(col.all) != 1 || col.loadAt != 10.4 {
		t.Fatalf("exchanges %d, onload %v", len(col.all), col.loadAt)
	}
	x := col.all[0]
	if x.reqHeaders["user-agent"] != "x" {
		t.Errorf("headers sent before their request were lost: %v", x.reqHeaders)
	}
	e, reqHdr, _ := harEntryOf(x, nil, 0, 0)
	if e.Response.BodySize != 5000 || e.Response.Content.Size != 5000 || e.Connection != "7" || reqHdr == 0 {
		t.Errorf("entry %+v", e.Entry)
	}
	tm := e.Timings
	if tm.Connect != 99 || tm.SSL != 50 || tm.Send != 1 || tm.Wait != 97 || tm.DNS != -1 {
		t.Errorf("timings %+v", tm)
	}
	if b, err := json.Marshal(e); err != nil || !bytes.Contains(b, []byte(`"_initiator":{"type":"other"}`)) {
		t.Errorf("entry JSON %s (%v)", b, err)
	}
	if _, err := feed(cdpStream(`{"method":`)); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("malformed message: %v", err)
	}
	if _, err := feed([]byte(`{"method":"x"}`)); err == nil || !strings.Contains(err.Error(), "mid-message") {
		t.Errorf("truncated stream: %v", err)
	}
}

func FuzzCDPStream(f *testing.F) {
	f.Add(cdpStream(`{"method":"Network.requestWillBeSent","params":{"requestId":"1","request":{"url":"https://a/"},"redirectResponse":{"status":301}}}`,
		`{"method":"Network.loadingFinished","params":{"requestId":"1","timestamp":1}}`))
	f.Add(cdpStream(`{"id":1,"error":{"code":-32000,"message":"x"}}`, `{"method":"Page.loadEventFired","params":{"timestamp":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		col, _ := feed(b)
		s := &session{o: &Options{}, col: col}
		var r probe.Result
		s.tally(&r, col.all, &exchange{})
	})
}

func TestPageTarget(t *testing.T) {
	m := &page.Manifest{Name: "t", Hosts: []string{"s1.spdylab.test", "s2.spdylab.test"},
		Resources: []page.Resource{{ID: 0, Path: "/index.html", Host: "s1.spdylab.test", Parent: -1}}}
	u, r, err := PageTarget(m, map[string]string{"s1.spdylab.test": "https://127.0.0.1:4431", "s2.spdylab.test": "https://127.0.0.2:4432"})
	if err != nil || u != "https://s1.spdylab.test:4431/index.html" || r["s1.spdylab.test"] != "127.0.0.1:4431" || r["s2.spdylab.test"] != "127.0.0.2:4432" {
		t.Errorf("loopback: %q %v %v", u, r, err)
	}
	u, r, err = PageTarget(m, map[string]string{"s1.spdylab.test": "https://s1.spdylab.test:443", "s2.spdylab.test": "https://s2.spdylab.test:443"})
	if err != nil || u != "https://s1.spdylab.test/index.html" || r != nil {
		t.Errorf("by name: %q %v %v", u, r, err)
	}
	m.Resources[0].Query = "q=isfahan&dcr=0" // a recorded search page
	if u, _, _ = PageTarget(m, map[string]string{"s1.spdylab.test": "https://127.0.0.1:4431", "s2.spdylab.test": "https://127.0.0.2:4432"}); u != "https://s1.spdylab.test:4431/index.html?q=isfahan&dcr=0" {
		t.Errorf("root with a query: %q", u)
	}
	for _, bad := range []map[string]string{
		{"s1.spdylab.test": "https://127.0.0.1:1"},
		{"s1.spdylab.test": "http://127.0.0.1:1", "s2.spdylab.test": "https://127.0.0.2:1"},
		{"s1.spdylab.test": "https://s1.spdylab.test", "s2.spdylab.test": "https://127.0.0.2:1"},
	} {
		if _, _, err := PageTarget(m, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestChildTargetsFeedTheNetworkOnly: once the page's session is known, an
// iframe's session (attached below it) adds its requests but neither its
// own load event nor its detaching ends or fails the page's load.
func TestChildTargetsFeedTheNetworkOnly(t *testing.T) {
	col := newCollector()
	col.setPage("P")
	c := &cdpConn{pending: map[int64]chan cdpReply{}, onEvent: col.handle}
	for _, m := range []string{
		`{"method":"Network.requestWillBeSent","sessionId":"P","params":{"requestId":"F","request":{"url":"https://ads.test/it"},"timestamp":1,"type":"Document"}}`,
		`{"method":"Target.attachedToTarget","sessionId":"P","params":{"sessionId":"C","targetInfo":{"type":"iframe"},"waitingForDebugger":true}}`,
		`{"method":"Network.responseReceived","sessionId":"C","params":{"requestId":"F","timestamp":1.1,"response":{"url":"https://ads.test/it","status":200}}}`,
		`{"method":"Network.loadingFinished","sessionId":"C","params":{"requestId":"F","timestamp":1.2}}`,
		`{"method":"Network.requestWillBeSent","sessionId":"C","params":{"requestId":"9.1","request":{"url":"https://cdn.test/a.png"},"timestamp":1.3,"type":"Image"}}`,
		`{"method":"Page.loadEventFired","sessionId":"C","params":{"timestamp":1.4}}`,
		`{"method":"Target.detachedFromTarget","sessionId":"P","params":{"sessionId":"C"}}`,
	} {
		if err := c.dispatch([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if len(col.all) != 2 || !col.all[0].finished || col.all[1].req.URL != "https://cdn.test/a.png" {
		t.Fatalf("exchanges %+v: want the frame's document finished and its image", col.all)
	}
	if col.loadAt != 0 || col.crashed != "" {
		t.Fatalf("onload %v, crashed %q: the frame's load and detaching must not count", col.loadAt, col.crashed)
	}
	c.dispatch([]byte(`{"method":"Target.detachedFromTarget","params":{"sessionId":"P"}}`))
	if col.crashed == "" {
		t.Error("the page's own session detaching went unnoticed")
	}
}

// TestBlockedResponseDoesNotFailTheLoad: a page resource whose response
// Chromium withheld from the page (opaque response blocking) was requested
// and answered, so the load goes on; any other failure ends it.
func TestBlockedResponseDoesNotFailTheLoad(t *testing.T) {
	m := &page.Manifest{Name: "t", Hosts: []string{"a.test", "b.test"}, Resources: []page.Resource{
		{ID: 0, Path: "/", Host: "a.test", Parent: -1, Type: page.TypeHTML},
		{ID: 1, Path: "/count.htm", Query: "_=1", Host: "b.test", Parent: 0, Type: page.TypeOther},
	}}
	for failure, wantErr := range map[string]bool{"net::ERR_BLOCKED_BY_ORB": false, "net::ERR_BLOCKED_BY_RESPONSE": false, "net::ERR_CONNECTION_RESET": true} {
		col := newCollector()
		col.loadAt = 2
		col.all = []*exchange{
			{req: cdpRequest{URL: "https://a.test/"}, finished: true},
			{req: cdpRequest{URL: "https://b.test/count.htm?_=1"}, finished: true, failed: failure},
		}
		s := &session{o: &Options{Manifest: m}, col: col}
		done, _, err := s.state()
		if (err != nil) != wantErr || (!wantErr && !done) {
			t.Errorf("%s: done %v, error %v; want error %v", failure, done, err, wantErr)
		}
	}
}

// TestRecordedRedirectIsAFinishedResource: a replay's recorded 3xx ends in
// a redirect; it is the page resource it stands for, so the load is done
// once its target finished too, and both count.
func TestRecordedRedirectIsAFinishedResource(t *testing.T) {
	m := &page.Manifest{Name: "t", Hosts: []string{"a.test", "b.test"}, Resources: []page.Resource{
		{ID: 0, Path: "/", Host: "a.test", Parent: -1, Type: page.TypeHTML},
		{ID: 1, Path: "/px", Host: "a.test", Parent: 0, Type: page.TypeOther, Discovery: page.Discovery{Kind: page.KindRef}},
		{ID: 2, Path: "/sync.gif", Host: "b.test", Parent: 1, Type: page.TypeImage, Discovery: page.Discovery{Kind: page.KindRedirect}},
	}}
	col := newCollector()
	col.loadAt = 2
	col.all = []*exchange{
		{req: cdpRequest{URL: "https://a.test/"}, finished: true, end: 1},
		{req: cdpRequest{URL: "https://a.test/px"}, finished: true, redirected: true, resp: &cdpResponse{Status: 302}, end: 1.5},
		{req: cdpRequest{URL: "https://b.test/sync.gif"}, finished: true, end: 1.6},
	}
	s := &session{o: &Options{Manifest: m}, col: col}
	if done, _, err := s.state(); !done || err != nil {
		t.Fatalf("done %v, error %v: want done", done, err)
	}
	var r probe.Result
	s.tally(&r, col.all, col.all[0])
	if r.Resources != 3 {
		t.Errorf("Result.Resources = %d, want 3", r.Resources)
	}
}
