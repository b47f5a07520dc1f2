package server

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/probe"
)

// TestNagleLeavesTCPNoDelayOff reads TCP_NODELAY back on accepted
// connections (the server's /_spdylab/info reports its own socket): Go
// sets it on every TCP connection, Config.Nagle clears it, for every TCP
// protocol the server speaks.
func TestNagleLeavesTCPNoDelayOff(t *testing.T) {
	for _, nagle := range []bool{false, true} {
		s := startServer(t, Config{Nagle: nagle})
		for _, proto := range []string{ProtoHTTP11, ProtoSPDY31, ProtoSPDY2, ProtoH2} {
			c := dial(t, s, proto, nil)
			_, body := c.do(t, "GET", s.URL()+"_spdylab/info", nil)
			c.close()
			var info RequestInfo
			if err := json.Unmarshal(body, &info); err != nil {
				t.Fatalf("%s: %v: %s", proto, err, body)
			}
			if info.NoDelay == nagle {
				t.Errorf("nagle %v, %s: accepted connection has TCP_NODELAY %v", nagle, proto, info.NoDelay)
			}
		}
	}
}

// TestTLS10WithRSAKeyExchange negotiates 2012's TLS with a server that
// lists the RSA key exchange suite and has an RSA certificate, and checks
// that a server with Go's defaults refuses it (the switch is what enables
// it, per Config, not a process-wide GODEBUG).
func TestTLS10WithRSAKeyExchange(t *testing.T) {
	ca, err := certs.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.IssueRSA("localhost")
	if err != nil {
		t.Fatal(err)
	}
	suites := probe.TLSCipherSuites(probe.KxRSA)
	client := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", NextProtos: []string{ProtoSPDY2},
		MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS10, CipherSuites: suites}

	old := startServer(t, Config{Certificate: &cert, TLSMin: tls.VersionTLS10, CipherSuites: suites, Nagle: true})
	st, err := handshake(old, client)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != tls.VersionTLS10 || st.CipherSuite != tls.TLS_RSA_WITH_AES_128_CBC_SHA || st.NegotiatedProtocol != ProtoSPDY2 {
		t.Errorf("negotiated %s %s %q, want TLS 1.0 TLS_RSA_WITH_AES_128_CBC_SHA spdy/2",
			tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), st.NegotiatedProtocol)
	}
	// A request over TLS 1.0 CBC with Nagle on: the split records (nagle.go)
	// arrive whole and in order.
	h1 := client.Clone()
	h1.NextProtos = nil
	if body := getOver(t, old, h1, "/_spdylab/bytes?n=100000&seed=7"); len(body) != 100000 {
		t.Errorf("TLS 1.0 with Nagle: %d bytes, want 100000", len(body))
	}
	modern := startServer(t, Config{Certificate: &cert, TLSMin: tls.VersionTLS10})
	if st, err := handshake(modern, client); err == nil {
		t.Errorf("a server with Go's default suites negotiated %s", tls.CipherSuiteName(st.CipherSuite))
	}
}

func handshake(s *Server, cfg *tls.Config) (tls.ConnectionState, error) {
	u, _ := url.Parse(s.URL())
	raw, err := net.Dial("tcp", u.Host)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer raw.Close()
	tc := tls.Client(raw, cfg)
	if err := tc.Handshake(); err != nil {
		return tls.ConnectionState{}, err
	}
	return tc.ConnectionState(), nil
}

// getOver fetches path over one HTTP/1.1 connection with cfg.
func getOver(t *testing.T, s *Server, cfg *tls.Config, path string) []byte {
	t.Helper()
	u, _ := url.Parse(s.URL())
	tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: false}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://localhost:" + u.Port() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
