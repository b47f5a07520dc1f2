package harness

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/probe"
)

// hostsPage is page's hand-made recording: its own hosts www. and
// static.shop.example, third parties cdn.other.example and
// ads.tracker.example.
func hostsPage(t *testing.T) string {
	abs, err := filepath.Abs("../page/testdata/hosts.har")
	if err != nil {
		t.Fatal(err)
	}
	return "har:" + abs
}

// protocolsByHost reads each host's httpVersion from a load's HAR; a host
// answered over two protocols fails the test.
func protocolsByHost(t *testing.T, r probe.Result) map[string]string {
	t.Helper()
	if r.Failed {
		t.Fatalf("load failed: %s", r.Error)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request  struct{ URL string }
				Response struct {
					HTTPVersion string `json:"httpVersion"`
				}
			}
		}
	}
	if err := json.Unmarshal(r.HAR, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range doc.Log.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := out[u.Hostname()]; ok && v != e.Response.HTTPVersion {
			t.Errorf("host %s answered over %s and %s", u.Hostname(), v, e.Response.HTTPVersion)
		}
		out[u.Hostname()] = e.Response.HTTPVersion
	}
	return out
}

func TestDeployFirstPartyKeepsThirdPartiesOnHTTPS(t *testing.T) {
	tests := []struct {
		name  string
		cond  probe.Condition
		proto string
		want  map[string]string
	}{
		{"spdy/3.1 over TLS", probe.Condition{Deploy: probe.DeployFirstParty}, probe.ProtoSPDY31, map[string]string{
			"www.shop.example": "spdy/3.1", "static.shop.example": "spdy/3.1",
			"cdn.other.example": "HTTP/1.1", "ads.tracker.example": "HTTP/1.1"}},
		{"spdy/3.1 without TLS", probe.Condition{Deploy: probe.DeployFirstParty, TLS: probe.TLSNone}, probe.ProtoSPDY31, map[string]string{
			"www.shop.example": "spdy/3.1", "static.shop.example": "spdy/3.1",
			"cdn.other.example": "HTTP/1.1", "ads.tracker.example": "HTTP/1.1"}},
		{"h3", probe.Condition{Deploy: probe.DeployFirstParty}, probe.ProtoH3, map[string]string{
			"www.shop.example": "h3", "static.shop.example": "h3",
			"cdn.other.example": "HTTP/1.1", "ads.tracker.example": "HTTP/1.1"}},
		{"h2 with the first parties merged", probe.Condition{Deploy: probe.DeployFirstParty, Hosts: probe.HostsFirstParty}, probe.ProtoH2, map[string]string{
			"www.shop.example": "HTTP/2.0", "cdn.other.example": "HTTP/1.1", "ads.tracker.example": "HTTP/1.1"}},
		{"spdy/3.1 with a third party named first-party", probe.Condition{Deploy: probe.DeployFirstParty, FirstParty: "other.example,shop.example"}, probe.ProtoSPDY31, map[string]string{
			"www.shop.example": "spdy/3.1", "static.shop.example": "spdy/3.1",
			"cdn.other.example": "spdy/3.1", "ads.tracker.example": "HTTP/1.1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cond
			c.Page, c.NoLink = hostsPage(t), true
			b := openBench(t, c, Options{})
			r := b.Load(context.Background(), tc.proto, 0)
			got := protocolsByHost(t, r)
			for h, v := range tc.want {
				if got[h] != v {
					t.Errorf("host %s over %q, want %q (all: %v)", h, got[h], v, got)
				}
			}
			variant := 0
			for _, v := range tc.want {
				if v != "HTTP/1.1" {
					variant++
				}
			}
			if r.VariantHosts != variant || r.HTTPSHosts != len(tc.want)-variant {
				t.Errorf("result counts %d variant and %d HTTPS hosts, want %d and %d", r.VariantHosts, r.HTTPSHosts, variant, len(tc.want)-variant)
			}
		})
	}
}

// Chromium picks its protocol by ALPN: the third parties' servers offer
// http/1.1 alone.
func TestDeployFirstPartyChromium(t *testing.T) {
	if _, err := browser.FindBinary(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	c := probe.Condition{Page: hostsPage(t), NoLink: true, Client: probe.ClientChromium, Deploy: probe.DeployFirstParty}
	b := openBench(t, c, Options{})
	got := protocolsByHost(t, b.Load(context.Background(), probe.ProtoH2, 0))
	want := map[string]string{"www.shop.example": "HTTP/2.0", "static.shop.example": "HTTP/2.0",
		"cdn.other.example": "HTTP/1.1", "ads.tracker.example": "HTTP/1.1"}
	for h, v := range want {
		if got[h] != v {
			t.Errorf("host %s over %q, want %q (all: %v)", h, got[h], v, got)
		}
	}
}

// hosts one: the page loads from its document's host alone.
func TestHostsOneLoadsFromOneHost(t *testing.T) {
	b := openBench(t, probe.Condition{Page: hostsPage(t), NoLink: true, Hosts: probe.HostsOne}, Options{})
	if n := len(b.Manifest().Hosts); n != 1 || b.Condition().Shards != 1 {
		t.Fatalf("hosts one: %d hosts on %d servers, want 1 and 1", n, b.Condition().Shards)
	}
	r := b.Load(context.Background(), probe.ProtoSPDY31, 0)
	got := protocolsByHost(t, r)
	if len(got) != 1 || got["www.shop.example"] != "spdy/3.1" || r.Resources != len(b.Manifest().Resources) {
		t.Errorf("hosts one: hosts %v, %d of %d resources", got, r.Resources, len(b.Manifest().Resources))
	}
}
