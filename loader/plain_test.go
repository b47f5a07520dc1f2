package loader

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

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

func TestPlaintextHTTP1AndSPDY(t *testing.T) {
	st := newSite(t, "generic:n=25,mean=4k,depth=2", 2)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Files as they are (http.FileServer would redirect /index.html).
	root, err := os.OpenRoot(st.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h1 := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := root.ReadFile(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})}
	go h1.Serve(ln)
	defer h1.Close()

	spdySrv, err := server.New(server.Config{Root: st.dir, PlainSPDY: probe.ProtoSPDY31})
	if err != nil {
		t.Fatal(err)
	}
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go spdySrv.Serve(sl)
	defer spdySrv.Close()
	spdy2Srv, err := server.New(server.Config{Root: st.dir, PlainSPDY: probe.ProtoSPDY2})
	if err != nil {
		t.Fatal(err)
	}
	sl2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go spdy2Srv.Serve(sl2)
	defer spdy2Srv.Close()

	for proto, addr := range map[string]string{probe.ProtoHTTPS: ln.Addr().String(), probe.ProtoSPDY31: sl.Addr().String(), probe.ProtoSPDY2: sl2.Addr().String()} {
		res, err := Load(context.Background(), plainTarget(st, addr), Options{Proto: proto, TLSVersion: TLSNone})
		if err != nil {
			t.Fatalf("plaintext %s: %v", proto, err)
		}
		checkAgainstManifest(t, st, res)
		if res.Condition.TLS != TLSNone || res.TLS != (probe.TLSHandshakes{}) {
			t.Errorf("plaintext %s: TLS %q, handshakes %+v; want none and no handshakes", proto, res.Condition.TLS, res.TLS)
		}
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
		{"h2c", plain, Options{Proto: probe.ProtoH2, TLSVersion: TLSNone}, "not h2"},
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
