package spdy

// SPDY/3 stream windows on spdy/2 sessions (Config.SPDY2StreamWindows).
//
// Draft 2 has no flow control, but node-spdy 4 (spdy-transport) keeps
// SPDY/3's 64 KiB stream windows on spdy/2: it stops sending on a stream
// until a WINDOW_UPDATE (type 9, version 2) reopens the window, and sends
// such frames itself. A draft-2 session never reopens them, so every body
// from such a peer stalls after 64 KiB.
//
// SPDY2WindowsAuto detects such a peer in two steps, each of which only
// ever adds SPDY/3 behaviour that a draft-2 peer ignores (draft 2: a
// control frame of a type the receiver does not know is ignored, and
// WINDOW_UPDATE was removed):
//
//   - Receive direction, on the peer's SETTINGS_INITIAL_WINDOW_SIZE or its
//     first stream WINDOW_UPDATE: we start sending WINDOW_UPDATEs for what
//     the application reads (including what it read before), so the peer's
//     sending never stalls at its idea of our window (64 KiB, or our
//     Config.InitialWindowSize, which we then announce). What we accept is
//     still bounded only by Config.MaxUnreadPerStream: a peer that
//     announced a window but keeps none is not cut off. node-spdy sends its
//     SETTINGS at once, and a GET or an upload to it gives it nothing to
//     send WINDOW_UPDATEs for, so this is the signal that makes them work.
//   - Send direction, on the peer's first WINDOW_UPDATE with a delta for a
//     stream: streams opened from then on respect the peer's windows (its
//     SETTINGS_INITIAL_WINDOW_SIZE, 64 KiB if it sent none, reopened by its
//     WINDOW_UPDATEs). Streams already open stay unlimited and ignore their
//     WINDOW_UPDATEs: how much the peer thinks they may still send is
//     unknown, and it tolerated what they sent so far. A SETTINGS alone does
//     not turn this on, since a draft-2 peer may announce a window it never
//     reopens (a stall), and the draft-2 conformance cases send exactly that.

// SPDY2Windows says whether a spdy/2 session keeps SPDY/3 stream windows
// (Config.SPDY2StreamWindows). The zero value is SPDY2WindowsAuto.
type SPDY2Windows int

const (
	// SPDY2WindowsAuto follows draft 2 (no windows) until the peer shows it
	// keeps windows, then keeps them too (see spdy2windows.go).
	SPDY2WindowsAuto SPDY2Windows = iota
	// SPDY2WindowsOn runs SPDY/3 stream flow control from the start:
	// SETTINGS_INITIAL_WINDOW_SIZE and WINDOW_UPDATE (version 2) honoured
	// and sent, no session window, more than the window is
	// FLOW_CONTROL_ERROR.
	SPDY2WindowsOn
	// SPDY2WindowsOff is the draft: WINDOW_UPDATE and the peer's window
	// setting are ignored, none are sent.
	SPDY2WindowsOff
)

var spdy2WindowsNames = [...]string{SPDY2WindowsAuto: "auto", SPDY2WindowsOn: "on", SPDY2WindowsOff: "off"}

// String is "auto", "on" or "off".
func (w SPDY2Windows) String() string { return enumName(spdy2WindowsNames[:], w, "SPDY2Windows") }

// ParseSPDY2Windows maps "auto", "on" or "off" to its value; "" is auto.
func ParseSPDY2Windows(name string) (SPDY2Windows, error) {
	return parseEnum[SPDY2Windows](spdy2WindowsNames[:], name, "spdy/2 window mode")
}

// MarshalText and UnmarshalText make the mode a flag.TextVar or a JSON
// string.
func (w SPDY2Windows) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

func (w *SPDY2Windows) UnmarshalText(b []byte) error {
	v, err := ParseSPDY2Windows(string(b))
	if err == nil {
		*w = v
	}
	return err
}

// spdy2Detection is a spdy/2 session's state under SPDY2WindowsAuto.
type spdy2Detection struct {
	on       bool  // SPDY2WindowsAuto on a spdy/2 session: detection armed
	announce bool  // receive direction: we send WINDOW_UPDATEs
	respect  bool  // send direction: new streams respect the peer's windows
	window   int64 // the stream window the peer assumes we grant
	peerIW   int64 // the peer's SETTINGS_INITIAL_WINDOW_SIZE, kept while unused
}

// spdy2SettingLocked takes the peer's SETTINGS_INITIAL_WINDOW_SIZE on a
// session without stream windows; true when it must be applied to the
// send windows as SPDY/3 does (the peer's windows are respected).
func (s *session) spdy2SettingLocked(v uint32) bool {
	d := &s.spdy2
	if !d.on {
		return false // SPDY/2 has no windows (node-spdy still announces one)
	}
	if !d.respect && v <= maxWindow {
		d.peerIW = int64(v)
	}
	s.announceWindowsLocked()
	return d.respect
}

// spdy2WindowUpdateLocked takes a WINDOW_UPDATE on a session without
// stream windows; true when it must be applied as SPDY/3 does.
func (s *session) spdy2WindowUpdateLocked(f *WindowUpdateFrame) bool {
	d := &s.spdy2
	if !d.on {
		return false // never implemented in SPDY/2 (the draft removed it): ignored
	}
	if !d.respect && f.Stream != 0 && f.Delta > 0 {
		d.respect = true
		s.peerInitWindow = d.peerIW
		for _, st := range s.streams {
			st.unwindowed = true
		}
		s.announceWindowsLocked()
	}
	return d.respect
}

// announceWindowsLocked starts sending WINDOW_UPDATEs: our window, if it
// is not the 64 KiB the peer assumes, is announced first, and what the
// application has already read is returned.
func (s *session) announceWindowsLocked() {
	d := &s.spdy2
	if d.announce {
		return
	}
	d.announce = true
	if w := min(int64(s.cfg.initialWindow()), s.streamRecvIW); w != d.window {
		d.window = w
		s.queueControl(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: uint32(w)}}})
	}
	for _, st := range s.streams {
		s.spdy2ConsumedLocked(st, 0)
	}
}

// spdy2ConsumedLocked counts n bytes the application read (or dropped) on
// a stream without windows, and returns them with a WINDOW_UPDATE once
// detection says the peer waits for it, batched to half its window.
func (s *session) spdy2ConsumedLocked(st *stream, n int64) {
	d := &s.spdy2
	if !d.on {
		return
	}
	st.unannounced += n
	if !d.announce || st.recvFin || st.closed || st.unannounced < d.window/2 || st.unannounced == 0 {
		return // no WINDOW_UPDATE after the peer's FIN (section 2.6.8)
	}
	s.queueControl(&WindowUpdateFrame{Stream: st.id, Delta: uint32(st.unannounced)})
	st.unannounced = 0
}
