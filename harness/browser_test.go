package harness

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/browser"
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
