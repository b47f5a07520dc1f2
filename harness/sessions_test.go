package harness

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// harConnsPerHost counts the distinct HAR connection ids per host.
func harConnsPerHost(t *testing.T, har []byte) map[string]int {
	t.Helper()
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
				Connection string `json:"connection"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(har, &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]map[string]bool{}
	for _, e := range doc.Log.Entries {
		host := hostOfURL(e.Request.URL)
		if ids[host] == nil {
			ids[host] = map[string]bool{}
		}
		ids[host][e.Connection] = true
	}
	out := map[string]int{}
	for h, s := range ids {
		out[h] = len(s)
	}
	return out
}

func hostOfURL(u string) string {
	for _, p := range []string{"https://", "http://"} {
		if len(u) > len(p) && u[:len(p)] == p {
			u = u[len(p):]
		}
	}
	for i := range len(u) {
		if u[i] == '/' || u[i] == ':' {
			return u[:i]
		}
	}
	return u
}

// sessions = 3 over an emulated link: SPDY and h2 loads hold exactly three
// TCP connections to each host, as the client's TCP_INFO, the servers'
// and the HAR's connection ids all say, and the critical-path breakdown
// is made; https in the same bench keeps its own pool.
func TestThreeSessionsOverTheLink(t *testing.T) {
	testutil.RequireRoot(t)
	c := probe.Condition{
		Page: "pageA", Shards: 2, Sessions: 3,
		Link: probe.Link{DownBps: 20e6, UpBps: 5e6, RTT: 20 * time.Millisecond, QueuePkts: 100, Shared: true},
	}
	b := openBench(t, c, Options{})
	hosts := b.Manifest().Hosts
	for i, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2, probe.ProtoHTTPS} {
		r := b.Load(context.Background(), proto, i)
		if r.Failed {
			t.Fatalf("%s: %s", proto, r.Error)
		}
		if r.Condition.Sessions != 3 {
			t.Errorf("%s: result's condition has sessions %d", proto, r.Condition.Sessions)
		}
		if r.Breakdown == nil {
			t.Errorf("%s: no critical-path breakdown", proto)
		}
		if proto == probe.ProtoHTTPS {
			continue
		}
		client, server := map[string]int{}, map[string]int{}
		for _, ti := range r.TCP {
			client[ti.Host]++
		}
		if r.ServerTCP == nil {
			t.Fatalf("%s: no server TCP_INFO", proto)
		}
		for _, ti := range r.ServerTCP.Conns {
			server[ti.Host]++
		}
		inHAR := harConnsPerHost(t, r.HAR)
		for _, h := range hosts {
			if client[h] != 3 || server[h] != 3 || inHAR[h] != 3 {
				t.Errorf("%s: to %s the client counted %d connections, the server %d, the HAR %d; want 3", proto, h, client[h], server[h], inHAR[h])
			}
		}
	}
}
