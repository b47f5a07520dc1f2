package critpath

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// A paint's critical path ends where the paint does, not at the last
// byte: at the paint's time, walked back from the resource the paint
// waited for. What the renderer did between that resource's last byte and
// the paint is client time (other), as after PLT's last byte.
//
//   - LCP: the LCP element's resource (probe.Paint.LCPURL, Chromium's; the
//     recorded Manifest.LCPResource for the loader's estimate). A text
//     block has no resource of its own: like FCP's, its chain ends at what
//     blocked the document's rendering.
//   - FCP: the last render-blocking resource done before the paint (a
//     stylesheet the document references, one a stylesheet imports, a
//     script the document references), or the document itself. The
//     manifest does not say which scripts are async, so every script the
//     document references counts; one done after the paint never does.
//
// Where the evidence does not name the resource (no paint record, no LCP
// element, no manifest) there is no chain: the breakdown says why.

// paintEnd is the node and time (ms) a paint metric's chain ends at, or
// why there is none.
func (a *analysis) paintEnd(metric string, p *probe.Paint) (*node, float64, string) {
	m, err := probe.LookupMetric(metric)
	if err != nil {
		return nil, 0, err.Error()
	}
	if m.Name == probe.MetricSI {
		return nil, 0, "Speed Index integrates every frame's visual progress: no single chain of resources ends at it"
	}
	v := p.Metric(m.Paint)
	if v == nil {
		return nil, 0, fmt.Sprintf("the load has no %s (its client did not measure it, or the page did not paint)", m.Title)
	}
	var n *node
	var why string
	if m.Name == probe.MetricLCP {
		n, why = a.lcpNode(p, *v)
	} else {
		n, why = a.blockingNode(*v)
	}
	if n == nil {
		return nil, 0, why
	}
	return n, *v, ""
}

// lcpNode is the LCP element's resource's entry, or the FCP rule's for a
// text block.
func (a *analysis) lcpNode(p *probe.Paint, at float64) (*node, string) {
	url := p.LCPURL
	if url == "" && p.Estimated && a.m != nil && a.m.LCPResource != nil {
		url = a.m.URL(*a.m.LCPResource)
	}
	if url == "" {
		if p.LCPElement == "" || strings.EqualFold(p.LCPElement, "IMG") {
			return nil, "the LCP element's resource is unknown (the load did not name it)"
		}
		return a.blockingNode(at) // a text block: what held the document's rendering
	}
	var best *node
	for _, n := range a.nodes {
		if sameURL(n.url, url) && (best == nil || n.end < best.end) {
			best = n
		}
	}
	if best == nil {
		return nil, "the LCP element's resource " + url + " is not in the load's HAR"
	}
	return best, ""
}

// blockingNode is the last render-blocking resource done by at, or the
// document.
func (a *analysis) blockingNode(at float64) (*node, string) {
	if a.m == nil {
		return nil, "without the page's manifest the resources that block the first paint are unknown"
	}
	doc := a.document()
	if doc == nil {
		return nil, "the page's document is not in the load's HAR"
	}
	best := doc
	for id, n := range a.byRes {
		if n.end <= at && n.end > best.end && a.blocksRender(id, doc.res) {
			best = n
		}
	}
	return best, ""
}

// document is the page's document's entry: the root, or the end of its
// recorded redirect chain.
func (a *analysis) document() *node {
	id := 0
	for i := 0; i < len(a.m.Resources); i++ {
		next := a.m.RedirectChild(id)
		if next < 0 {
			break
		}
		id = next
	}
	return a.byRes[id]
}

// blocksRender: resource id is a stylesheet or script the document
// references, or a stylesheet such a stylesheet references.
func (a *analysis) blocksRender(id, doc int) bool {
	if id < 0 || id >= len(a.m.Resources) || id == doc {
		return false
	}
	r := &a.m.Resources[id]
	if r.Discovery.Kind != page.KindRef || r.Parent < 0 || r.Parent >= len(a.m.Resources) {
		return false
	}
	switch r.Type {
	case page.TypeJS:
		return r.Parent == doc
	case page.TypeCSS:
		return r.Parent == doc || a.m.Resources[r.Parent].Type == page.TypeCSS && a.blocksRender(r.Parent, doc)
	}
	return false
}

// sameURL compares URLs without their fragments (a browser reports an
// image's URL as the document named it; the HAR's request has none).
func sameURL(a, b string) bool {
	a, _, _ = strings.Cut(a, "#")
	b, _, _ = strings.Cut(b, "#")
	return a == b
}
