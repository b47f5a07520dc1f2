package loader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// This file assembles a finished load's probe.Result: its metrics, why it
// failed, and (through harlog.go) its HAR.

// result assembles the probe.Result and HAR after every goroutine ended.
func (l *load) result(tcp []probe.TCPInfo) (probe.Result, error) {
	var sctpCounters *probe.SCTPCounters
	variant := l.proto
	if sp, ok := variant.(*splitProto); ok {
		variant = sp.variant
	}
	if p, ok := variant.(*sctpProto); ok {
		sctpCounters = p.transportCounters() // also adds SCTP's bytes to l.wire
	}
	r := probe.Result{
		SCTP:    sctpCounters,
		Started: l.t0,
		Condition: probe.Condition{
			Page:          l.m.Name,
			Shards:        len(l.m.Hosts),
			Proto:         l.opt.Proto,
			TLS:           tlsName(l.tlsVer),
			InitialWindow: l.opt.InitialWindow,
			Timeout:       l.opt.Timeout,
			TLSResume:     l.opt.TLSResume,
			EarlyData:     l.opt.EarlyData,
			Priority:      storedPolicy(l.opt.Priority),
			Sessions:      storedSessions(l.opt.Sessions),
			SessionPolicy: storedSessionPolicy(l.opt.Sessions, l.opt.SessionPolicy),
		},
		TCP:          tcp,
		BytesWireIn:  l.wire.in.Load(),
		BytesWireOut: l.wire.out.Load(),
		Connections:  l.connectionsOpened(),
		TLS:          l.hs.summary(),
	}
	r.HeaderBytesRaw, r.HeaderBytesCompressed = l.proto.headerBytes()
	if w, ok := variant.(interface{ recvWindows() *probe.RecvWindowSum }); ok {
		r.RecvWindow = w.recvWindows()
	}
	r.SessionDemand = l.demandSum()
	loadErr := l.loadError()
	pt := l.measure(&r, loadErr)
	r.Paint = l.estimatePaint(loadErr)
	h := har.Document{Log: l.harLog(&r, pt)}
	if loadErr != nil {
		r.Failed = true
		r.Error = loadErr.Error()
		if h.Log.Comment != "" {
			h.Log.Comment += "\n"
		}
		h.Log.Comment += "load failed: " + loadErr.Error()
	}
	b, err := json.MarshalIndent(h, "", " ")
	if err != nil { // cannot happen with these types; keep the error honest anyway
		return r, fmt.Errorf("loader: encoding HAR: %w", err)
	}
	r.HAR = b
	return r, loadErr
}

// measure fills r's counts, PLT and ToW from the completed entries (PLT
// and ToW only for a successful load) and returns the page's timings:
// DOMContentLoaded once the document is parsed and its blocking scripts
// ran, onload once all but onload children have arrived.
func (l *load) measure(r *probe.Result, loadErr error) har.PageTimings {
	var firstSend, lastByte, dcl, onload time.Time
	for _, e := range l.entries {
		r.Retries += e.retries // a failed load's too: refusals may be why it failed
		if !e.done {
			continue
		}
		r.Resources++
		if e.pushed {
			r.Pushed++
		} else if !e.sendStart.IsZero() && (firstSend.IsZero() || e.sendStart.Before(firstSend)) {
			firstSend = e.sendStart
		}
		if e.end.After(lastByte) {
			lastByte = e.end
		}
		if e.res != nil && (e.res.ID == 0 || (e.typ == page.TypeJS && !e.async && e.parent != nil && e.parent.res != nil && e.parent.res.ID == 0 && e.res.Discovery.Kind == page.KindRef)) && e.end.After(dcl) {
			dcl = e.end // the document is parsed and its blocking scripts ran
		}
		if (e.res == nil || e.res.Discovery.Kind != page.KindOnload) && e.end.After(onload) {
			onload = e.end
		}
	}
	if loadErr != nil {
		return har.NotReached
	}
	if !firstSend.IsZero() {
		r.ToWms = har.Ms(lastByte.Sub(firstSend))
	}
	r.PLTms = har.Ms(lastByte.Sub(l.t0))
	return har.PageTimings{OnContentLoad: har.Ms(dcl.Sub(l.t0)), OnLoad: har.Ms(onload.Sub(l.t0))}
}

// loadError is why the load failed (nil when it did not): the first
// failure, a page that does not match its manifest, a timeout or a
// cancellation (then naming what was still open), or an unfinished entry.
func (l *load) loadError() error {
	loadErr := l.err
	if loadErr == nil {
		loadErr = l.mismatch
	}
	if loadErr == nil {
		if c := context.Cause(l.ctx); c != nil && !errors.Is(c, errLoadDone) {
			loadErr = c
		}
	}
	if loadErr == nil {
		for _, e := range l.entries {
			if !e.done {
				loadErr = fmt.Errorf("%s: did not complete", e.url)
				break
			}
		}
	}
	if loadErr != nil && !strings.Contains(loadErr.Error(), "://") {
		// A timeout or cancellation: say which resources were still open.
		open := l.openAtCancel
		if open == "" {
			open = l.incomplete()
		}
		loadErr = fmt.Errorf("%w; %s", loadErr, open)
	}
	return loadErr
}

func tlsName(v uint16) string {
	if n := probe.TLSVersionName(v); n != "" {
		return n
	}
	return probe.DefaultTLS
}

// incomplete lists what was still open when the load was stopped.
func (l *load) incomplete() string {
	var open []string
	l.mu.Lock()
	entries := append([]*entry(nil), l.entries...)
	l.mu.Unlock()
	for _, e := range entries {
		e.mu.Lock()
		if !e.done {
			state := "queued"
			switch {
			case !e.firstByte.IsZero():
				state = "receiving the response"
			case !e.sendEnd.IsZero():
				state = "waiting for the response"
			case e.conn != nil:
				state = "sending the request"
			}
			open = append(open, fmt.Sprintf("%s (%s)", e.url, state))
		}
		e.mu.Unlock()
	}
	if len(open) == 0 {
		return "no request was open"
	}
	const show = 8
	more, n := "", len(open)
	if n > show {
		more = fmt.Sprintf(" and %d more", len(open)-show)
		open = open[:show]
	}
	return fmt.Sprintf("%d resources incomplete: %s%s", n, strings.Join(open, ", "), more)
}
