package loader

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// This file is a load whose third-party hosts never turned the protocol
// under test on (Options.HTTPSHosts; the lab's deploy first-party): a site
// that switches to SPDY cannot switch its ad and analytics hosts, so
// requests to them go over HTTPS's connection pools while the site's own
// hosts speak Proto.

// splitProto sends requests to https hosts over HTTPS and the others over
// the protocol under test.
type splitProto struct {
	variant protocol
	h1      *h1
	https   map[string]bool // lower-case host names
}

// newSplit wraps the load's protocol when some hosts keep HTTPS.
func newSplit(l *load, variant protocol) protocol {
	if len(l.https) == 0 || l.opt.Proto == probe.ProtoHTTPS {
		return variant
	}
	return &splitProto{variant: variant, h1: newH1(l), https: l.https}
}

func (p *splitProto) pick(e *entry) protocol {
	if p.https[strings.ToLower(e.url.Hostname())] {
		return p.h1
	}
	return p.variant
}

func (p *splitProto) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	return p.pick(e).fetch(ctx, e, body)
}

func (p *splitProto) pushed(e *entry) (*http.Response, *connection, bool) {
	if p.pick(e) == p.h1 {
		return nil, nil, false
	}
	return p.variant.pushed(e)
}

func (p *splitProto) headerBytes() (raw, compressed int64) {
	r1, c1 := p.variant.headerBytes()
	r2, c2 := p.h1.headerBytes()
	return r1 + r2, c1 + c2
}

func (p *splitProto) shutdown() {
	p.variant.shutdown()
	p.h1.shutdown()
}

// httpsHostSet checks Options.HTTPSHosts against the page's hosts.
func httpsHostSet(hosts []string, pageHosts []string) (map[string]bool, error) {
	known := map[string]bool{}
	for _, h := range pageHosts {
		known[strings.ToLower(h)] = true
	}
	set := map[string]bool{}
	for _, h := range hosts {
		h = strings.ToLower(h)
		if !known[h] {
			return nil, fmt.Errorf("HTTPS host %s is not a host of the page (%s)", h, strings.Join(pageHosts, ", "))
		}
		set[h] = true
	}
	return set, nil
}

// protoOf is the protocol e's request went over.
func (l *load) protoOf(e *entry) string {
	if l.https[strings.ToLower(e.url.Hostname())] {
		return probe.ProtoHTTPS
	}
	return l.opt.Proto
}
