package probe

import (
	"fmt"
	"strings"
)

// This file owns the one rule for settings that configure some protocols
// only (frame_size, hints, scheduler: SPDY; session_window: the protocols
// with a session window; adaptive_window: SPDY/3.1; sessions and
// session_policy: SPDY and h2 over TCP;
// pacing, notsent_lowat: TCP). A Field's Scope says which protocols take it.
//
// The rule: a bench is one condition loaded over several protocols side
// by side (a study's conditions that differ only in protocol, `spdylab
// load`'s --proto list). A setting away from its default must apply to at
// least one of the bench's protocols (CheckApplies refuses it otherwise,
// naming the protocols it applies to); the bench's other protocols ignore
// it. So a study's https baseline stays beside each value of such a factor
// (in the same bench, interleaved), its stored condition keeps the value
// and IgnoredBy says it had no effect (the report marks it), while
// `spdylab load --proto https --frame-size 4096` is refused. A profile
// configures each protocol it names, so each must take its settings.
// Normalize checks values, never this rule: it sees one protocol at a time.

// Scope is the set of protocols a setting configures, for a Field that
// does not configure every protocol (Field.Scope).
type Scope struct {
	// Applies tells whether the setting configures protocol p.
	Applies func(p Protocol) bool
	// Why says why the other protocols cannot take it, for help and messages.
	Why string
	// set tells whether c holds the setting away from its default.
	set func(c Condition) bool
}

// Protocols names the protocols the scope applies to, in Protocols order.
func (s *Scope) Protocols() []string {
	var names []string
	for _, p := range Protocols {
		if s.Applies(p) {
			names = append(names, p.Name)
		}
	}
	return names
}

// help is the rule as a setting's help states it.
func (s *Scope) help() string {
	return "; applies to " + OneOf(s.Protocols()) + " only (" + s.Why + "): beside one of them (a study's protocols, load's --proto list) the others ignore it; without one it is refused"
}

// The scopes of the settings that configure some protocols only; a
// Field's Scope is one of them with the test of its own value (when).
var (
	tcpScope = Scope{Applies: func(p Protocol) bool { return p.Transport == TransportTCP },
		Why: "a TCP socket option; QUIC and SCTP pace and buffer their own way"}
	frameSizeScope = Scope{Applies: Protocol.SPDY,
		Why: "h2's and h3's DATA framing is their servers' (Go's net/http, quic-go); HTTP/1.1 has none"}
	hintsScope         = Scope{Applies: Protocol.SPDY, Why: "X-Associated-Content is a SPDY server hint"}
	schedulerScope     = Scope{Applies: Protocol.SPDY, Why: SchedulerNote}
	sessionWindowScope = Scope{Applies: func(p Protocol) bool { return p.SessionWindow },
		Why: "the others have no session window the lab sets"}
	adaptiveWindowScope = Scope{Applies: func(p Protocol) bool { return p.SPDY() && p.SessionWindow },
		Why: "it moves a SPDY/3.1 session window, which SPDY/2 and /3 lack; the loader's h2 and h3 windows are not built to move"}
	sessionsScope = Scope{Applies: SessionsApply,
		Why: "HTTPS keeps its own pool of up to 6 connections per host; h3's and SCTP's streams do not block each other on a loss, and the loader opens one connection per host"}
)

// when is the scope for one setting, set away from its default when set
// says so.
func (s Scope) when(set func(c Condition) bool) *Scope {
	s.set = set
	return &s
}

// IgnoredBy lists the settings c holds away from their defaults that do
// not apply to protocol proto, in Fields order: what a bench's load over
// proto ignores. Empty for an unknown protocol.
func IgnoredBy(c Condition, proto string) []string {
	p, ok := LookupProtocol(proto)
	if !ok {
		return nil
	}
	var names []string
	for _, f := range Fields {
		if f.Scope != nil && f.Scope.set(c) && !f.Scope.Applies(p) {
			names = append(names, f.Name)
		}
	}
	return names
}

// ForProtocol is c as a load over c.Proto sees it: the settings c.Proto
// ignores (IgnoredBy) at their defaults. The harness configures each
// load's client from it, so an ignored setting cannot leak into a
// protocol that has a similar knob of its own (h3's connection window).
func ForProtocol(c Condition) Condition {
	ignored := IgnoredBy(c, c.Proto)
	if len(ignored) == 0 {
		return c
	}
	for _, name := range ignored {
		f, _ := LookupField(name)
		f.apply(&c, map[string]string{name: f.Default})
	}
	if n, err := Normalize(c); err == nil { // defaults in their stored spelling
		c = n
	}
	return c
}

// CheckApplies refuses a setting c holds away from its default that
// applies to none of protos, the protocols a bench loads c over; the
// message names the protocols it applies to.
func CheckApplies(c Condition, protos []string) error {
	for _, f := range Fields {
		if f.Scope == nil || !f.Scope.set(c) {
			continue
		}
		takes := false
		for _, name := range protos {
			p, ok := LookupProtocol(name)
			takes = takes || ok && f.Scope.Applies(p)
		}
		if !takes {
			return fmt.Errorf("%s has no effect on %s: it applies to %s only (%s). Leave %s at its default (%s), or load one of those protocols beside %s, which then ignores it",
				f.Name, strings.Join(protos, ", "), OneOf(f.Scope.Protocols()), f.Scope.Why, f.Name, f.Default, strings.Join(protos, ", "))
		}
	}
	return nil
}
