package harness

import (
	"context"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// TestStack2012TLSReachesTheWire loads a page with the 2012 stack's TLS
// (tls 1.0, tls_kx rsa) and with the defaults, and checks what the
// handshakes negotiated, as the stored result says: the switches change
// the version and suite of every connection, for HTTPS and SPDY alike.
func TestStack2012TLSReachesTheWire(t *testing.T) {
	cases := []struct {
		vals          map[string]string
		version, kx   string
		wantCondition func(probe.Condition) bool
	}{
		{map[string]string{"page": "pageC", "no_link": "true", "stack": probe.Stack2012},
			probe.TLS10, "TLS_RSA_WITH_AES_128_CBC_SHA",
			func(c probe.Condition) bool { return c.TLS == probe.TLS10 && c.TLSKx == probe.KxRSA && c.Nagle }},
		{map[string]string{"page": "pageC", "no_link": "true"},
			probe.TLS12, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
			func(c probe.Condition) bool { return c.TLS == probe.TLS12 && c.TLSKx == "" && !c.Nagle }},
	}
	for _, tc := range cases {
		c, err := probe.NewCondition(tc.vals)
		if err != nil {
			t.Fatal(err)
		}
		b := openBench(t, c, Options{})
		for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY2} {
			r := b.Load(context.Background(), proto, 0)
			if r.Failed {
				t.Fatalf("%v %s: %s", tc.vals, proto, r.Error)
			}
			if r.TLS.Version != tc.version || r.TLS.CipherSuite != tc.kx {
				t.Errorf("%v %s: negotiated %s %s, want %s %s", tc.vals, proto, r.TLS.Version, r.TLS.CipherSuite, tc.version, tc.kx)
			}
			if !tc.wantCondition(r.Condition) {
				t.Errorf("%v %s: stored condition %+v", tc.vals, proto, r.Condition)
			}
		}
	}
}
