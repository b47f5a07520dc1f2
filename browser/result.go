package browser

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// result fills r from what the collector saw: the HAR, PLT and ToW by the
// loader's definitions (navigation start -> last byte of the last page
// resource; first request byte sent -> the same end), resources,
// connections and header bytes. loadErr (or a problem found here, such as
// a TLS version other than the one asked for) fails the load.
func (s *session) result(r probe.Result, loadErr error) (probe.Result, error) {
	c := s.col
	c.mu.Lock()
	defer c.mu.Unlock()
	all := append([]*exchange(nil), c.all...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].start < all[j].start })
	var nav *exchange
	for _, x := range all {
		if x.typ == "Document" && !strings.HasPrefix(x.req.URL, "about:") {
			nav = x
			break
		}
	}
	if nav == nil {
		if loadErr == nil {
			loadErr = fmt.Errorf("browser: Chromium sent no request for %s", s.o.URL)
		}
		nav = &exchange{}
	}
	t := s.tally(&r, all, nav)
	pt := har.NotReached
	if c.loadAt != 0 {
		pt.OnLoad = msOf(c.loadAt - nav.start)
	}
	if c.dclAt != 0 {
		pt.OnContentLoad = msOf(c.dclAt - nav.start)
	}
	if t.lastByte > 0 {
		r.PLTms = msOf(t.lastByte - networkStart(nav))
		if t.firstSend > 0 {
			r.ToWms = msOf(t.lastByte - t.firstSend)
		}
	}
	if loadErr == nil {
		loadErr = checkNegotiated(s.o.Proto, s.o.TLSVersion, t)
	}
	if loadErr == nil {
		r.Paint = s.paint(nav, all)
		pt = withPaint(pt, r.Paint, msOf(networkStart(nav)-nav.start))
	} else {
		r.Paint = unfinishedPaint(s.paintSeen)
	}
	comment := fmt.Sprintf("Chromium over %s; TLS seen: %s", protoName(s.o.Proto), strings.Join(keys(t.tlsSeen), ", "))
	h := newHARLog(s.proc.version, har.NewPage(wallTime(nav.wall), s.o.URL, comment, pt), t.entries)
	if loadErr != nil {
		h.Comment = "load failed: " + loadErr.Error()
	} else if busy, err := s.mainThread(nav.start); err != nil {
		h.Comment = "no main-thread intervals: " + err.Error()
	} else {
		r.MainThread = busy
	}
	b, err := json.MarshalIndent(struct {
		Log harLog `json:"log"`
	}{h}, "", " ")
	if err != nil {
		return r, fmt.Errorf("browser: encoding HAR: %w", err)
	}
	r.HAR = b
	return r, loadErr
}

// tally is one pass over the exchanges: HAR entries, and what the result
// counts of the page's resources (the favicon and, with a manifest,
// unlisted fetches excluded).
type tally struct {
	entries             []harEntry
	lastByte, firstSend float64         // CDP clock, seconds
	tlsSeen             map[string]bool // TLS versions as securityDetails names them ("TLS 1.3", "QUIC")
	protoSeen           map[string]bool // ALPN of the page's responses as Chromium reports it ("h2", "h3")
}

func (s *session) tally(r *probe.Result, all []*exchange, nav *exchange) tally {
	var listed map[string]int
	if s.o.Manifest != nil {
		listed = manifestKeys(s.o.Manifest)
	}
	t := tally{entries: []harEntry{}, tlsSeen: map[string]bool{}, protoSeen: map[string]bool{}}
	conns := map[string]bool{}
	for _, x := range all {
		if strings.HasPrefix(x.req.URL, "data:") || strings.HasPrefix(x.req.URL, "about:") {
			continue
		}
		var resID *int
		if id, ok := listed[resKey(x.req.URL)]; ok && (!x.redirected || redirects(s.o.Manifest, listed, x)) {
			resID = &id
		}
		e, reqHdr, respHdr := harEntryOf(x, resID, nav.wall, nav.start)
		favicon := isFavicon(x, listed)
		if favicon {
			e.Comment = "the browser's own favicon request: not a page resource"
		}
		t.entries = append(t.entries, e)
		har.AddPhases(&r.Phases, e.Timings.Phases())
		if favicon {
			continue
		}
		if e.Connection != "" {
			conns[e.Connection] = true
		}
		if x.resp != nil && x.resp.SecurityDetails != nil {
			t.tlsSeen[x.resp.SecurityDetails.Protocol] = true // "QUIC" kept: checkNegotiated tells them apart
		}
		// Hosts that keep HTTPS speak HTTP/1.1 by design (their servers
		// offer nothing else): not a fallback.
		if x.resp != nil && x.resp.Protocol != "" && !x.redirected && !s.keepsHTTPS(x.req.URL) {
			t.protoSeen[strings.ToLower(x.resp.Protocol)] = true
		}
		r.HeaderBytesRaw += reqHdr + respHdr
		if x.resp != nil && strings.EqualFold(x.resp.Protocol, "http/1.1") {
			r.HeaderBytesCompressed += reqHdr + respHdr
		}
		if !x.finished || x.failed != "" || (x.redirected && resID == nil) || (listed != nil && resID == nil) {
			continue // not a completed page resource
		}
		r.Resources++
		t.lastByte = math.Max(t.lastByte, x.end)
		if x.resp == nil || x.resp.Timing == nil {
			continue
		}
		if tm := x.resp.Timing; tm.SendStart >= 0 {
			if send := tm.RequestTime + tm.SendStart/1000; t.firstSend == 0 || send < t.firstSend {
				t.firstSend = send
			}
		}
	}
	r.Connections = len(conns)
	return t
}

// networkStart is when Chromium's network stack began the navigation
// request (before DNS), the point the loader's PLT starts from. What comes
// before it (the document's requestWillBeSent to its requestTime) is
// Chromium's own navigation work (process selection, throttles): CPU, not
// network, 1-100 ms on a busy machine. It stays visible as the document
// entry's blocked time in the HAR, whose page timings count from
// requestWillBeSent.
func networkStart(nav *exchange) float64 {
	if nav.resp != nil && nav.resp.Timing != nil && nav.resp.Timing.RequestTime > 0 {
		return nav.resp.Timing.RequestTime
	}
	return nav.start
}

// tlsOfSecurityDetails is the TLS version of a securityDetails protocol:
// Chromium names a QUIC connection's "QUIC", and QUIC always runs TLS 1.3
// (RFC 9001).
func tlsOfSecurityDetails(protocol string) string {
	if protocol == quicSecurity {
		return tlsName(probe.TLS13)
	}
	return protocol
}

// quicSecurity is securityDetails' protocol of a QUIC connection.
const quicSecurity = "QUIC"

// checkNegotiated fails a load whose connections did not run what the
// condition asked for: the TLS version (Chromium cannot be capped at TLS
// 1.2, so the servers must be), and the protocol (Chromium may fall back
// from QUIC to TCP, or from h2 to HTTP/1.1, without failing the page; such
// a load would be counted under the wrong protocol).
func checkNegotiated(proto, tlsVersion string, t tally) error {
	if tlsVersion != "" {
		for _, v := range keys(t.tlsSeen) {
			// A QUIC connection runs the version a load over QUIC runs
			// (probe.LoadTLS: 1.3); the others the condition's.
			want := tlsName(tlsVersion)
			if v == quicSecurity {
				want, v = tlsName(probe.LoadTLS(proto, tlsVersion)), tlsOfSecurityDetails(v)
			}
			if v != want {
				return fmt.Errorf("browser: the load asked for %s but a connection negotiated %s (Chromium cannot be capped at TLS 1.2; cap the servers)", want, v)
			}
		}
	}
	p, ok := probe.LookupProtocol(proto)
	if !ok {
		return nil // "" = Chromium's own choice; other names were refused before the load
	}
	for _, v := range keys(t.protoSeen) {
		if v != p.ALPN {
			return fmt.Errorf("browser: the load asked for %s but Chromium fetched page resources over %s (did it fall back from %s?)", p.Name, v, p.ALPN)
		}
	}
	return nil
}

// tlsName is a TLSVersion option as Chromium's securityDetails name it.
func tlsName(v string) string {
	if v == "" {
		return ""
	}
	return "TLS " + v
}

func protoName(p string) string {
	if p == "" {
		return "its own choice of protocol"
	}
	return p
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// keepsHTTPS reports whether rawURL's host is one of Options.HTTPSHosts.
func (s *session) keepsHTTPS(rawURL string) bool {
	if len(s.o.HTTPSHosts) == 0 {
		return false
	}
	u, err := url.Parse(rawURL)
	return err == nil && slices.Contains(s.o.HTTPSHosts, u.Hostname())
}
