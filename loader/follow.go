package loader

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spdylab/spdylab/page"
)

// This file follows the page as a browser does: what each response's bytes
// reference is requested as it is found, and what the manifest hangs off a
// resource's completion once it has run.

// discovered handles a reference found in parent's bytes.
func (l *load) discovered(parent *entry, ref reference) {
	key := urlKey(ref.URL)
	e := &entry{url: ref.URL, key: key, typ: ref.Type, parent: parent, async: ref.Async}
	var delay time.Duration
	if r, ok := l.byKey[key]; ok {
		e.res = r
		e.typ = r.Type
		l.mu.Lock()
		if parent.res != nil && r.Parent == parent.res.ID {
			l.found[r.ID] = true
		}
		l.mu.Unlock()
		if r.Discovery.Kind == page.KindRef && parent.res != nil && r.Parent == parent.res.ID {
			delay = r.Discovery.Delay
		} else if parent.res == nil || r.Parent != parent.res.ID {
			// Referenced here, but the manifest places it elsewhere: the
			// first mention wins, as in a browser; still worth a note.
			l.note("%s is referenced by %s but the manifest makes it a child of resource %d", ref.URL, parent.url, r.Parent)
		} else {
			// A kind-onload child that also appears in the bytes: the
			// manifest says when it is requested.
			return
		}
	} else {
		l.note("%s (referenced by %s) is not in the manifest; fetched anyway", ref.URL, parent.url)
	}
	e.priority = l.priorityFor(e)
	if blocksParser(e) {
		l.style.scriptFound(e)
	}
	if blocksParser(e) || (parent.parent == nil && e.typ == page.TypeCSS) {
		l.order.named(key)
	}
	if parent.typ == page.TypeCSS && e.typ != page.TypeCSS {
		// Held until style can be resolved; the load stays open meanwhile.
		l.mu.Lock()
		l.pending++
		l.mu.Unlock()
		if l.style.hold(func() { l.later(e, delay); l.finishOne() }) {
			return
		}
		l.finishOne()
	}
	l.later(e, delay)
}

func (l *load) note(format string, args ...any) {
	l.mu.Lock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// completed requests what the manifest hangs off e's completion and checks
// that e's bytes referenced every child the manifest says they do.
func (l *load) completed(e *entry) {
	if e.parent == nil {
		l.throttle.documentParsed() // its bytes were scanned as they came
		l.style.documentParsed()
	}
	// The load stays open until e has run, which the parser may defer.
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
	l.order.completed(e.key, func() {
		l.ran(e)
		l.finishOne()
	})
	if e.res == nil {
		return
	}
	var missing []string
	for _, id := range l.m.Children(e.res.ID) {
		if r := &l.m.Resources[id]; r.Discovery.Kind == page.KindRef {
			l.mu.Lock()
			ok := l.found[id]
			l.mu.Unlock()
			if !ok {
				missing = append(missing, fmt.Sprintf("%s (resource %d)", l.m.URL(id), id))
			}
		}
	}
	if len(missing) > 0 {
		// The page does not match its manifest. Finish the load anyway so
		// that the HAR shows everything the page did reference.
		err := fmt.Errorf("%s: the manifest says it references %s, but its bytes do not", e.url, strings.Join(missing, ", "))
		l.mu.Lock()
		if l.mismatch == nil {
			l.mismatch = err
		}
		l.mu.Unlock()
	}
}

// ran does what e's running starts: a parser-blocking script counts as
// run for the style gate, and what the manifest hangs off e's completion
// (script-inserted requests, onload children, a redirect's target) is
// requested, each after its own delay.
func (l *load) ran(e *entry) {
	if blocksParser(e) {
		l.style.scriptDone(e)
	}
	if e.res == nil {
		return
	}
	for _, id := range l.m.Children(e.res.ID) {
		r := &l.m.Resources[id]
		if r.Discovery.Kind != page.KindOnload && r.Discovery.Kind != page.KindRedirect {
			continue
		}
		// A redirect's target is requested once the 3xx has arrived, as
		// a browser follows Location.
		u, _ := url.Parse(l.m.URL(id))
		child := &entry{url: u, key: urlKey(u), res: r, typ: r.Type, parent: e}
		child.priority = l.priorityFor(child)
		l.later(child, r.Discovery.Delay)
	}
}

// blocksParser: e is a script the root document names without async,
// which the parser waits for.
func blocksParser(e *entry) bool {
	return e.parent != nil && e.parent.parent == nil && e.typ == page.TypeJS && !e.async
}
