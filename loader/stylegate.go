package loader

import "sync"

// styleGate holds what a stylesheet references (background images,
// fonts) until the page's style can be resolved, as a browser requests
// them only for elements its style rules match: after the root document
// is parsed and its parser-blocking scripts have run; requesting them as
// soon as the stylesheet is scanned is what no browser can do. On the
// youtube study page (four blocking scripts before the styled elements)
// it brings the loader's h2 cells closer to Chromium; HTTP/1.1's gap there
// has another cause (BENCHMARKS). Stylesheets a stylesheet
// imports are not held: a browser fetches those at once.
type styleGate struct {
	on bool

	mu       sync.Mutex
	parsed   bool            // the root document's bytes have all been scanned
	blocking map[*entry]bool // the root's parser-blocking scripts not yet complete
	held     []func()        // requests waiting for the gate to open
}

// hold queues request when the gate is closed and reports whether it did.
func (g *styleGate) hold(request func()) bool {
	if !g.on {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open() {
		return false
	}
	g.held = append(g.held, request)
	return true
}

func (g *styleGate) open() bool { return g.parsed && len(g.blocking) == 0 }

// scriptFound notes a parser-blocking script of the root document.
func (g *styleGate) scriptFound(e *entry) {
	g.update(func() {
		if g.blocking == nil {
			g.blocking = map[*entry]bool{}
		}
		g.blocking[e] = true
	})
}

// scriptDone: e has loaded (and so run); entries never noted are ignored.
func (g *styleGate) scriptDone(e *entry) { g.update(func() { delete(g.blocking, e) }) }

// documentParsed: the root document's bytes have all been scanned.
func (g *styleGate) documentParsed() { g.update(func() { g.parsed = true }) }

// update applies change and, if that opened the gate, sends what it held.
func (g *styleGate) update(change func()) {
	if !g.on {
		return
	}
	g.mu.Lock()
	change()
	var release []func()
	if g.open() {
		release, g.held = g.held, nil
	}
	g.mu.Unlock()
	for _, request := range release {
		request()
	}
}
