package probe

import "fmt"

// This file owns the view (Condition.View): whether a load is a first
// visit or a repeat visit of its page.

// Views: a first view starts with nothing (no connection, no cache, no
// TLS session); a repeat view comes back after a first view of the same
// page (the harness's priming load) with its TLS session tickets (and, for
// h3, what 0-RTT needs) but, as after the browser's sockets and cache were
// flushed, no open connection and an empty HTTP cache.
const (
	ViewFirst  = "first"
	ViewRepeat = "repeat"
)

// Views are the valid Condition.View values ("" = ViewFirst).
var Views = []string{ViewFirst, ViewRepeat}

// ViewName is the condition's view, the default spelled out.
func (c Condition) ViewName() string {
	if c.View == "" {
		return ViewFirst
	}
	return c.View
}

// Repeat reports whether the condition is a repeat view.
func (c Condition) Repeat() bool { return c.View == ViewRepeat }

// normalizeView checks View, storing the default empty (conditions hashed
// before the field existed keep their identity). A repeat view reuses TLS
// sessions, so it needs TLS. c.TLS is already filled in.
func normalizeView(c Condition) (Condition, error) {
	if c.View == ViewFirst {
		c.View = ""
	}
	if c.View != "" && !member(c.View, Views) {
		return c, fmt.Errorf("unknown view %q (want %s)", c.View, OneOf(Views))
	}
	if c.Repeat() && c.TLS == TLSNone {
		return c, fmt.Errorf("view %s needs TLS: it reuses the first view's TLS sessions, and tls %q has none (leave view at %s)", ViewRepeat, TLSNone, ViewFirst)
	}
	return c, nil
}
