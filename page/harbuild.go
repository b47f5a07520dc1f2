package page

import (
	"fmt"
	"mime"
	"sort"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
)

// This file builds the manifest of an import: ids, hosts, parents and
// discovery, sizes grown to what a valid body needs, and reference offsets
// laid out exactly as Content writes them.

// dropResponse are response headers a replay does not serve: hop-by-hop and
// framing ones (the server sets them from the body it sends), location (set
// from the redirect chain), and headers that would make a browser fetch or
// block things outside the recording.
var dropResponse = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "transfer-encoding": true,
	"upgrade": true, "te": true, "trailer": true, "http2-settings": true, "content-length": true,
	"content-type": true, "content-encoding": true, "content-range": true, "location": true,
	"alt-svc": true, "content-security-policy": true, "content-security-policy-report-only": true,
	"link": true, "refresh": true, "report-to": true, "nel": true, "clear-site-data": true,
	"status": true, "version": true,
}

// dropRequest are request headers each protocol frames itself.
var dropRequest = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "transfer-encoding": true,
	"upgrade": true, "te": true, "trailer": true, "http2-settings": true, "content-length": true,
	"host": true, "method": true, "url": true, "version": true, "scheme": true,
}

func requestHeadersOf(hs []har.NameValue) map[string]string { return headerMap(hs, dropRequest) }

func responseHeadersOf(hs []har.NameValue) map[string]string { return headerMap(hs, dropResponse) }

// headerMap joins repeated fields (cookies with "; ", others with ", ")
// and leaves out dropped, pseudo and malformed ones.
func headerMap(hs []har.NameValue, drop map[string]bool) map[string]string {
	out := map[string]string{}
	names := map[string]string{} // lower-case -> first spelling
	for _, h := range hs {
		lk := strings.ToLower(strings.TrimSpace(h.Name))
		if lk == "" || strings.HasPrefix(lk, ":") || drop[lk] || validRequestHeader(h.Name, h.Value) != nil {
			continue
		}
		name, ok := names[lk]
		if !ok {
			names[lk] = h.Name
			out[h.Name] = h.Value
			continue
		}
		sep := ", "
		if lk == "cookie" {
			sep = "; "
		}
		out[name] += sep + h.Value
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func headerValue(hs []har.NameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return strings.TrimSpace(h.Value)
		}
	}
	return ""
}

// builder holds the state of one import while the manifest is built.
type builder struct {
	m     *Manifest
	recs  []*recorded
	rep   *ImportReport
	byKey map[string]int
	main  int // the main document: the end of the root's redirect chain
}

// hostConnects is each host's fastest recorded TCP connect in
// milliseconds (Manifest.HostConnectMs): the least queued of its
// handshakes is nearest its round trip. Hosts without one are left out.
func hostConnects(recs []*recorded) map[string]float64 {
	out := map[string]float64{}
	for _, r := range recs {
		if r.connectMs <= 0 {
			continue
		}
		if have, ok := out[r.host]; !ok || r.connectMs < have {
			out[r.host] = r.connectMs
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func buildManifest(recs []*recorded, rep *ImportReport) (*Manifest, error) {
	b := &builder{m: &Manifest{}, recs: recs, rep: rep, byKey: map[string]int{}}
	hostSeen := map[string]bool{}
	for i, r := range recs {
		if !hostSeen[r.host] {
			hostSeen[r.host] = true
			b.m.Hosts = append(b.m.Hosts, r.host)
		}
		b.byKey[r.key] = i
		scheme := r.scheme
		if scheme == "https" {
			scheme = ""
		}
		enc := r.encoding
		if enc == "identity" {
			enc = ""
		}
		b.m.Resources = append(b.m.Resources, Resource{
			ID: i, Path: r.path, Query: r.query, File: fmt.Sprintf("/_r/%d", i), Host: r.host,
			Scheme: scheme, Port: r.port, Status: statusOrZero(r.status), Size: r.size, Type: r.typ,
			ContentType: r.ctype, RecordedContentType: r.recType, Headers: r.respHdr,
			RequestHeaders: r.reqHdr, EncodedSize: r.encoded, DecodedSize: r.decoded,
			ContentEncoding: enc, Parent: -1, Discovery: Discovery{Kind: KindRoot},
			StartMs: float64(r.start.Sub(recs[0].start).Microseconds()) / 1000,
			Replay:  r.replay,
		})
	}
	b.main = 0
	for seen := 0; recs[b.main].redirectTo >= 0 && seen < len(recs); seen++ {
		next := recs[b.main].redirectTo
		b.m.Resources[next].Parent = b.main
		b.m.Resources[next].Discovery = Discovery{Kind: KindRedirect}
		b.main = next
	}
	if b.m.Resources[b.main].Type != TypeHTML {
		return nil, fmt.Errorf("%w (it ends in %s, %s)", errNoDocument, recs[b.main].key, b.m.Resources[b.main].Type)
	}
	for i := 1; i < len(recs); i++ {
		if b.m.Resources[i].Discovery.Kind != KindRedirect {
			b.place(i)
		}
		if t := recs[i].redirectTo; t >= 0 {
			b.m.Resources[t].Parent = i
			b.m.Resources[t].Discovery = Discovery{Kind: KindRedirect}
		}
	}
	b.fitSizes()
	b.m.HostConnectMs = hostConnects(recs)
	return b.m, nil
}

func statusOrZero(s int) int {
	if s == 200 {
		return 0
	}
	return s
}

// final follows redirects from resource i to the response that has a body.
func (b *builder) final(i int) int {
	for n := 0; b.recs[i].redirectTo >= 0 && n < len(b.recs); n++ {
		i = b.recs[i].redirectTo
	}
	return i
}

// canParent reports whether resource p can lead to others in the model:
// documents and stylesheets by reference, documents and scripts on load.
// A repeat leads to nothing: its URL's first request did (so redirects =
// drop gives the tree imports gave before repeats were replayed).
func (b *builder) canParent(p int) bool {
	r := &b.m.Resources[p]
	if r.IsRedirect() || r.Replay == ReplayRepeat {
		return false
	}
	return r.Type == TypeHTML || r.Type == TypeCSS || r.Type == TypeJS
}

// place chooses resource i's parent and discovery (i is not a redirect
// target: those follow their redirect).
func (b *builder) place(i int) {
	r := b.recs[i]
	p := -1
	if j, ok := b.byKey[r.initiator]; ok && r.initiator != "" && r.initiator != r.key {
		j = b.final(j)
		q := b.recs[j]
		if j != i && (q.start.Before(r.start) || q.start.Equal(r.start) && j < i) {
			p = j
		}
	}
	if p < 0 {
		b.rep.Inferred++
		b.infer(i)
		return
	}
	// Climb from a parent that cannot lead (an image, a font, a 3xx) to
	// its nearest ancestor that can.
	for n := 0; p >= 0 && !b.canParent(p) && n < len(b.recs); n++ {
		p = b.m.Resources[p].Parent
	}
	if p < 0 || !b.canParent(p) || b.isBelow(p, i) {
		p = b.main
	}
	pt := b.m.Resources[p].Type
	switch {
	case pt == TypeCSS || (pt == TypeHTML && r.initType != "script"):
		b.setRef(i, p)
	default:
		b.setOnload(i, p)
	}
}

// isBelow reports whether p descends from i (a parent there would close a
// cycle).
func (b *builder) isBelow(p, i int) bool {
	for n := 0; p >= 0 && n <= len(b.recs); n++ {
		if p == i {
			return true
		}
		p = b.m.Resources[p].Parent
	}
	return false
}

// infer is the heuristic for a resource without a usable initiator.
func (b *builder) infer(i int) {
	r := b.recs[i]
	doc, script, done := -1, -1, -1
	for j := 0; j < len(b.recs); j++ {
		q := b.recs[j]
		if j == i || !b.canParent(j) || !q.start.Before(r.start) || b.isBelow(j, i) {
			continue
		}
		switch t := b.m.Resources[j].Type; {
		case (t == TypeHTML || t == TypeCSS && (r.typ == TypeImage || r.typ == TypeOther || r.typ == TypeCSS)) &&
			!r.start.Before(q.firstByte) && !r.start.After(q.end):
			if doc < 0 || q.start.After(b.recs[doc].start) {
				doc = j
			}
		case t == TypeJS && !q.end.After(r.start):
			if script < 0 || q.end.After(b.recs[script].end) {
				script = j
			}
		case t == TypeHTML && !q.end.After(r.start):
			if done < 0 || q.end.After(b.recs[done].end) {
				done = j
			}
		}
	}
	switch {
	case doc >= 0:
		b.setRef(i, doc)
	case script >= 0:
		b.setOnload(i, script)
	case done >= 0 && done != b.main:
		b.setOnload(i, done)
	default:
		b.setRef(i, b.main)
	}
}

// setRef makes i a reference in p's bytes at the share of p's receive time
// that had passed when i was requested (adjusted by fitSizes).
func (b *builder) setRef(i, p int) {
	r, q := b.recs[i], b.recs[p]
	frac := 0.0
	if span := q.end.Sub(q.firstByte); span > 0 {
		frac = float64(r.start.Sub(q.firstByte)) / float64(span)
	} else if r.start.After(q.firstByte) {
		frac = 1
	}
	frac = min(1, max(0, frac))
	b.m.Resources[i].Parent = p
	b.m.Resources[i].Discovery = Discovery{Kind: KindRef, Offset: int(frac * float64(b.m.Resources[p].Size))}
}

// setOnload makes i a request of p after p completes, delayed by the time
// the recording shows between p's end and i's request.
func (b *builder) setOnload(i, p int) {
	delay := b.recs[i].start.Sub(b.recs[p].end)
	delay = max(0, delay).Round(time.Millisecond)
	b.m.Resources[i].Parent = p
	b.m.Resources[i].Discovery = Discovery{Kind: KindOnload, Delay: delay}
}

// fitSizes grows images and Flash below their format's minimum and
// documents too small for their references, and lays out every document's
// references at increasing offsets no earlier than the recording puts
// them, the way layout writes them.
func (b *builder) fitSizes() {
	m := b.m
	grow := func(r *Resource, need int) {
		if r.Size < need {
			b.rep.Grown++
			b.rep.GrownBytes += int64(need - r.Size)
			r.Size = need
		}
	}
	for i := range m.Resources {
		r := &m.Resources[i]
		switch r.Type {
		case TypeImage:
			mt, _, _ := mime.ParseMediaType(r.ContentType)
			if r.Size < MinImageSize(mt) && r.RecordedContentType == "" && mt != "image/gif" {
				r.RecordedContentType = r.ContentType
			}
			if r.RecordedContentType != "" || r.Size < MinImageSize(mt) {
				// Synthesized anyway: the format that fits the size.
				r.ContentType = "image/png"
				if r.Size < MinImageSize("image/png") {
					r.ContentType = "image/gif"
				}
				if r.RecordedContentType == r.ContentType {
					r.RecordedContentType = ""
				}
			}
			ct, _, _ := mime.ParseMediaType(r.ContentType)
			grow(r, MinImageSize(ct))
		case TypeFlash:
			grow(r, swfMin)
		}
	}
	children := make([][]int, len(m.Resources))
	for i := range m.Resources {
		if p := m.Resources[i].Parent; p >= 0 {
			children[p] = append(children[p], i)
		}
	}
	for i := range m.Resources {
		r := &m.Resources[i]
		if r.Type == TypeHTML || r.Type == TypeCSS || r.Type == TypeJS {
			grow(r, b.placeRefs(i, children[i]))
		}
	}
}

// placeRefs sets the offsets of document id's references (in line/column
// order when every one has a line, else in offset order; each no earlier
// than wanted) and returns the size the document needs: the same
// arithmetic as layout.
func (b *builder) placeRefs(id int, kids []int) int {
	m := b.m
	var refs, onload []int
	for _, c := range kids {
		switch m.Resources[c].Discovery.Kind {
		case KindRef:
			refs = append(refs, c)
		case KindOnload:
			onload = append(onload, c)
		}
	}
	byLine := true
	for _, c := range refs {
		byLine = byLine && b.recs[c].hasLine
	}
	sort.SliceStable(refs, func(x, y int) bool {
		a, c := b.recs[refs[x]], b.recs[refs[y]]
		if byLine && (a.line != c.line || a.col != c.col) {
			return a.line < c.line || a.line == c.line && a.col < c.col
		}
		return m.Resources[refs[x]].Discovery.Offset < m.Resources[refs[y]].Discovery.Offset
	})
	return m.fitRefs(id, refs, onload)
}

// fitRefs lays out document id's references refs (in that order, each no
// earlier than its current offset) and returns the size the document
// needs: the same arithmetic as layout. A document too small for its
// references keeps them packed as early as they fit (the caller grows
// it); otherwise references past the end are pulled back into its size.
func (m *Manifest) fitRefs(id int, refs, onload []int) int {
	r := &m.Resources[id]
	pre, closing := m.documentFrame(id)
	tail := len(closing)
	if len(onload) > 0 {
		tail += len(m.onloadText(r.Type, onload))
	}
	type span struct{ prefix, body int } // tag prefix; URL and suffix
	spans := make([]span, len(refs))
	for k, c := range refs {
		tag, url := m.refMarkup(r.Type, c)
		spans[k] = span{len(tag.prefix), len(url) + len(tag.suffix)}
	}
	// pack lays the references out in order, each at max(its wish, the end
	// of the previous one plus its prefix), and returns the size needed.
	pack := func(wish func(k int) int) int {
		cur := len(pre)
		for k, c := range refs {
			off := max(wish(k), cur+spans[k].prefix)
			m.Resources[c].Discovery.Offset = off
			cur = off + spans[k].body
		}
		return cur + tail
	}
	wished := make([]int, len(refs))
	for k, c := range refs {
		wished[k] = m.Resources[c].Discovery.Offset
	}
	if need := pack(func(int) int { return 0 }); need > r.Size {
		return need // grown, references packed as early as they fit
	}
	pack(func(k int) int { return wished[k] })
	// References wished near the end (requested after the document had
	// arrived) are pulled back, in order, so that they fit into the
	// recorded size; packing as early as possible fits, so this does too.
	limit := r.Size - tail
	for k := len(refs) - 1; k >= 0; k-- {
		d := &m.Resources[refs[k]].Discovery
		d.Offset = min(d.Offset, limit-spans[k].body)
		limit = d.Offset - spans[k].prefix
	}
	return r.Size
}
