package spdy

import (
	"errors"
	"fmt"
)

var (
	// ErrSessionClosed is returned for operations on a closed session.
	ErrSessionClosed = errors.New("spdy: session closed")
	// ErrNotProcessed reports that the peer did not process a request (it
	// was above the GOAWAY last-good-stream-id, refused with REFUSED_STREAM,
	// or never sent because of GOAWAY). Retrying it on a new session is safe.
	ErrNotProcessed = errors.New("spdy: request not processed by peer; safe to retry")
	// ErrStreamIDsExhausted: the 31-bit stream id space is used up.
	ErrStreamIDsExhausted = errors.New("spdy: stream ids exhausted")
)

// RstError is the error a stream reports after the peer reset it.
type RstError struct {
	Stream uint32
	Status RstStatus
	Remote bool // true when the peer sent the RST_STREAM
}

func (e *RstError) Error() string {
	who := "local"
	if e.Remote {
		who = "peer"
	}
	return fmt.Sprintf("spdy: stream %d reset by %s: %s", e.Stream, who, e.Status)
}

// Is lets errors.Is(err, ErrNotProcessed) match a peer's REFUSED_STREAM.
func (e *RstError) Is(target error) bool {
	return target == ErrNotProcessed && e.Remote && e.Status == RstRefusedStream
}

// GoAwayError is the error of streams and sessions ended by a peer's GOAWAY.
type GoAwayError struct {
	LastGoodStream uint32
	Status         GoAwayStatus
	Stream         uint32 // the affected stream, 0 for the session
}

func (e *GoAwayError) Error() string {
	if e.Stream != 0 {
		return fmt.Sprintf("spdy: stream %d not processed: peer sent GOAWAY %s with last good stream %d", e.Stream, e.Status, e.LastGoodStream)
	}
	return fmt.Sprintf("spdy: peer sent GOAWAY %s (last good stream %d)", e.Status, e.LastGoodStream)
}

// Is: streams above the last good id were not processed and can be retried.
func (e *GoAwayError) Is(target error) bool {
	return target == ErrNotProcessed && e.Stream > e.LastGoodStream
}

// StreamError is a problem confined to one stream: the session answers it
// with RST_STREAM(Status) and carries on.
type StreamError struct {
	Stream uint32
	Status RstStatus
	Reason string
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("spdy: stream %d: %s: %s", e.Stream, e.Status, e.Reason)
}

// SessionError is a problem that ends the session: the session answers it
// with GOAWAY(Status) and closes the connection. When RstStream is non-zero a
// RST_STREAM(RstStatus) for that stream precedes the GOAWAY (for example
// FRAME_TOO_LARGE for a header frame the framer could not decompress).
type SessionError struct {
	Status    GoAwayStatus
	Reason    string
	RstStream uint32
	RstStatus RstStatus
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("spdy: session error %s: %s", e.Status, e.Reason)
}

func sessionErrorf(format string, args ...any) *SessionError {
	return &SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf(format, args...)}
}
