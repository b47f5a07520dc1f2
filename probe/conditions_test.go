package probe

import (
	"crypto/tls"
	"strings"
	"testing"
)

func TestProtocolsAreUniqueAndFindable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Protocols {
		if p.Name == "" || p.ALPN == "" || seen[p.Name] {
			t.Fatalf("bad or duplicate protocol entry %+v", p)
		}
		seen[p.Name] = true
		if got, ok := LookupProtocol(p.Name); !ok || got.Name != p.Name || got.ALPN != p.ALPN {
			t.Fatalf("LookupProtocol(%q) = %+v, %v", p.Name, got, ok)
		}
	}
	if p, _ := LookupProtocol(ProtoSPDY31); !p.SPDY() || !p.Multiplexed {
		t.Fatalf("spdy/3.1 facts wrong: %+v", p)
	}
	if p, _ := LookupProtocol(ProtoHTTPS); p.SPDY() || p.Multiplexed || p.ALPN != "http/1.1" {
		t.Fatalf("https facts wrong: %+v", p)
	}
}

// Every command reads protocols with ParseProtocol: a name or an alias
// (http/1.1 for https), any case, gives the one stored name; no spelling
// names two protocols; an unknown one is refused with the names alone.
func TestParseProtocolTakesAliases(t *testing.T) {
	owner := map[string]string{}
	for _, p := range Protocols {
		for _, s := range append([]string{p.Name}, p.Aliases...) {
			if o, dup := owner[s]; dup {
				t.Errorf("%q names both %s and %s", s, o, p.Name)
			}
			owner[s] = p.Name
		}
	}
	for in, want := range map[string]string{"https": ProtoHTTPS, "http/1.1": ProtoHTTPS, " HTTP/1.1 ": ProtoHTTPS, "H2": ProtoH2, "spdy/3.1": ProtoSPDY31} {
		p, err := ParseProtocol(in)
		if err != nil || p.Name != want {
			t.Errorf("ParseProtocol(%q) = %q, %v; want %s", in, p.Name, err, want)
		}
	}
	_, err := ParseProtocol("http/2")
	if err == nil || strings.Contains(err.Error(), "http1.1") || !strings.Contains(err.Error(), "spdy/3.1+sctp") {
		t.Errorf("ParseProtocol(http/2): %v; want the names, not the aliases", err)
	}
	f, _ := LookupField("protocol")
	if got, err := f.Canon("http/1.1"); err != nil || got != ProtoHTTPS {
		t.Errorf("the protocol factor reads http/1.1 as %q, %v", got, err)
	}
	if !strings.Contains(AliasHelp(), "http/1.1") {
		t.Errorf("AliasHelp %q does not name http/1.1", AliasHelp())
	}
}

func TestCheckProtocolNamesTheValidOnes(t *testing.T) {
	err := CheckProtocol("spdy/9")
	if err == nil {
		t.Fatal("spdy/9 accepted")
	}
	for _, n := range ProtocolNames() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %s", err, n)
		}
	}
	if CheckProtocol("") == nil {
		t.Error("empty protocol accepted")
	}
}

func TestTLSVersions(t *testing.T) {
	for name, want := range map[string]uint16{"": tls.VersionTLS12, "1.0": tls.VersionTLS10, "1.1": tls.VersionTLS11, "1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13, "none": 0} {
		if got, err := ParseTLSVersion(name); err != nil || got != want {
			t.Errorf("ParseTLSVersion(%q) = %x, %v", name, got, err)
		}
	}
	if _, err := ParseTLSVersion("ssl3"); err == nil || !strings.Contains(err.Error(), "1.0, 1.1, 1.2, 1.3 or none") {
		t.Errorf("ssl3: %v", err)
	}
	if TLSVersionName(tls.VersionTLS13) != "1.3" || TLSVersionName(0) != TLSNone || TLSVersionName(tls.VersionSSL30) != "" {
		t.Error("TLSVersionName")
	}
}

func TestNormalize(t *testing.T) {
	c, err := Normalize(Condition{Page: "pageA"})
	if err != nil || c.ShardMode != ShardEqual || c.TLS != DefaultTLS {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, bad := range []Condition{
		{},
		{Page: "p", Shards: MaxShards + 1},
		{Page: "p", Shards: -1},
		{Page: "p", ShardMode: "random"},
		{Page: "p", TLS: "0.9"},
		{Page: "p", Proto: "gopher"},
		{Page: "p", Push: "always"},
		{Page: "p", MaxStreams: -1},
		{Page: "p", InitialWindow: 1 << 31},
	} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%+v) accepted", bad)
		}
	}
}

func TestOneOf(t *testing.T) {
	if got := OneOf([]string{"a", "b", "c"}); got != "a, b or c" {
		t.Fatal(got)
	}
	if got := OneOf([]string{"a"}); got != "a" {
		t.Fatal(got)
	}
}

func TestNormalizeMatchesTLSToProtocol(t *testing.T) {
	for _, tc := range []struct {
		proto, tls, wantErr string
	}{
		{ProtoHTTPS, TLSNone, ""},
		{ProtoSPDY2, TLSNone, ""},
		{ProtoSPDY31SCTP, TLSNone, ""},
		{ProtoH2, TLS13, ""},
		{ProtoH2, TLSNone, ""}, // h2c with prior knowledge
		{ProtoSPDY3, TLSNone, ""},
		{ProtoSPDY31, TLSNone, ""},
		{ProtoH3, TLSNone, "h3 cannot run without TLS: QUIC has no plaintext"},
		{ProtoSPDY31SCTP, TLS12, "runs without TLS"},
	} {
		_, err := Normalize(Condition{Page: "pageA", Proto: tc.proto, TLS: tc.tls})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s over tls %s: %v", tc.proto, tc.tls, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s over tls %s: error %v, want %q", tc.proto, tc.tls, err, tc.wantErr)
		}
	}
	if got := PlaintextProtocols(); strings.Join(got, " ") != "https spdy/3.1 spdy/3 spdy/2 h2 spdy/3.1+sctp" {
		t.Errorf("plaintext protocols %v", got)
	}
}
