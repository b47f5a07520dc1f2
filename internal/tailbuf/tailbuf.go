// Package tailbuf keeps the last bytes a child process wrote to stderr, so
// that an error about the child (the link emulator, Chromium) can say what
// it printed before it died without holding all of its output.
package tailbuf

import (
	"strings"
	"sync"
)

// Buffer is an io.Writer that keeps the last Max bytes written to it. It is
// safe for concurrent use (exec copies a child's stderr on its own
// goroutine while the parent reads the tail).
type Buffer struct {
	Max int
	mu  sync.Mutex
	b   []byte
}

// New returns a Buffer keeping the last max bytes.
func New(max int) *Buffer { return &Buffer{Max: max} }

func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.Max {
		t.b = append(t.b[:0:0], t.b[len(t.b)-t.Max:]...)
	}
	return len(p), nil
}

// String is what the buffer holds.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Suffix is ": <trimmed tail>" to append to an error message, or "" when
// nothing was written.
func (t *Buffer) Suffix() string {
	s := strings.TrimSpace(t.String())
	if s == "" {
		return ""
	}
	return ": " + s
}
