package loader

import (
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// This file gives each request its priority under the load's policy.

// Priorities are the SPDY priorities (0 highest .. 7) the loader gives each
// resource type, after Chromium's mapping of resource types to request
// priorities (document highest, then stylesheets and scripts, images
// lowest): the default priority policy (probe.PriorityChrome). HTTPS
// queues requests per host in the policy's order too.
var Priorities = map[string]uint8{
	page.TypeHTML:  0,
	page.TypeCSS:   1,
	page.TypeJS:    2,
	page.TypeOther: 3,
	page.TypeFlash: 3,
	page.TypeImage: 4,
}

func priorityOf(typ string) uint8 {
	if p, ok := Priorities[typ]; ok {
		return p
	}
	return 3
}

// storedPolicy is a priority policy as a condition stores it (the
// default empty).
func storedPolicy(p string) string {
	if p == probe.PriorityChrome {
		return ""
	}
	return p
}

// equalPriority is every request's priority under probe.PriorityNone:
// SPDY's middle priority, RFC 9218's default urgency.
const equalPriority = 3

// priorityFor is e's request priority under the load's policy: by
// resource type (chrome), the same for all (none), or e's depth in the
// page tree as discovered, the root 0 and each level one lower, at most 7
// (depth). e.parent must be set.
func (l *load) priorityFor(e *entry) uint8 {
	switch l.opt.Priority {
	case probe.PriorityNone:
		return equalPriority
	case probe.PriorityDepth:
		d := 0
		for p := e.parent; p != nil && d < 7; p = p.parent {
			d++
		}
		return uint8(d)
	}
	return priorityOf(e.typ)
}
