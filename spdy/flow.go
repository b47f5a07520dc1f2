package spdy

// inflow is one receive window (a stream's, or the session's in
// SPDY/3.1): how much the peer may still send, and how much the application
// has consumed that has not yet been returned with WINDOW_UPDATE. Windows
// reopen as data is consumed, not as it arrives, so a slow reader throttles
// its peer; updates are batched to half the window.
type inflow struct {
	avail   int64 // bytes the peer may still send; negative once overrun
	unacked int64 // consumed bytes not yet returned by WINDOW_UPDATE
}

// take charges n received bytes; false when the peer overran the window by
// more than slack (the tolerance while a smaller SETTINGS is in flight).
func (f *inflow) take(n, slack int64) bool {
	f.avail -= n
	return f.avail >= -slack
}

// overrun is how far the peer went past the window.
func (f *inflow) overrun() int64 { return -f.avail }

// consumed records n bytes the application used and returns the
// WINDOW_UPDATE delta to send now (0 until half of window is unacked).
func (f *inflow) consumed(n, window int64) int64 {
	if n <= 0 {
		return 0
	}
	f.unacked += n
	if f.unacked < window/2 {
		return 0
	}
	d := f.unacked
	f.avail += d
	f.unacked = 0
	return d
}

// consumedTo records n bytes the application used and returns the
// WINDOW_UPDATE delta that brings what the peer may send up to target
// (0 while that is less than a quarter of target: updates are batched).
// A target below what the peer may already send returns nothing until
// the peer's sends bring it under.
func (f *inflow) consumedTo(n, target int64) int64 {
	if n <= 0 {
		return 0
	}
	f.unacked += n
	d := target - f.avail
	if d < target/4 || d <= 0 {
		return 0
	}
	f.avail += d
	f.unacked = max(0, f.unacked-d)
	return d
}

// grow reopens the window by n at once (a discarded frame, a changed
// initial window); the caller tells the peer when it must.
func (f *inflow) grow(n int64) { f.avail += n }

// outflow is one send window: how much the peer lets us send. It may go
// negative when the peer lowers SETTINGS_INITIAL_WINDOW_SIZE (2.6.8).
type outflow struct{ avail int64 }

// add applies a WINDOW_UPDATE delta (or a SETTINGS change); false when the
// window would exceed 2^31-1, which is the peer's FLOW_CONTROL_ERROR.
func (f *outflow) add(n int64) bool {
	f.avail += n
	return f.avail <= maxWindow
}

// take charges n bytes sent.
func (f *outflow) take(n int64) { f.avail -= n }
