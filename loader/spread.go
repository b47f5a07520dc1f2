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

// spreader assigns sessions for one load. Its methods run under the
// load's lock.
type spreader struct {
	n      int
	policy string
	turns  map[string]int         // next turn per host (the sessions a policy rotates over)
	demand map[string]*hostDemand // per host, under SessionDemand
}

// hostDemand is a host's sessions under the demand policy: how many are
// open (or opening) and how many unfinished large responses each carries.
type hostDemand struct {
	open  int
	large []int
}

// lightest is the open session carrying the fewest large responses, the
// first of those tied.
func (d *hostDemand) lightest() int {
	best := 0
	for slot := 1; slot < d.open; slot++ {
		if d.large[slot] < d.large[best] {
			best = slot
		}
	}
	return best
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
	return &spreader{n: n, policy: policy, turns: map[string]int{}, demand: map[string]*hostDemand{}}, nil
}

// assign returns the session (0-based) of the next request to host with
// the given resource type, URL path and priority, and whether the demand
// policy counts it as large on that session until it finishes (finished)
// or its headers say otherwise (sized).
func (s *spreader) assign(host, typ, urlPath string, priority uint8) (slot int, large bool) {
	if s.n == 1 {
		return 0, false
	}
	switch s.policy {
	case probe.SessionDemand:
		large = expectedLarge(typ, urlPath)
		return s.onDemand(host, large), large
	case probe.SessionPriority:
		if priority < priorityOf(page.TypeOther) {
			return 0, false
		}
		return 1 + s.turn(host, s.n-1), false
	case probe.SessionLargeApart:
		if !expectedLarge(typ, urlPath) {
			return 0, false
		}
		return 1 + s.turn(host, s.n-1), false
	}
	return s.turn(host, s.n), false
}

// onDemand places a request under the demand policy: on the host's open
// session with the fewest unfinished large responses or, when it is
// large and every open session already carries DemandLargePerSession of
// them, on the next session, which opens for it (up to n).
func (s *spreader) onDemand(host string, large bool) int {
	d := s.hostDemand(host)
	slot := d.lightest()
	if large && d.large[slot] >= probe.DemandLargePerSession && d.open < s.n {
		slot = d.open
		d.open++
	}
	if large {
		d.large[slot]++
	}
	return slot
}

func (s *spreader) hostDemand(host string) *hostDemand {
	// A host's first request makes its entry, so Hosts counts them all.
	d := s.demand[host]
	if d == nil {
		d = &hostDemand{open: 1, large: make([]int, s.n)}
		s.demand[host] = d
	}
	return d
}

// demanding tells whether the demand policy is on: only then do sized and
// finished need the load's lock. n and policy never change after
// newSpreader, so this reads without it.
func (s *spreader) demanding() bool { return s.n > 1 && s.policy == probe.SessionDemand }

// sized tells the demand policy a response's Content-Length (-1:
// unknown) once its headers arrive: from then on it counts as large by
// that length, not by its type. It returns whether it counts.
func (s *spreader) sized(host string, slot int, counted bool, contentLength int64) bool {
	d := s.demand[host]
	if d == nil || contentLength < 0 {
		return counted
	}
	large := contentLength >= probe.DemandLargeBytes
	switch {
	case large && !counted:
		d.large[slot]++
	case !large && counted:
		d.large[slot]--
	}
	return large
}

// finished tells the demand policy a request on slot ended (its body read
// or the exchange failed): it no longer weighs on its session.
func (s *spreader) finished(host string, slot int, counted bool) {
	if d := s.demand[host]; d != nil && counted {
		d.large[slot]--
	}
}

// demandSum sums up the demand policy over the load's hosts (nil under
// another policy).
func (s *spreader) demandSum() *probe.DemandSum {
	if !s.demanding() {
		return nil
	}
	sum := &probe.DemandSum{Hosts: len(s.demand)}
	for _, d := range s.demand {
		if d.open > 1 {
			sum.Grew++
			sum.Extra += d.open - 1
		}
	}
	return sum
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

// demandSum is the load's DemandSum, read under its lock.
func (l *load) demandSum() *probe.DemandSum {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spread.demandSum()
}
