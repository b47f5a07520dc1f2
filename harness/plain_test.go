package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// lines splits a log into its lines.
func lines(log string) []string {
	if log = strings.TrimSpace(log); log == "" {
		return nil
	}
	return strings.Split(log, "\n")
}

// TestPlaintextBenchLoadsEveryProtocol loads pageA without TLS over each
// TCP protocol through an emulated link: each load completes without a TLS
// handshake, and the servers' access log shows every request served in the
// protocol asked for (h2 as h2c). h3 is refused with the reason.
func TestPlaintextBenchLoadsEveryProtocol(t *testing.T) {
	testutil.RequireRoot(t)
	var log testutil.SyncBuffer
	c := probe.Condition{Page: "pageA", TLS: probe.TLSNone,
		Link: probe.Link{DownBps: 20e6, UpBps: 20e6, RTT: 20 * time.Millisecond, QueuePkts: 100, Shared: true}}
	b := openBench(t, c, Options{ServerLog: &log})
	ctx := context.Background()
	for _, tc := range []struct{ proto, served string }{
		{probe.ProtoHTTPS, server.ProtoHTTP11},
		{probe.ProtoSPDY2, server.ProtoSPDY2},
		{probe.ProtoSPDY3, server.ProtoSPDY3},
		{probe.ProtoSPDY31, server.ProtoSPDY31},
		{probe.ProtoH2, server.ProtoH2},
	} {
		log.Take()
		r := b.Load(ctx, tc.proto, 0)
		if r.Failed {
			t.Errorf("%s without TLS: %s", tc.proto, r.Error)
			continue
		}
		if r.TLS != (probe.TLSHandshakes{}) || r.Resources != len(b.Manifest().Resources) {
			t.Errorf("%s without TLS: TLS handshakes %+v, %d of %d resources", tc.proto, r.TLS, r.Resources, len(b.Manifest().Resources))
		}
		served := lines(log.Take())
		if len(served) < r.Resources {
			t.Errorf("%s: %d access log lines for %d resources", tc.proto, len(served), r.Resources)
		}
		for _, l := range served {
			if !strings.Contains(l, " "+tc.served+" GET ") {
				t.Errorf("%s load, a request the server saw otherwise: %q", tc.proto, l)
				break
			}
		}
	}
	r := b.Load(ctx, probe.ProtoH3, 0)
	if !r.Failed || !strings.Contains(r.Error, "QUIC has no plaintext") {
		t.Errorf("h3 on a plaintext bench: failed %v, error %q; want the refusal with its reason", r.Failed, r.Error)
	}
}

// TestPlainListenerFor: each protocol reaches the plain listener that
// speaks it, and only QUIC has none.
func TestPlainListenerFor(t *testing.T) {
	for proto, want := range map[string]string{
		probe.ProtoHTTPS: server.ProtoHTTP11, probe.ProtoH2: server.ProtoHTTP11,
		probe.ProtoSPDY31: server.ProtoSPDY31, probe.ProtoSPDY3: server.ProtoSPDY3, probe.ProtoSPDY2: server.ProtoSPDY2,
		probe.ProtoSPDY31SCTP: server.ProtoSPDY31, probe.ProtoH3: "",
	} {
		if got, _ := plainListenerFor(proto); got != want {
			t.Errorf("plainListenerFor(%s) = %q, want %q", proto, got, want)
		}
	}
	plain := probe.Condition{TLS: probe.TLSNone}
	if err := checkPlainProto(plain, probe.ProtoH3); err == nil {
		t.Error("a plaintext bench accepted h3")
	}
	for _, p := range probe.PlaintextProtocols() {
		if err := checkPlainProto(plain, p); err != nil {
			t.Errorf("a plaintext bench refused %s: %v", p, err)
		}
	}
}
