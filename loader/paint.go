package loader

import (
	"fmt"
	"sync"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// The loader's estimates of a real browser's paint metrics (probe.Paint,
// marked Estimated). The loader lays nothing out, so it estimates only
// what its network events and its scan of the document decide:
//
//   - FCP: the document's first visible text scanned (its bytes arrived,
//     after the renderer's commit delay, RendererCosts.CommitDelay), and
//     every stylesheet (with those it imports) and parser-blocking script
//     the document references before that text done: a browser renders
//     nothing below a pending stylesheet and parses nothing past a pending
//     script, while what comes after the first text does not hold the
//     first paint; then the renderer's paint work (style, layout, raster,
//     the frame) as one fitted constant, RendererCosts.PaintCost. A
//     document without visible text: none (the loader does not model
//     image paints).
//   - LCP: the recorded LCP element's resource (Manifest.LCPResource, which
//     page import takes from spdylab record's HAR) done, plus the paint
//     cost, and not before FCP. A replay's document is built from the
//     recording's requests, not its layout, so Chromium may paint another
//     element largest in the replay than in the recording (BENCHMARKS).
//     Without a recorded LCP the loader cannot know which element is the
//     largest in the viewport, so it stores none and says so.
//   - Speed Index needs frames the loader never draws: none, said so.
//
// The estimates are not in the loader's HAR, whose page timings are its
// own events.

// firstText is when and where the document's first visible text was
// scanned.
type firstText struct {
	mu     sync.Mutex
	at     time.Time
	offset int
}

func (f *firstText) seen(offset int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at.IsZero() {
		f.at, f.offset = time.Now(), offset
	}
}

func (f *firstText) get() (time.Time, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at, f.offset
}

// estimatePaint is the load's estimated paint metrics; nil for a failed
// load.
func (l *load) estimatePaint(loadErr error) *probe.Paint {
	if loadErr != nil {
		return nil
	}
	p := &probe.Paint{Estimated: true}
	defer p.AddAbsent("no Speed Index: the loader draws no frames (only a real browser gives one)")
	doc := l.documentEntry()
	textAt, textOffset := l.paintText.get()
	if doc == nil || textAt.IsZero() {
		p.AddAbsent("no FCP or LCP: the document holds no visible text, and the loader does not model image paints")
		return p
	}
	fcp := textAt
	for _, e := range l.entries {
		if e.done && blocksFirstText(e, doc, textOffset) && e.end.After(fcp) {
			fcp = e.end
		}
	}
	fcp = fcp.Add(l.opt.Renderer.PaintCost) // the renderer's paint work after the text is ready
	v := har.Ms(fcp.Sub(l.t0))
	p.FCPms = &v
	if lcp, why := l.estimateLCP(fcp); why != "" {
		p.AddAbsent("no LCP: " + why)
	} else {
		p.LCPms = &lcp
	}
	return p
}

// documentID is the page's document: the root, or the end of its recorded
// redirect chain.
func (l *load) documentID() int {
	id := 0
	for i := 0; i < len(l.m.Resources); i++ {
		next := l.m.RedirectChild(id)
		if next < 0 {
			break
		}
		id = next
	}
	return id
}

// documentEntry is the document's entry (after the load).
func (l *load) documentEntry() *entry {
	id := l.documentID()
	for _, e := range l.entries {
		if e.res != nil && e.res.ID == id {
			return e
		}
	}
	return nil
}

// blocksFirstText: a stylesheet the document references before its first
// text (or one such a stylesheet imports), or a parser-blocking script it
// references there.
func blocksFirstText(e, doc *entry, textOffset int) bool {
	if e.res == nil || e.res.Discovery.Kind != page.KindRef || e.parent == nil {
		return false
	}
	before := e.parent == doc && e.res.Discovery.Offset < textOffset
	switch e.typ {
	case page.TypeCSS:
		return before || e.parent.typ == page.TypeCSS && blocksFirstText(e.parent, doc, textOffset)
	case page.TypeJS:
		return before && !e.async
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
			end := e.end.Add(l.opt.Renderer.PaintCost) // as FCP: painted after it is ready
			if fcp.After(end) {
				end = fcp
			}
			return har.Ms(end.Sub(l.t0)), ""
		}
	}
	return 0, fmt.Sprintf("the recorded LCP resource %s was not loaded", l.m.URL(*id))
}
