package loader

import (
	"context"
	"net"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// labServer runs spdylab's own server (what `spdylab serve` and the harness
// use) on one loopback port for every host of the site.
func labServer(t *testing.T, st *site, push string) Target {
	t.Helper()
	srv, err := server.New(server.Config{Root: st.dir, HostNames: st.m.Hosts, Push: push, PushMap: st.m.PushMap()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	target := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	for _, h := range st.m.Hosts {
		target.BaseURLs[h] = "https://" + ln.Addr().String()
	}
	return target
}

func TestLoadLabServerEveryProtocol(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=5k,depth=2", 2)
	target := labServer(t, st, server.PushNone)
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoSPDY3, probe.ProtoSPDY2, probe.ProtoH2} {
		res, err := Load(context.Background(), target, Options{Proto: proto, TLSVersion: "1.2"})
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		h := checkAgainstManifest(t, st, res)
		for host, n := range connsPerHost(h) {
			if (proto != probe.ProtoHTTPS && n != 1) || n > DefaultMaxConnsPerHost {
				t.Errorf("%s: %d connections to %s", proto, n, host)
			}
		}
	}
}

func TestLoadLabServerPush(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=5k,depth=2", 1)
	target := labServer(t, st, server.PushManifest)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
	if res.Pushed == 0 {
		t.Errorf("the server pushes by manifest, but no push was used")
	}
}
