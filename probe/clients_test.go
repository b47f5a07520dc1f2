package probe

import (
	"strings"
	"testing"
)

func TestNormalizeClientDefaultsStayEmpty(t *testing.T) {
	for _, cl := range []string{"", ClientLoader} {
		c, err := Normalize(Condition{Page: "pageA", Client: cl, BrowserProfile: ProfileChrome16, Proto: ProtoSPDY31})
		if err != nil {
			t.Fatalf("client %q: %v", cl, err)
		}
		if c.Client != "" || c.BrowserProfile != "" {
			t.Errorf("client %q: defaults stored as %q/%q, want empty (stored hashes)", cl, c.Client, c.BrowserProfile)
		}
		if c.ClientName() != ClientLoader || c.BrowserProfileName() != ProfileChrome16 {
			t.Errorf("names %q %q", c.ClientName(), c.BrowserProfileName())
		}
	}
}

func TestNormalizeRejectsChromiumSPDYWithTheReason(t *testing.T) {
	_, err := Normalize(Condition{Page: "pageA", Client: ClientChromium, Proto: ProtoSPDY31})
	if err == nil || !strings.Contains(err.Error(), "removed SPDY") || !strings.Contains(err.Error(), "chromium") {
		t.Fatalf("chromium + spdy/3.1: %v", err)
	}
	for _, p := range []string{ProtoHTTPS, ProtoH2} {
		if _, err := Normalize(Condition{Page: "pageA", Client: ClientChromium, Proto: p}); err != nil {
			t.Errorf("chromium + %s: %v", p, err)
		}
	}
	if _, err := Normalize(Condition{Page: "pageA", Client: ClientChromium, Proto: ProtoH2, TLS: TLSNone}); err == nil {
		t.Error("chromium over plaintext accepted")
	}
	// Without a protocol (a bench) the client alone is fine.
	if _, err := Normalize(Condition{Page: "pageA", Client: ClientChromium}); err != nil {
		t.Error(err)
	}
}

func TestNormalizeClientErrorsNameTheValidValues(t *testing.T) {
	_, err := Normalize(Condition{Page: "pageA", Client: "firefox"})
	if err == nil || !strings.Contains(err.Error(), ClientChromium) || !strings.Contains(err.Error(), ClientLoader) {
		t.Fatalf("unknown client: %v", err)
	}
	_, err = Normalize(Condition{Page: "pageA", BrowserProfile: "ie6"})
	if err == nil || !strings.Contains(err.Error(), ProfileChromiumModern) {
		t.Fatalf("unknown profile: %v", err)
	}
	_, err = Normalize(Condition{Page: "pageA", Client: ClientChromium, BrowserProfile: ProfileChromiumModern})
	if err == nil || !strings.Contains(err.Error(), "real browser") {
		t.Fatalf("chromium with a loader profile: %v", err)
	}
}

// Renderer costs: the profile's default is stored empty, a pair in
// time.Duration's spelling; bad spellings, out-of-range costs and a real
// browser with loader costs are refused with the reason.
func TestNormalizeRendererCosts(t *testing.T) {
	base := Condition{Page: "pageA", Proto: ProtoH2, TLS: "1.3"}
	for in, want := range map[string]string{
		"": "", RendererFromProfile: "", "35ms/2ms": "35ms/2ms", "0.035s / 2000us": "35ms/2ms", "0s/0s": "0s/0s",
	} {
		c := base
		c.RendererCosts = in
		n, err := Normalize(c)
		if err != nil || n.RendererCosts != want {
			t.Errorf("%q: stored %q, %v; want %q", in, n.RendererCosts, err, want)
		}
	}
	for in, why := range map[string]string{
		"35ms": "COMMIT/DISPATCH", "x/2ms": "COMMIT/DISPATCH", "-1ms/2ms": "between 0s and 1s", "2s/0s": "between 0s and 1s",
		"35/2": "did you mean 35ms?",
	} {
		c := base
		c.RendererCosts = in
		if _, err := Normalize(c); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: error %v, want one saying %q", in, err, why)
		}
	}
	c := base
	c.Client, c.RendererCosts = ClientChromium, "35ms/2ms"
	if _, err := Normalize(c); err == nil || !strings.Contains(err.Error(), "spends its own") {
		t.Errorf("chromium with loader renderer costs: %v", err)
	}
}

// h3 loads at TLS 1.3 (QUIC's) whatever the condition's version, so
// Chromium takes it under the default 1.2; the stored condition keeps
// its version (and hash); plaintext and the TCP protocols keep theirs.
func TestH3LoadsAtTLS13WhateverTheDefault(t *testing.T) {
	c, err := Normalize(Condition{Page: "pageA", Proto: ProtoH3, TLS: DefaultTLS, Client: ClientChromium})
	if err != nil {
		t.Fatalf("chromium h3 at the default tls: %v", err)
	}
	if c.TLS != DefaultTLS {
		t.Errorf("stored tls %q, want the condition's %q", c.TLS, DefaultTLS)
	}
	for _, tc := range []struct{ proto, tls, want string }{
		{ProtoH3, TLS12, TLS13}, {ProtoH3, "", TLS13}, {ProtoH3, TLS13, TLS13}, {ProtoH3, TLSNone, TLSNone},
		{ProtoH2, TLS12, TLS12}, {ProtoHTTPS, "", DefaultTLS}, {ProtoSPDY31, TLSNone, TLSNone},
	} {
		if got := LoadTLS(tc.proto, tc.tls); got != tc.want {
			t.Errorf("LoadTLS(%s, %q) = %q, want %q", tc.proto, tc.tls, got, tc.want)
		}
	}
	if err := CheckClientProtocol(ClientChromium, ProtoH3, TLSNone); err == nil {
		t.Error("chromium h3 without TLS accepted")
	}
}
