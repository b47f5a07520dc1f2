package loader

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// labServerWith is labServer with the server's configuration adjusted.
func labServerWith(t *testing.T, st *site, adjust func(*server.Config)) Target {
	t.Helper()
	cfg := server.Config{Root: st.dir, HostNames: st.m.Hosts, PushMap: st.m.PushMap()}
	adjust(&cfg)
	srv, err := server.New(cfg)
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

// A page with more resources than the server's MAX_CONCURRENT_STREAMS:
// requests beyond the limit wait for a free stream (x/net's client failed
// them with "http2: client conn not usable").
func TestH2QueuesBeyondServerStreamLimit(t *testing.T) {
	st := newSite(t, "generic:n=60,mean=3k,depth=2", 1)
	target := labServerWith(t, st, func(c *server.Config) { c.H2.MaxConcurrentStreams = 4 })
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	if n := connsPerHost(h); n[st.m.Hosts[0]] != 1 {
		t.Errorf("connections per host %v, want one", n)
	}
}

// The same against nginx's HTTP/2.
func TestH2QueuesBeyondNginxStreamLimit(t *testing.T) {
	st := newSite(t, "generic:n=60,mean=3k,depth=2", 1)
	target := nginxServer(t, st, "http2_max_concurrent_streams 4;")
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
}

// 300 resources at the server's default limit.
func TestH2ManyResourcesDefaultLimit(t *testing.T) {
	st := newSite(t, "generic:n=300,mean=1k,depth=2", 1)
	target := labServerWith(t, st, func(*server.Config) {})
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstManifest(t, st, res)
}

// SPDY sessions whose server allows one stream: requests sent before the
// server's SETTINGS arrive are refused (REFUSED_STREAM) and must be sent
// again, as browsers do. With TLS 1.3 the server sends its SETTINGS only
// after the client's Finished, and each client read waits a little (as
// across a real path), so the first requests leave before SETTINGS arrive.
func TestRefusedStreamsAreRetried(t *testing.T) {
	for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2} {
		t.Run(proto, func(t *testing.T) {
			res, h := loadFromOneStreamServers(t, proto, false)
			retried := 0
			for _, e := range h.Log.Entries {
				retried += e.Retries
			}
			t.Logf("%d requests sent again", retried)
			if res.Retries != retried {
				t.Errorf("Result.Retries %d, the HAR's entries %d", res.Retries, retried)
			}
		})
	}
}

// The same sessions awaiting the server's SETTINGS keep to its one stream
// from the first request: nothing is refused.
func TestAwaitPeerSettingsSendsNothingTwice(t *testing.T) {
	for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2} {
		t.Run(proto, func(t *testing.T) {
			if res, _ := loadFromOneStreamServers(t, proto, true); res.Retries != 0 {
				t.Errorf("%d requests refused and sent again", res.Retries)
			}
		})
	}
}

// loadFromOneStreamServers loads a 30-resource page over proto from lab
// servers allowing one stream, over TLS 1.3 with slow reads.
func loadFromOneStreamServers(t *testing.T, proto string, await bool) (probe.Result, har.Document) {
	t.Helper()
	st := newSite(t, "generic:n=30,mean=2k,depth=2", 3)
	target := labServerWith(t, st, func(c *server.Config) {
		c.SPDY.MaxConcurrentStreams = 1
		c.H2.MaxConcurrentStreams = 1
	})
	res, err := Load(context.Background(), target, Options{Proto: proto, TLSVersion: "1.3", Dial: slowReadDial, AwaitPeerSettings: await})
	if err != nil {
		t.Fatal(err)
	}
	return res, checkAgainstManifest(t, st, res)
}

// slowReadDial dials TCP connections whose reads each wait 3 ms first.
func slowReadDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &slowReadConn{Conn: c}, nil
}

type slowReadConn struct{ net.Conn }

func (c *slowReadConn) Read(p []byte) (int, error) {
	time.Sleep(3 * time.Millisecond)
	return c.Conn.Read(p)
}

func (c *slowReadConn) NetConn() net.Conn { return c.Conn }

// The h2 path takes pushes from Go's HTTP/2 server and uses them.
func TestH2PushIsUsed(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=5k,depth=2", 1)
	target := labServerWith(t, st, func(c *server.Config) { c.Push = server.PushManifest })
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	if res.Pushed == 0 {
		t.Fatal("the server pushes by manifest, but no push was used")
	}
	for _, e := range h.Log.Entries {
		if e.Pushed && e.Response.HTTPVersion != har.HTTPVersion(probe.ProtoH2) { // as every h2 entry
			b, _ := json.Marshal(e)
			t.Errorf("pushed entry with version %q: %s", e.Response.HTTPVersion, b)
		}
	}
}
