package loader

import (
	"fmt"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// The loader's estimates of a real browser's paint metrics (probe.Paint,
// marked Estimated). The loader lays nothing out, so it estimates only
// what its network events decide:
//
//   - FCP: the document and what blocks its first render done: the
//     stylesheets it references (and those they import) and its
//     parser-blocking scripts, with the renderer's commit delay after the
//     document's first byte (RendererCosts.CommitDelay). A browser paints
//     first when those are done and the body holds something to show; the
//     manifest's bodies are synthesized with visible text, so there is.
//     Style, layout and raster after that are not modelled.
//   - LCP: the recorded LCP element's resource (Manifest.LCPResource, which
//     page import takes from spdylab record's HAR) done, and not before FCP.
//     Without a recorded LCP the loader cannot know which element is the
//     largest in the viewport, so it stores none and says so.
//   - Speed Index needs frames the loader never draws: none, said so.

// estimatePaint is the load's estimated paint metrics (t0: the PLT's
// origin); nil for a failed load.
func (l *load) estimatePaint(loadErr error) *probe.Paint {
	if loadErr != nil {
		return nil
	}
	p := &probe.Paint{Estimated: true}
	doc := l.documentEntry()
	if doc == nil || !doc.done {
		p.AddAbsent("no FCP or LCP: the loader saw no document")
		return p
	}
	fcp := doc.end
	if commit := doc.firstByte.Add(l.opt.Renderer.CommitDelay); commit.After(fcp) {
		fcp = commit
	}
	for _, e := range l.entries {
		if e.done && blocksFirstRender(e, doc) && e.end.After(fcp) {
			fcp = e.end
		}
	}
	v := har.Ms(fcp.Sub(l.t0))
	p.FCPms = &v
	switch lcp, why := l.estimateLCP(fcp); {
	case why != "":
		p.AddAbsent("no LCP: " + why)
	default:
		p.LCPms = &lcp
	}
	p.AddAbsent("no Speed Index: the loader draws no frames (only a real browser gives one)")
	return p
}

// documentEntry is the page's document: the root, or the end of its
// recorded redirect chain.
func (l *load) documentEntry() *entry {
	id := 0
	for i := 0; i < len(l.m.Resources); i++ {
		next := l.m.RedirectChild(id)
		if next < 0 {
			break
		}
		id = next
	}
	for _, e := range l.entries {
		if e.res != nil && e.res.ID == id {
			return e
		}
	}
	return nil
}

// blocksFirstRender: a stylesheet the document (or such a stylesheet)
// references, or a parser-blocking script of the document.
func blocksFirstRender(e, doc *entry) bool {
	if e.res == nil || e.res.Discovery.Kind != page.KindRef || e.parent == nil {
		return false
	}
	switch e.typ {
	case page.TypeCSS:
		return e.parent == doc || blocksFirstRender(e.parent, doc) && e.parent.typ == page.TypeCSS
	case page.TypeJS:
		return !e.async && e.parent == doc
	}
	return false
}

// estimateLCP is the LCP element's resource done (ms on the PLT's clock),
// not before fcp, or why the loader cannot tell.
func (l *load) estimateLCP(fcp time.Time) (float64, string) {
	id := l.m.LCPResource
	if id == nil {
		return 0, "the page's largest contentful element is unknown to the loader (no recorded LCP in the manifest: record the page with spdylab record and import it)"
	}
	for _, e := range l.entries {
		if e.res != nil && e.res.ID == *id && e.done {
			end := e.end
			if fcp.After(end) {
				end = fcp
			}
			return har.Ms(end.Sub(l.t0)), ""
		}
	}
	return 0, fmt.Sprintf("the recorded LCP resource %s was not loaded", l.m.URL(*id))
}
