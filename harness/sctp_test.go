package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// TestPlaintextBenchLoadsOverTCPAndSCTPThroughALossyLink is the SCTP
// study's comparison end to end: one plaintext bench on an emulated 5 Mbit/s,
// 100 ms, 2% loss link serves spdy/3.1 over TCP and over SCTP; both load
// pageA completely, the SCTP load carries both ends' transport counters and
// the TCP load none.
func TestPlaintextBenchLoadsOverTCPAndSCTPThroughALossyLink(t *testing.T) {
	testutil.RequireRoot(t)
	c := probe.Condition{Page: "pageA", TLS: probe.TLSNone, Link: probe.Link{
		DownBps: 5e6, UpBps: 5e6, RTT: 100 * time.Millisecond, LossDown: 0.02, LossUp: 0.02, QueuePkts: 50, Shared: true},
		TCP:  probe.TCP{CC: "cubic"},
		SCTP: probe.SCTP{Streams: 8}}
	b := openBench(t, c, Options{})
	ctx := context.Background()
	for run := range 2 {
		tcp := b.Load(ctx, probe.ProtoSPDY31, run)
		if tcp.Failed {
			t.Fatalf("spdy/3.1 over plain TCP: %s", tcp.Error)
		}
		if tcp.SCTP != nil {
			t.Errorf("a TCP load reports SCTP counters %+v", tcp.SCTP)
		}
		if tcp.TLS.Full != 0 || tcp.Resources != len(b.Manifest().Resources) {
			t.Errorf("plain TCP load: %d TLS handshakes, %d of %d resources", tcp.TLS.Full, tcp.Resources, len(b.Manifest().Resources))
		}
		r := b.Load(ctx, probe.ProtoSPDY31SCTP, run)
		if r.Failed {
			t.Fatalf("spdy/3.1 over SCTP: %s", r.Error)
		}
		if r.Resources != len(b.Manifest().Resources) || r.Connections != 1 {
			t.Errorf("SCTP load: %d of %d resources over %d associations", r.Resources, len(b.Manifest().Resources), r.Connections)
		}
		s := r.SCTP
		if s == nil {
			t.Fatal("SCTP load without SCTP counters")
		}
		t.Logf("run %d: PLT tcp %.0f ms, sctp %.0f ms; counters %+v", run, tcp.PLTms, r.PLTms, *s)
		if s.Associations != 1 || s.Client.SACKsSent == 0 || s.Server.DataChunksSent == 0 || s.Server.SACKsReceived == 0 {
			t.Errorf("counters do not describe one association carrying the page: %+v", *s)
		}
		if s.Server.FastRetransmissions+s.Server.TimeoutRetransmissions != s.Server.Retransmissions {
			t.Errorf("server retransmissions %d are not fast %d + timeout %d", s.Server.Retransmissions, s.Server.FastRetransmissions, s.Server.TimeoutRetransmissions)
		}
		if r.BytesWireIn < b.Manifest().TotalBytes() {
			t.Errorf("SCTP load received %d wire bytes, less than the page's %d", r.BytesWireIn, b.Manifest().TotalBytes())
		}
	}
}

// TestSCTPNeedsPlaintext: the SCTP protocol refuses a TLS bench and a TLS
// condition with an error naming the fix.
func TestSCTPNeedsPlaintext(t *testing.T) {
	if _, err := probe.Normalize(probe.Condition{Page: "pageA", Proto: probe.ProtoSPDY31SCTP, TLS: probe.TLS12}); err == nil || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("spdy/3.1+sctp with TLS 1.2: %v", err)
	}
	if err := checkPlainProto(probe.Condition{TLS: probe.TLS12}, probe.ProtoSPDY31SCTP); err == nil {
		t.Error("a TLS bench accepted an SCTP load")
	}
}
