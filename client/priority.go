package client

import (
	"context"

	"golang.org/x/net/http2"
)

// PriorityScheme is how an HTTP/2 request's priority reaches the server.
type PriorityScheme int

const (
	// PriorityChrome is Chrome's HTTP/2 dependency tree (Chromium's
	// Http2PriorityDependencies, 2016-2022): every new stream depends
	// exclusively on the most recently opened stream of the same or a more
	// urgent priority, so the streams form one chain ordered by priority,
	// first come first served within one priority; the weight follows the
	// priority.
	PriorityChrome PriorityScheme = iota
	// PriorityRFC9218 sends no dependencies but the Extensible Priorities
	// header `priority: u=N` (N = the request's priority, 0 most urgent),
	// with `, i` (incremental) for priorities 4 and below, as Chrome marks
	// images.
	PriorityRFC9218
	// PriorityNone signals nothing: every stream has the default priority.
	PriorityNone
)

// ParsePriorityScheme maps "chrome", "rfc9218" and "none" to a scheme.
func ParsePriorityScheme(s string) (PriorityScheme, bool) {
	switch s {
	case "chrome", "":
		return PriorityChrome, true
	case "rfc9218":
		return PriorityRFC9218, true
	case "none":
		return PriorityNone, true
	}
	return 0, false
}

// DefaultPriority is a request's priority when the context carries none
// (SPDY's middle priority, Chrome's "medium").
const DefaultPriority = 3

type priorityKey struct{}

// WithPriority attaches a request priority, 0 (most urgent) to 7, for the
// HTTP/2 path; the SPDY path takes spdy.WithPriority.
func WithPriority(ctx context.Context, p uint8) context.Context {
	return context.WithValue(ctx, priorityKey{}, min(p, 7))
}

func priorityOf(ctx context.Context) uint8 {
	if p, ok := ctx.Value(priorityKey{}).(uint8); ok {
		return p
	}
	return DefaultPriority
}

// weightOf maps priority 0..7 to an HTTP/2 weight 256..1 as Chromium's
// Spdy3PriorityToHttp2Weight did; the wire carries weight-1.
func weightOf(p uint8) uint8 {
	const steps = 255.9 / 7
	return uint8(steps * float64(7-int(p))) // weight-1

}

// priorityChain tracks open streams per priority to build Chrome's chain.
type priorityChain struct {
	open_ [8][]uint32 // stream ids in creation order, per priority
}

// open registers stream id at priority p and returns its PRIORITY data.
func (c *priorityChain) open(id uint32, p uint8) http2.PriorityParam {
	param := http2.PriorityParam{Exclusive: true, Weight: weightOf(p)}
	for i := int(p); i >= 0; i-- {
		if l := c.open_[i]; len(l) > 0 {
			param.StreamDep = l[len(l)-1]
			break
		}
	}
	c.open_[p] = append(c.open_[p], id)
	return param
}

// close forgets a stream that ended; the server re-parents its children.
func (c *priorityChain) close(id uint32) {
	for p, l := range c.open_ {
		for i, v := range l {
			if v == id {
				c.open_[p] = append(l[:i:i], l[i+1:]...)
				return
			}
		}
	}
}
