// Package ctxtime waits for a duration or a context, whichever ends first.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends; then it returns ctx's cause (nil when
// the whole d passed). A d of zero or less returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
