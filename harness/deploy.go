package harness

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// This file runs deploy first-party (probe.Condition.Deploy): the page's
// third-party hosts (page.Manifest.ThirdPartyHosts) keep HTTPS whatever
// the load's protocol. Their servers offer http/1.1 alone by ALPN, so
// Chromium, which picks by ALPN, speaks it to them; the loader sends their
// requests over HTTPS (loader.Options.HTTPSHosts); h3 is not forced on
// them (browser.Options.HTTPSHosts).

// httpsHostsOf are the hosts of m that keep HTTPS under c (nil under
// deploy all).
func httpsHostsOf(c probe.Condition, m *page.Manifest) ([]string, error) {
	if c.Deploy != probe.DeployFirstParty {
		return nil, nil
	}
	return m.ThirdPartyHosts(c)
}

// http1Sites are the sites among names whose server offers http/1.1 alone.
func (b *Bench) http1Sites(names []string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(b.httpsHosts, n) {
			out = append(out, n)
		}
	}
	return out
}

// targetURLs are the base URLs of a loader load with proto: urlsFor's,
// and on a plaintext bench the HTTP/1.1 listener's for hosts that keep
// HTTPS (plain HTTP/1.1 there).
func (b *Bench) targetURLs(proto string) map[string]string {
	urls := b.urlsFor(proto)
	if len(b.httpsHosts) == 0 || !plaintext(b.cond) {
		return urls
	}
	urls = maps.Clone(urls)
	for _, h := range b.httpsHosts {
		urls[h] = b.plainURLs[server.ProtoHTTP11][h]
	}
	return urls
}

// countDeployed sets r's VariantHosts and HTTPSHosts from its HAR: the
// hosts whose responses came over proto, and those that came over HTTPS.
// Only deploy first-party counts (under deploy all every host speaks proto).
func (b *Bench) countDeployed(r *probe.Result, proto string) {
	if b.cond.Deploy != probe.DeployFirstParty || len(r.HAR) == 0 {
		return
	}
	var doc har.Document
	if err := json.Unmarshal(r.HAR, &doc); err != nil {
		return // a HAR the client did not finish; nothing to count
	}
	variant, https := map[string]bool{}, map[string]bool{}
	for _, e := range doc.Log.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil || e.Response.Status == 0 {
			continue
		}
		host := strings.ToLower(u.Hostname())
		switch e.Response.HTTPVersion {
		case har.HTTPVersion(proto):
			variant[host] = true
		case har.HTTP11:
			https[host] = true
		}
	}
	r.VariantHosts, r.HTTPSHosts = len(variant), len(https)
}
