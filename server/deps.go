package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// The "deps" push policy and server hints: both announce, with a
// document, the resources it references directly (Config.DepsMap, or the
// manifest's page.Manifest.DependencyMap). A push is skipped when the
// client has already asked for (or been pushed) that path on the same
// connection: the connection's context carries the paths it has seen.

// Server hint policies (Config.Hints).
const (
	HintsNone = probe.HintsNone
	HintsDeps = probe.HintsDeps // X-Associated-Content on a document's response
)

// connRequests is the set of paths one connection has requested or been
// pushed, shared by the handlers of its streams.
type connRequests struct {
	mu    sync.Mutex
	paths map[string]bool
}

type connRequestsKey struct{}

// withConnRequests gives a connection's context its (empty) path set.
func withConnRequests(ctx context.Context) context.Context {
	return context.WithValue(ctx, connRequestsKey{}, &connRequests{paths: map[string]bool{}})
}

func requestsOf(r *http.Request) *connRequests {
	cr, _ := r.Context().Value(connRequestsKey{}).(*connRequests)
	return cr
}

// claim records path on the connection and reports whether it was new.
func (cr *connRequests) claim(path string) bool {
	if cr == nil {
		return true
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.paths[path] {
		return false
	}
	cr.paths[path] = true
	return true
}

// recordRequest notes r's path on its connection (pushed requests too).
func recordRequest(r *http.Request) { requestsOf(r).claim(r.URL.Path) }

// depsTargets are the children of r's document that the client has not
// requested on this connection, each claimed so it is pushed once.
func (s *Server) depsTargets(r *http.Request) []string {
	cr := requestsOf(r)
	var out []string
	for _, t := range s.depsMap[r.URL.Path] {
		if cr.claim(t) {
			out = append(out, t)
		}
	}
	return out
}

// addHints lists the document's direct children in the response header
// for SPDY clients (Config.Hints deps); other protocols get none.
func (s *Server) addHints(r *http.Request, h http.Header) {
	if s.cfg.Hints != HintsDeps || h == nil || requestPriority(r) < 0 {
		return
	}
	if deps := s.depsMap[r.URL.Path]; len(deps) > 0 {
		spdy.AddServerHints(h, deps...)
	}
}
