package browser

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"reflect"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// TestLoadLoopbackH1H2 loads a generated study page spread over two hosts
// from spdylab's server on loopback, over HTTP/1.1 and HTTP/2.
func TestLoadLoopbackH1H2(t *testing.T) {
	requireChromium(t)
	site := newLabSite(t, "pageA", 2)
	// https over servers capped at TLS 1.2 (Chromium cannot be capped
	// itself), h2 over TLS 1.3.
	for _, tc := range []struct {
		proto, tls string
		max        uint16
	}{{probe.ProtoHTTPS, "1.2", tls.VersionTLS12}, {probe.ProtoH2, "1.3", 0}} {
		t.Run(tc.proto, func(t *testing.T) {
			pageURL, resolve := site.serveLoopback(t, tc.max)
			res, err := Load(context.Background(), Options{
				URL: pageURL, Proto: tc.proto, TLSVersion: tc.tls, Resolve: resolve,
				TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m,
			})
			if err != nil {
				t.Fatal(err)
			}
			checkLoad(t, site, res, tc.proto)
		})
	}
}

func TestTLSVersionMismatchFails(t *testing.T) {
	requireChromium(t)
	site := newLabSite(t, "pageA", 1)
	pageURL, resolve := site.serveLoopback(t, 0)
	_, err := Load(context.Background(), Options{URL: pageURL, Proto: probe.ProtoH2, TLSVersion: "1.2", Resolve: resolve,
		TrustCerts: []*x509.Certificate{site.ca}, Manifest: site.m})
	if err == nil || !strings.Contains(err.Error(), "negotiated TLS 1.3") {
		t.Fatalf("error %v: want one naming the TLS 1.3 connection", err)
	}
}

// checkLoad asserts what every good load of site must show.
func checkLoad(t *testing.T, site *labSite, res probe.Result, proto string) {
	t.Helper()
	if err := har.Validate(res.HAR); err != nil {
		t.Errorf("HAR does not validate: %v", err)
	}
	h := decodeHAR(t, res.HAR)
	if got, want := h.resourceIDs(), manifestIDs(site.m); !reflect.DeepEqual(got, want) {
		t.Errorf("resources fetched %v, manifest has %v", got, want)
	}
	if res.Resources != len(site.m.Resources) {
		t.Errorf("Result.Resources = %d, want %d", res.Resources, len(site.m.Resources))
	}
	if res.PLTms <= 0 || res.ToWms <= 0 || res.ToWms > res.PLTms {
		t.Errorf("PLT %v ms, ToW %v ms: want 0 < ToW <= PLT", res.PLTms, res.ToWms)
	}
	want := har.HTTPVersion(proto)
	for _, e := range h.Log.Entries {
		if e.ResourceID == nil {
			continue
		}
		if e.Request.HTTPVersion != want {
			t.Errorf("%s went over %s, want %s", e.Request.URL, e.Request.HTTPVersion, want)
		}
		if e.Connection == "" || e.Priority == nil || e.ChromePriority == "" {
			t.Errorf("%s: connection %q, priority %v/%q: want all set", e.Request.URL, e.Connection, e.Priority, e.ChromePriority)
		}
		if len(e.Initiator) == 0 || !strings.Contains(string(e.Initiator), `"type"`) {
			t.Errorf("%s has no initiator", e.Request.URL)
		}
	}
	if res.Connections == 0 || len(res.TCP) == 0 || res.BytesWireIn == 0 {
		t.Errorf("connections %d, TCP_INFO for %d, %d bytes in: want all > 0", res.Connections, len(res.TCP), res.BytesWireIn)
	}
	if n := len(h.Log.Pages); n != 1 || h.Log.Pages[0].PageTimings.OnLoad <= 0 {
		t.Errorf("pages %+v: want one with onload", h.Log.Pages)
	}
}
