package loader

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// plainTarget points every host of st at addr over plaintext.
func plainTarget(st *site, addr string) Target {
	t := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	for _, h := range st.m.Hosts {
		t.BaseURLs[h] = "http://" + addr
	}
	return t
}

// TestPlaintextEveryProtocol loads a page without TLS over each protocol
// from one server's plain listeners (server.ServePlain): HTTP/1.1 and h2c
// share one, each SPDY version has its own.
func TestPlaintextEveryProtocol(t *testing.T) {
	st := newSite(t, "generic:n=25,mean=4k,depth=2", 2)
	srv, err := server.New(server.Config{Root: st.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	listen := func(proto string) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.ServePlain(l, proto)
		return l.Addr().String()
	}
	httpAddr := listen(server.ProtoHTTP11)
	for proto, addr := range map[string]string{
		probe.ProtoHTTPS:  httpAddr,
		probe.ProtoH2:     httpAddr,
		probe.ProtoSPDY31: listen(server.ProtoSPDY31),
		probe.ProtoSPDY3:  listen(server.ProtoSPDY3),
		probe.ProtoSPDY2:  listen(server.ProtoSPDY2),
	} {
		res, err := Load(context.Background(), plainTarget(st, addr), Options{Proto: proto, TLSVersion: TLSNone})
		if err != nil {
			t.Fatalf("plaintext %s: %v", proto, err)
		}
		checkAgainstManifest(t, st, res)
		if res.Condition.TLS != TLSNone || res.TLS != (probe.TLSHandshakes{}) {
			t.Errorf("plaintext %s: TLS %q, handshakes %+v; want none and no handshakes", proto, res.Condition.TLS, res.TLS)
		}
		checkPlainHAR(t, proto, res.HAR)
	}
}

// checkPlainHAR: a plaintext load's HAR has no ssl phase and names the
// protocol as a TLS load's HAR does.
func checkPlainHAR(t *testing.T, proto string, doc []byte) {
	t.Helper()
	var h har.Document
	if err := json.Unmarshal(doc, &h); err != nil {
		t.Fatalf("plaintext %s: HAR: %v", proto, err)
	}
	connected := 0
	for _, e := range h.Log.Entries {
		if e.Timings.Connect >= 0 {
			connected++
		}
		if e.Timings.SSL != -1 || e.Response.HTTPVersion != har.HTTPVersion(proto) {
			t.Errorf("plaintext %s: entry %s has ssl %v and httpVersion %q; want -1 and %q", proto, e.Request.URL, e.Timings.SSL, e.Response.HTTPVersion, har.HTTPVersion(proto))
			return
		}
	}
	if connected == 0 {
		t.Errorf("plaintext %s: no entry carries its connection's set-up", proto)
	}
}

func TestPlaintextRefusals(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 1)
	plain := plainTarget(st, "127.0.0.1:1")
	tlsTarget := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://127.0.0.1:1"}}
	for _, tc := range []struct {
		name   string
		target Target
		opt    Options
		want   string
	}{
		{"h3", plain, Options{Proto: probe.ProtoH3, TLSVersion: TLSNone}, "not h3"},
		{"resume", plain, Options{Proto: probe.ProtoHTTPS, TLSVersion: TLSNone, TLSResume: true}, "resume"},
		{"https base", tlsTarget, Options{Proto: probe.ProtoHTTPS, TLSVersion: TLSNone}, "is not http://"},
		{"http base", plain, Options{Proto: probe.ProtoHTTPS, TLSVersion: "1.3"}, `needs TLS version "none"`},
	} {
		_, err := Load(context.Background(), tc.target, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
