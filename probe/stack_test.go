package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStack2012ExpandsEveryPiece(t *testing.T) {
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoSPDY2, "stack": Stack2012})
	if err != nil {
		t.Fatal(err)
	}
	want := Condition{Stack: Stack2012, TLS: TLS10, TLSKx: KxRSA, TLSResume: true, Nagle: true,
		TCP: TCP{IW: 3, SlowStartAfterIdle: true, Recovery: Recovery2012}}
	if c.Stack != want.Stack || c.TLS != want.TLS || c.TLSKx != want.TLSKx || !c.TLSResume || !c.Nagle || c.TCP != want.TCP {
		t.Errorf("stack 2012 stored %+v, want the pieces of %+v", c, want)
	}
}

func TestStack2012KeepsGivenPieces(t *testing.T) {
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS, "stack": Stack2012,
		"iw": "10", "tcp_recovery": RecoveryModern, "tls": TLS12, "nagle": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TCP.IW != 10 || c.TCP.Recovery != "" || c.TLS != TLS12 || c.Nagle {
		t.Errorf("given pieces overridden: %+v", c)
	}
	if !c.TCP.SlowStartAfterIdle || c.TLSKx != KxRSA {
		t.Errorf("pieces not given were not expanded: %+v", c)
	}
}

func TestStack2012LeavesWhatAProtocolCannotRun(t *testing.T) {
	for _, proto := range []string{ProtoH2, ProtoH3} {
		c, err := NewCondition(map[string]string{"page": "pageA", "protocol": proto, "stack": Stack2012, "tls": TLS13})
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		if c.TLS != TLS13 || c.TLSKx != "" || c.TCP.Recovery != Recovery2012 {
			t.Errorf("%s: %+v", proto, c)
		}
	}
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoSPDY31SCTP, "stack": Stack2012, "tls": TLSNone})
	if err != nil || c.Nagle || c.TLSKx != "" || c.TLSResume {
		t.Errorf("sctp: %+v, %v", c, err)
	}
	c, err = NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS, "stack": Stack2012, "client": ClientChromium, "tls": TLS12})
	if err != nil || c.TLSResume || c.TLSKx != "" || !c.Nagle {
		t.Errorf("chromium: %+v, %v", c, err)
	}
}

func TestModernStackStoresNothingNew(t *testing.T) {
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS, "stack": StackModern,
		"tcp_recovery": RecoveryModern, "tls_kx": KxECDHE})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	for _, key := range []string{"stack", "recovery", "nagle", "tls_kx", "false_start"} {
		if strings.Contains(string(b), `"`+key+`"`) {
			t.Errorf("default condition stores %q (old hashes would move): %s", key, b)
		}
	}
}

func TestStackRefusals(t *testing.T) {
	for _, tc := range []struct {
		c    Condition
		want string
	}{
		{Condition{Page: "p", FalseStart: true}, "crypto/tls"},
		{Condition{Page: "p", Proto: ProtoH2, TLS: TLS10}, "RFC 7540"},
		{Condition{Page: "p", Proto: ProtoH2, TLSKx: KxRSA}, "tls_kx ecdhe"},
		{Condition{Page: "p", TLS: TLS13, TLSKx: KxRSA}, "TLS 1.3 has no RSA"},
		{Condition{Page: "p", TLS: TLSNone, TLSKx: KxRSA}, "needs TLS"},
		{Condition{Page: "p", Proto: ProtoH3, TLS: TLS13, Nagle: true}, "TCP socket option"},
		{Condition{Page: "p", Client: ClientChromium, TLS: TLS10}, "Chromium removed"},
		{Condition{Page: "p", Stack: "2011"}, "unknown stack"},
		{Condition{Page: "p", TCP: TCP{Recovery: "2011"}}, "unknown tcp_recovery"},
	} {
		_, err := Normalize(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Normalize(%+v) = %v, want an error saying %q", tc.c, err, tc.want)
		}
	}
}
