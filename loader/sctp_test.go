package loader

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/server"
)

// TestLoadOverSCTPOnLoopback loads a two-host page over spdy/3.1+sctp from
// a lab server's SCTP listener on loopback, with and without the control
// stream: every resource matches the manifest, one association per host,
// and the counters are the client's side of those associations.
func TestLoadOverSCTPOnLoopback(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=6k,depth=2", 2)
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close() // ListenAndServeSCTP reopens the port
	for _, knobs := range []probe.SCTP{{}, {NoControlStream: true, NoBundleCookie: true, Streams: 3, CongestionControl: "htcp"}} {
		srv, err := server.New(server.Config{Root: st.dir, Plain: probe.ProtoSPDY31})
		if err != nil {
			t.Fatal(err)
		}
		cfg, opt := SCTPTransport(knobs)
		served := make(chan error, 1)
		go func() { served <- srv.ListenAndServeSCTP(addr, cfg, opt) }()
		res, err := loadWhenListening(t, st, addr, knobs)
		if err != nil {
			t.Fatalf("%+v: %v", knobs, err)
		}
		checkAgainstManifest(t, st, res)
		if res.Connections != len(st.m.Hosts) || res.SCTP == nil || res.SCTP.Associations != len(st.m.Hosts) {
			t.Errorf("%+v: %d connections, counters %+v; want one association per host (%d)", knobs, res.Connections, res.SCTP, len(st.m.Hosts))
		}
		if res.SCTP != nil && (res.SCTP.Client.PacketsSent == 0 || res.SCTP.Client.SACKsSent == 0 || res.BytesWireIn < st.m.TotalBytes()) {
			t.Errorf("%+v: counters %+v, %d wire bytes in for a %d-byte page", knobs, *res.SCTP, res.BytesWireIn, st.m.TotalBytes())
		}
		if n, _ := srv.TakeSCTPCounters(); n != len(st.m.Hosts) {
			t.Errorf("%+v: server accepted %d associations, want %d", knobs, n, len(st.m.Hosts))
		}
		srv.Close()
		if err := <-served; err != http.ErrServerClosed {
			t.Errorf("ListenAndServeSCTP after Close: %v", err)
		}
	}
}

// loadWhenListening retries the first load briefly: the server's UDP
// socket opens on its own goroutine.
func loadWhenListening(t *testing.T, st *site, addr string, k probe.SCTP) (probe.Result, error) {
	var res probe.Result
	var err error
	for range 20 {
		res, err = Load(context.Background(), plainTarget(st, addr), Options{Proto: probe.ProtoSPDY31SCTP, TLSVersion: TLSNone, SCTP: k, Timeout: 20e9})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			break
		}
	}
	return res, err
}

func TestSCTPRefusesTLS(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 1)
	_, err := Load(context.Background(), plainTarget(st, "127.0.0.1:1"), Options{Proto: probe.ProtoSPDY31SCTP, TLSVersion: "1.3"})
	if err == nil || !strings.Contains(err.Error(), "without TLS") {
		t.Errorf("spdy/3.1+sctp over TLS 1.3: %v", err)
	}
}

// TestSCTPCongestionControlsMatchTheStack: probe's list (standard library
// only) names the sctp package's modules, and each maps through.
func TestSCTPCongestionControlsMatchTheStack(t *testing.T) {
	if !slices.Equal(probe.SCTPCongestionControls, sctp.CongestionControls) {
		t.Fatalf("probe lists %v, sctp %v", probe.SCTPCongestionControls, sctp.CongestionControls)
	}
	for _, cc := range probe.SCTPCongestionControls {
		if cfg, _ := SCTPTransport(probe.SCTP{CongestionControl: cc}); cfg.CongestionControl != cc {
			t.Errorf("%s mapped to %q", cc, cfg.CongestionControl)
		}
	}
	if cfg, _ := SCTPTransport(probe.SCTP{}); cfg.CongestionControl != probe.DefaultSCTPCongestionControl {
		t.Errorf("default maps to %q", cfg.CongestionControl)
	}
}
