package browser

import (
	"strings"
	"testing"
)

func TestCheckNegotiated(t *testing.T) {
	seen := func(tls, protos []string) tally {
		t := tally{tlsSeen: map[string]bool{}, protoSeen: map[string]bool{}}
		for _, v := range tls {
			t.tlsSeen[v] = true
		}
		for _, p := range protos {
			t.protoSeen[p] = true
		}
		return t
	}
	for _, c := range []struct {
		name, proto, tls string
		t                tally
		wantErr          string // "" = passes
	}{
		{"h3 at TLS 1.3", "h3", "1.3", seen([]string{"QUIC"}, []string{"h3"}), ""},
		{"h3 under the default TLS 1.2: QUIC runs 1.3", "h3", "1.2", seen([]string{"QUIC"}, []string{"h3"}), ""},
		{"h3 at 1.2 beside a third party's HTTPS at 1.2", "h3", "1.2", seen([]string{"QUIC", "TLS 1.2"}, []string{"h3"}), ""},
		{"h3 at 1.2, a TCP connection not capped", "h3", "1.2", seen([]string{"QUIC", "TLS 1.3"}, []string{"h3"}), "negotiated TLS 1.3"},
		{"h3 fell back to TCP", "h3", "1.3", seen([]string{"TLS 1.3"}, []string{"h3", "h2"}), "fetched page resources over h2"},
		{"h2 capped at 1.2", "h2", "1.2", seen([]string{"TLS 1.2"}, []string{"h2"}), ""},
		{"servers not capped", "h2", "1.2", seen([]string{"TLS 1.3"}, []string{"h2"}), "negotiated TLS 1.3"},
		{"https over HTTP/1.1", "https", "1.2", seen([]string{"TLS 1.2"}, []string{"http/1.1"}), ""},
		{"https answered over h2", "https", "1.2", seen([]string{"TLS 1.2"}, []string{"h2"}), "asked for https"},
		{"Chromium's own choice", "", "", seen([]string{"TLS 1.3"}, []string{"h2", "http/1.1"}), ""},
	} {
		err := checkNegotiated(c.proto, c.tls, c.t)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
	if got := tlsOfSecurityDetails("TLS 1.2"); got != "TLS 1.2" {
		t.Errorf("tlsOfSecurityDetails(TLS 1.2) = %q", got)
	}
}
