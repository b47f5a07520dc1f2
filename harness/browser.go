package harness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/probe"
)

// This file runs a bench's loads with a real browser (probe.Client
// Browser, today Chromium) instead of the loader.

// serverTLSMax caps the servers of a browser bench at the condition's TLS
// version: Chromium cannot be capped at TLS 1.2 from its side (the switch
// went away in Chrome 75), so a 1.2 condition needs 1.2-only servers. The
// loader caps itself, so its benches keep the default (0 = 1.3).
func serverTLSMax(c probe.Condition) uint16 {
	if cl, _ := probe.LookupClient(c.Client); !cl.Browser || c.TLS != probe.TLS12 {
		return 0
	}
	return tls.VersionTLS12
}

// browserLoad is one cold load by Chromium in the client namespace (or in
// this namespace for a loopback bench): a fresh process and profile, the
// page at the servers' base URLs, the lab certificate trusted.
func (b *Bench) browserLoad(ctx context.Context, cond probe.Condition, res probe.Result) probe.Result {
	fail := func(err error) probe.Result {
		res.Failed, res.Error = true, err.Error()
		b.explain(&res, loader.RendererCosts{}) // says there is none
		return res
	}
	if err := probe.CheckClientProtocol(cond.Client, cond.Proto, cond.TLS); err != nil {
		return fail(fmt.Errorf("harness: %w", err))
	}
	pageURL, resolve, err := browser.PageTarget(b.m, b.baseURLs)
	if err != nil {
		return fail(fmt.Errorf("harness: %w", err))
	}
	o := browser.Options{
		URL:        pageURL,
		Proto:      cond.Proto,
		TLSVersion: cond.TLS,
		Resolve:    resolve,
		TrustCerts: []*x509.Certificate{b.ca.Cert},
		Manifest:   b.m,
		Timeout:    b.opt.Timeout,
		HTTPSHosts: b.httpsHosts,
		// The critical path's compute evidence, when the condition asks.
		TraceMainThread: cond.MainThreadTrace,
		SpeedIndex:      cond.SpeedIndex,
	}
	if b.tb.Emulated() {
		o.Host = b.tb.Client()
	}
	// browser.Load kills Chromium on its own timeout; the outer bound only
	// covers process start and teardown (and a repeat view's first view).
	timeout := b.opt.Timeout + 20*time.Second
	measure := func() error { return b.beginLoadStats(cond.Proto, res.Run) }
	if cond.Repeat() {
		// One Chromium loads both views (browser/view.go); the bench
		// closes the connections between them and starts counting after.
		o.RepeatView, o.MeasuredView = true, measure
		o.BetweenViews = func(context.Context) error { b.closeConnections(); return nil }
		o.Timeout, timeout = 2*o.Timeout, timeout+b.opt.Timeout
	} else if err := measure(); err != nil {
		return fail(err)
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer b.stopPcap()
	r, err := browser.Load(lctx, o)
	r = b.finishLoad(r, res, err)
	// Chromium does not tell how its handshakes went; the servers do.
	r.TLS = b.serverHandshakes()
	b.countDeployed(&r, cond.Proto)
	b.explain(&r, loader.RendererCosts{})
	return r
}
