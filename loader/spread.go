package loader

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// This file spreads a host's SPDY/h2 requests over its sessions
// (Options.Sessions, Options.SessionPolicy; probe/sessions.go owns the
// names and says what each policy does). One session per host (the
// default) sends every request to session 0. Each request gets its
// session as the load discovers it, under the load's lock, so the spread
// follows the page's order, not the order goroutines happen to run in.

// spreader assigns sessions for one load.
type spreader struct {
	n      int
	policy string
	turns  map[string]int // next turn per host (the sessions a policy rotates over)
}

func newSpreader(n int, policy string) (*spreader, error) {
	if n < 1 {
		n = 1
	}
	if policy == "" {
		policy = probe.SessionRoundRobin
	}
	if !slices.Contains(probe.SessionPolicies, policy) {
		return nil, fmt.Errorf("unknown session policy %q (want %s)", policy, probe.OneOf(probe.SessionPolicies))
	}
	return &spreader{n: n, policy: policy, turns: map[string]int{}}, nil
}

// assign returns the session (0-based) of the next request to host with
// the given resource type, URL path and priority.
func (s *spreader) assign(host, typ, urlPath string, priority uint8) int {
	if s.n == 1 {
		return 0
	}
	switch s.policy {
	case probe.SessionPriority:
		if priority < priorityOf(page.TypeOther) {
			return 0
		}
		return 1 + s.turn(host, s.n-1)
	case probe.SessionLargeApart:
		if !expectedLarge(typ, urlPath) {
			return 0
		}
		return 1 + s.turn(host, s.n-1)
	}
	return s.turn(host, s.n)
}

// turn hands out 0..k-1 in turn per host.
func (s *spreader) turn(host string, k int) int {
	t := s.turns[host]
	s.turns[host] = t + 1
	return t % k
}

// largeExtensions are fonts and media: types the manifest calls "other"
// that a browser still expects to be large.
var largeExtensions = []string{".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp4", ".webm", ".ogg", ".ogv", ".mp3", ".m4a", ".mov", ".swf"}

// expectedLarge tells whether a browser would expect a response to be
// large from what it knows before asking: the type the reference gives
// (images, Flash media) or the URL's extension (fonts, media).
func expectedLarge(typ, urlPath string) bool {
	if typ == page.TypeImage || typ == page.TypeFlash {
		return true
	}
	return slices.Contains(largeExtensions, strings.ToLower(path.Ext(urlPath)))
}

// sessionSpreader checks o's sessions per host and returns the load's
// spreader: o.Sessions for SPDY and h2 over TCP; one session for HTTPS,
// whose pool is MaxConnsPerHost; refused above one for the others.
func sessionSpreader(o Options) (*spreader, error) {
	if o.Sessions < 0 || o.Sessions > o.MaxConnsPerHost {
		return nil, fmt.Errorf("sessions %d per host out of range 1..%d (MaxConnsPerHost)", o.Sessions, o.MaxConnsPerHost)
	}
	p, _ := probe.LookupProtocol(o.Proto)
	n := o.Sessions
	switch {
	case n <= 1 || !p.Multiplexed:
		n = 1
	case !probe.SessionsApply(p):
		return nil, fmt.Errorf("sessions %d: %s opens one connection per host (its streams do not block each other on a loss)", o.Sessions, p.Name)
	}
	return newSpreader(n, o.SessionPolicy)
}

// storedSessions and storedSessionPolicy are Options' sessions as a
// condition stores them (the defaults empty, probe/sessions.go).
func storedSessions(n int) int {
	if n <= 1 {
		return 0
	}
	return n
}

func storedSessionPolicy(n int, policy string) string {
	if n <= 1 || policy == probe.SessionRoundRobin {
		return ""
	}
	return policy
}
