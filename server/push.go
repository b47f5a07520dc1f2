package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// Push policies.
const (
	PushNone     = probe.PushNone
	PushManifest = probe.PushManifest // push Config.PushMap[parent] with the parent
	PushPreload  = probe.PushPreload  // push what the response's Link rel=preload headers name
	PushDeps     = probe.PushDeps     // push a document's direct children not yet requested (deps.go)
)

// pushedHeaders are the request headers a pushed request inherits from the
// request that triggered it, as browsers would have sent them.
var pushedHeaders = []string{"User-Agent", "Accept-Language", "Accept-Encoding", "Cookie"}

// push issues the promises for r's response before any of its body is
// written, so that the client learns of the pushed resources before it could
// discover and request them itself; server hints (deps.go) join the
// response header here too. respHeader is the response header about
// to be sent (for "preload"); nil when the response carries none.
func (s *Server) push(w http.ResponseWriter, r *http.Request, respHeader http.Header) {
	s.addHints(r, respHeader)
	var targets []string
	switch s.cfg.Push {
	case PushDeps:
		if r.Method == http.MethodGet {
			targets = s.depsTargets(r)
		}
	case PushManifest:
		targets = s.pushMap[r.URL.Path]
	case PushPreload:
		if respHeader != nil {
			targets = PreloadTargets(respHeader.Values("Link"))
		}
	default:
		return
	}
	if len(targets) == 0 || r.Method != http.MethodGet {
		return
	}
	pusher, ok := w.(http.Pusher)
	if !ok {
		return // HTTP/1.1 has no push
	}
	h := http.Header{}
	for _, k := range pushedHeaders {
		if v := r.Header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	for _, t := range targets {
		err := pusher.Push(t, &http.PushOptions{Method: http.MethodGet, Header: h.Clone()})
		switch {
		case err == nil:
		case errors.Is(err, http.ErrNotSupported):
			// The client disabled push (SETTINGS_ENABLE_PUSH=0) or this is
			// itself a pushed stream: nothing more to do for this request.
			return
		default:
			if s.cfg.Log != nil {
				s.cfg.Log.Printf("push %s (for %s): %v", t, r.URL.Path, err)
			}
			return
		}
	}
}

// PreloadTargets returns the same-origin paths named by Link header values
// with rel=preload, in order, skipping those marked nopush (the convention of
// h2o and nginx for "preload but do not push").
func PreloadTargets(links []string) []string {
	var out []string
	for _, v := range links {
		for _, link := range splitOutsideQuotes(v, ',') {
			link = strings.TrimSpace(link)
			if !strings.HasPrefix(link, "<") {
				continue
			}
			end := strings.IndexByte(link, '>')
			if end < 0 {
				continue
			}
			target := link[1:end]
			preload, nopush := false, false
			for _, param := range splitOutsideQuotes(link[end+1:], ';') {
				param = strings.TrimSpace(param)
				k, val, _ := strings.Cut(param, "=")
				k = strings.ToLower(strings.TrimSpace(k))
				val = strings.Trim(strings.TrimSpace(val), `"`)
				switch k {
				case "rel":
					for _, rel := range strings.Fields(strings.ToLower(val)) {
						if rel == "preload" {
							preload = true
						}
					}
				case "nopush":
					nopush = true
				}
			}
			// Only absolute paths on this origin can be pushed; a push for
			// another authority would be refused by the client anyway.
			if preload && !nopush && strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//") {
				out = append(out, target)
			}
		}
	}
	return out
}

func splitOutsideQuotes(s string, sep byte) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
