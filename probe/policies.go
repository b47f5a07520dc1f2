package probe

import (
	"fmt"
	"strings"
)

// This file owns the TLS options (Condition.TLSResume, EarlyData) and the
// priority policies (Condition.Priority, Scheduler): their values, their
// defaults (stored empty, so conditions hashed before the fields existed
// keep their identity) and which protocols and clients they apply to.

// Priority policies (Condition.Priority): how the loader gives each
// request its priority (0 most urgent .. 7). SPDY carries it in
// SYN_STREAM, h2 in Chrome's dependency tree or an RFC 9218 header (the
// loader's H2Priorities), h3 as RFC 9218 urgency; HTTPS orders each host's
// waiting requests by it.
const (
	// PriorityChrome is by resource type as Chromium assigned them
	// (loader.Priorities: html 0, css 1, js 2, other 3, images 4), the default.
	PriorityChrome = "chrome"
	// PriorityNone gives every request the same priority (3, SPDY's middle
	// and RFC 9218's default urgency).
	PriorityNone = "none"
	// PriorityDepth is by discovery depth in the page tree: the root 0,
	// what it references 1, what those reference 2, ... (at most 7).
	PriorityDepth = "depth"
)

// PriorityPolicies are the valid Condition.Priority values ("" =
// PriorityChrome).
var PriorityPolicies = []string{PriorityChrome, PriorityNone, PriorityDepth}

// Schedulers (Condition.Scheduler): the order in which a SPDY server sends
// the DATA of the streams that have some.
const (
	// SchedulerPriority is strict priority, round-robin among streams of
	// one priority (the default).
	SchedulerPriority = "priority"
	// SchedulerRoundRobin lets every stream with data take turns, frame by
	// frame, ignoring priority.
	SchedulerRoundRobin = "roundrobin"
	// SchedulerFIFO serves streams in the order they were opened, each to
	// its end.
	SchedulerFIFO = "fifo"
	// SchedulerPriorityFIFO is strict priority, the streams of one
	// priority in the order they were opened, each to its end (as a
	// server follows Chromium's exclusive HTTP/2 dependency chains).
	SchedulerPriorityFIFO = "priority-fifo"
)

// Schedulers are the valid Condition.Scheduler values ("" =
// SchedulerPriority).
var Schedulers = []string{SchedulerPriority, SchedulerRoundRobin, SchedulerFIFO, SchedulerPriorityFIFO}

// SchedulerNote says who orders the responses of a protocol the lab's
// SPDY scheduler does not reach, for the scheduler factor's help and
// messages (its Scope's Why).
const SchedulerNote = "h2 is served by Go's net/http server (its own round-robin scheduler) " +
	"and h3 by quic-go (its own stream scheduling), which the lab does not change; HTTP/1.1 has one response per connection at a time"

// PriorityPolicy is the condition's priority policy, the default spelled
// out.
func (c Condition) PriorityPolicy() string {
	if c.Priority == "" {
		return PriorityChrome
	}
	return c.Priority
}

// SchedulerName is the condition's scheduler, the default spelled out.
func (c Condition) SchedulerName() string {
	if c.Scheduler == "" {
		return SchedulerPriority
	}
	return c.Scheduler
}

// EarlyDataProtocols names the protocols the loader can send 0-RTT over.
func EarlyDataProtocols() []string {
	var names []string
	for _, p := range Protocols {
		if p.EarlyData {
			names = append(names, p.Name)
		}
	}
	return names
}

// normalizePolicies checks Priority and Scheduler, storing their defaults
// empty. Which protocols a scheduler reaches is its Scope's (applies.go).
func normalizePolicies(c Condition) (Condition, error) {
	if c.Priority == PriorityChrome {
		c.Priority = ""
	}
	if c.Priority != "" && !member(c.Priority, PriorityPolicies) {
		return c, fmt.Errorf("unknown priority policy %q (want %s)", c.Priority, OneOf(PriorityPolicies))
	}
	if c.Scheduler == SchedulerPriority {
		c.Scheduler = ""
	}
	if c.Scheduler != "" && !member(c.Scheduler, Schedulers) {
		return c, fmt.Errorf("unknown scheduler %q (want %s)", c.Scheduler, OneOf(Schedulers))
	}
	return c, nil
}

// checkTLSOptions checks TLSResume and EarlyData against the TLS version,
// the protocol and the client. c.TLS is already filled in.
func checkTLSOptions(c Condition) error {
	if c.TLSResume && c.TLS == TLSNone {
		return fmt.Errorf("tls_resume needs TLS: tls %q has no handshake to resume", TLSNone)
	}
	if !c.EarlyData {
		return nil
	}
	if c.TLS != TLS13 {
		return fmt.Errorf("early_data (0-RTT) needs tls %s, not %s: TLS 1.2 has no 0-RTT", TLS13, c.TLS)
	}
	if !c.TLSResume && !c.Repeat() {
		return fmt.Errorf("early_data (0-RTT) needs tls_resume or view %s: early data rides on a ticket from an earlier handshake to the host", ViewRepeat)
	}
	if p, ok := LookupProtocol(c.Proto); ok && !p.EarlyData {
		return fmt.Errorf("early_data (0-RTT) needs a protocol that can send it, today %s: Go's crypto/tls has no client 0-RTT over TCP, so %s cannot", OneOf(EarlyDataProtocols()), p.Name)
	}
	return nil
}

// checkLoaderOptions refuses the loader's own options (TLS resumption,
// 0-RTT, the priority policy) for a client that is a real browser.
func checkLoaderOptions(c Condition, cl Client) error {
	if !cl.Browser {
		return nil
	}
	var set []string
	if c.TLSResume {
		set = append(set, "tls_resume")
	}
	if c.EarlyData {
		set = append(set, "early_data")
	}
	if c.Priority != "" {
		set = append(set, "priority "+c.Priority)
	}
	if c.SessionWindow != 0 {
		set = append(set, "session_window") // the browser announces its own
	}
	if c.AdaptiveWindow {
		set = append(set, "adaptive_window") // the browser keeps its own windows
	}
	if len(set) > 0 {
		return fmt.Errorf("%s: the loader's options; client %s resumes sessions, sends 0-RTT and assigns priorities its own way (leave them at their defaults)", joinAnd(set), cl.Name)
	}
	return nil
}

// joinAnd spells a list as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
