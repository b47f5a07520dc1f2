// Package testutil holds helpers shared by the lab's tests. The libraries
// that must stay importable alone (spdy, h3, sctp) keep their own.
package testutil

import (
	"os"
	"testing"
)

// RequireRoot skips tb unless it runs as root, which building network
// namespaces and TUN devices needs.
func RequireRoot(tb testing.TB) {
	tb.Helper()
	RequireRootTo(tb, "build network namespaces and TUN devices")
}

// RequireRootTo skips tb unless it runs as root, saying what root is
// needed for ("mount a small tmpfs").
func RequireRootTo(tb testing.TB, what string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skipf("needs root to %s (CI runs as root)", what)
	}
}
