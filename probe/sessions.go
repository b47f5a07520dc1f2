package probe

import "fmt"

// This file owns sessions per host (Condition.Sessions) and how requests
// are spread over them (Condition.SessionPolicy): their values, defaults
// (stored empty, so conditions hashed before the fields existed keep their
// identity) and which protocols and clients they apply to. The loader's
// loader/spread.go carries the policies out.

// MaxSessions is the most SPDY/h2 sessions the loader opens per host: a
// browser's per-host connection limit (HTTPS's six), so that a multiplexed
// protocol never holds more connections to a host than HTTPS may.
const MaxSessions = 6

// Session policies (Condition.SessionPolicy): which of a host's sessions
// a request goes to. Session 1 is the one the host's first request opens.
const (
	// SessionRoundRobin sends a host's requests to its sessions in turn,
	// in the order the page discovers them (the default).
	SessionRoundRobin = "roundrobin"
	// SessionPriority keeps the urgent priority classes (priority 0-2:
	// under the chrome priority policy the document, CSS and scripts) on
	// the first session and spreads the rest in turn over the others, so
	// a loss on an image's connection does not stall the render path.
	SessionPriority = "priority"
	// SessionLargeApart spreads what a browser expects to be large
	// (images, media and fonts, by type) in turn over the sessions after
	// the first, and keeps everything else (document, CSS, scripts, small
	// data) on the first. By type only: in a cold load no earlier response
	// to the same URL has told a size, and the manifest's size is what a
	// real client cannot know.
	SessionLargeApart = "large-apart"
	// SessionDemand opens a host's sessions after the first only on
	// evidence of demand: a request goes to the host's open session that
	// carries the fewest unfinished large responses, and an expected-large
	// request that finds every open session carrying DemandLargePerSession
	// of them opens the next (up to Sessions, the ceiling). "Large" is by
	// type until the response's headers tell its Content-Length, then by
	// that length (DemandLargeBytes). A host with a few large responses
	// keeps one session, as a page of small objects does; a host asked for
	// many at once gets more windows, so that a queue overflow halves one
	// of several and not the only one.
	SessionDemand = "demand"
)

// The demand policy's evidence (SessionDemand), fixed by reasoning, not
// fitted: two large responses already share a session's window and a
// third would wait behind them; a response of 32 KiB or more outlasts a
// few round trips of a window in slow start, where smaller ones finish
// in one or two.
const (
	DemandLargePerSession = 2
	DemandLargeBytes      = 32 << 10
)

// SessionPolicies are the valid Condition.SessionPolicy values ("" =
// SessionRoundRobin).
var SessionPolicies = []string{SessionRoundRobin, SessionPriority, SessionLargeApart, SessionDemand}

// SessionsHelp and SessionPolicyHelp are the factors' help (fieldtable.go).
const SessionsHelp = "SPDY/h2 sessions (TCP connections) the loader opens per host, 1..6: each opens when the session policy first " +
	"gives it a request, as HTTPS's pool opens a connection when a request finds none free, so a host with one resource " +
	"opens one and, with tls_resume, a session started after the host's first handshake resumes it"

var SessionPolicyHelp = "how requests are spread over a host's sessions (sessions > 1): " +
	"roundrobin (in turn, in discovery order); " +
	"priority (priority 0-2, i.e. document, CSS and scripts under priority chrome, on the first session, the rest in turn over the others); " +
	"large-apart (images, media and fonts by type in turn over the sessions after the first, everything else on the first; " +
	"never by the manifest's size, which a client cannot know); " +
	fmt.Sprintf("demand (sessions is the ceiling: each request goes to the host's open session with the fewest unfinished large responses, "+
		"and a large one that finds every open session carrying %d opens the next; large by type until the headers give a Content-Length, "+
		"then from %d KiB)", DemandLargePerSession, DemandLargeBytes>>10)

// SessionCount is the condition's sessions per host, the default spelled
// out.
func (c Condition) SessionCount() int {
	if c.Sessions == 0 {
		return 1
	}
	return c.Sessions
}

// SessionPolicyName is the condition's session policy, the default
// spelled out.
func (c Condition) SessionPolicyName() string {
	if c.SessionPolicy == "" {
		return SessionRoundRobin
	}
	return c.SessionPolicy
}

// SessionsApply tells whether sessions per host change how p loads: SPDY
// and h2 over TCP (the sessions factor's Scope). HTTPS has its own pool;
// QUIC and SCTP streams do not block each other on a loss.
func SessionsApply(p Protocol) bool { return p.Multiplexed && p.Transport == TransportTCP }

// normalizeSessions checks Sessions and SessionPolicy, storing their
// defaults empty, against the client (the protocols: their Scope).
func normalizeSessions(c Condition, cl Client) (Condition, error) {
	if c.Sessions == 1 {
		c.Sessions = 0
	}
	if c.SessionPolicy == SessionRoundRobin {
		c.SessionPolicy = ""
	}
	if c.Sessions < 0 || c.Sessions > MaxSessions {
		return c, fmt.Errorf("sessions %d out of range 1..%d", c.Sessions, MaxSessions)
	}
	if c.SessionPolicy != "" && !member(c.SessionPolicy, SessionPolicies) {
		return c, fmt.Errorf("unknown session policy %q (want %s)", c.SessionPolicy, OneOf(SessionPolicies))
	}
	if c.Sessions == 0 && c.SessionPolicy != "" {
		return c, fmt.Errorf("session_policy %s needs sessions > 1: with one session per host every request goes to it (leave the policy at %s)", c.SessionPolicy, SessionRoundRobin)
	}
	if c.Sessions == 0 {
		return c, nil
	}
	if cl.Browser {
		return c, fmt.Errorf("sessions %d: client %s pools one SPDY/h2 session per host and cannot be told otherwise; sessions are the loader's (leave sessions at 1)", c.Sessions, cl.Name)
	}
	return c, nil
}
