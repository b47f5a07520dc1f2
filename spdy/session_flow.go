package spdy

// Flow control: DATA against the stream and session receive windows,
// WINDOW_UPDATE and SETTINGS_INITIAL_WINDOW_SIZE against the send windows.

import "fmt"

// creditSessionLocked returns consumed (or discarded) bytes to the peer's
// session window, batching WINDOW_UPDATEs to half the window.
func (s *session) creditSessionLocked(n int64) {
	if !s.v31 || n <= 0 {
		return
	}
	if s.rw != nil {
		if d := s.recv.consumedTo(n, s.rw.target); d > 0 {
			s.queueControl(&WindowUpdateFrame{Stream: 0, Delta: uint32(d)})
		}
		return
	}
	if d := s.recv.consumed(n, int64(s.cfg.sessionWindow())); d > 0 {
		s.queueControl(&WindowUpdateFrame{Stream: 0, Delta: uint32(d)})
	}
}

// dataHeader is the framer's dataGate: a DATA frame judged by its header,
// before its payload arrives. In SPDY/3.1 a frame larger than what is left
// of the session window is the peer's FLOW_CONTROL_ERROR, which ends the
// session whether or not the payload ever comes; a frame for a stream with
// no state is answered at once (onData, INVALID_STREAM), its payload
// discarded unread, unless it is longer than any stream's window, which ends
// the session at once as a lying length. A frame larger than what is left of its open stream's
// window is that stream's FLOW_CONTROL_ERROR, told at once too (a
// StreamError: the stream is reset now and the payload skipped), so a peer
// that announces megabytes on a stream gets its answer before it sends
// them, not after the frame read timeout. Runs on the reader goroutine.
func (s *session) dataHeader(id uint32, length int) (open bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.v31 && int64(length) > s.recv.avail {
		return false, &SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf("FLOW_CONTROL_ERROR: a DATA frame of %d bytes overruns the session window (%d bytes left)", length, s.recv.avail)}
	}
	st := s.streams[id]
	if st == nil {
		if int64(length) > s.streamRecvIW+s.recvSlack {
			// No stream of ours could take it, so it is no late frame of a
			// closed stream: a lying length, not a payload worth waiting for.
			return false, &SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf("DATA frame of %d bytes for stream %d, which is not open, exceeds any stream's window (%d bytes)", length, id, s.streamRecvIW+s.recvSlack)}
		}
		return false, nil
	}
	if !st.remoteClosed && int64(length) > st.recv.avail+s.recvSlack {
		return true, &StreamError{Stream: id, Status: RstFlowControlError, Reason: s.overrunReason(int64(length) - st.recv.avail)}
	}
	return true, nil
}

// overrunReason says why a stream that received n bytes beyond its
// window is reset.
func (s *session) overrunReason(n int64) string {
	if !s.flow {
		return fmt.Sprintf("more than %d unread bytes buffered (SPDY/2 has no flow control; Config.MaxUnreadPerStream)", s.streamRecvIW)
	}
	return fmt.Sprintf("peer overran the stream window by %d bytes", n)
}

func (s *session) onData(f *DataFrame) {
	n := int64(len(f.Data) + f.skipped) // skipped: the payload of a frame no stream takes
	if n == 0 && f.Flags&FlagFin == 0 && s.overLimitLocked(&s.limits.empty, "empty frames") {
		return
	}
	if s.v31 {
		if !s.recv.take(n, 0) {
			s.fatalLocked(&SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf("FLOW_CONTROL_ERROR: peer overran the session window by %d bytes", s.recv.overrun())}, GoAwayProtocolError, nil, true)
			return
		}
		s.recvWindowDataLocked(n)
	}
	st := s.streams[f.Stream]
	if st == nil {
		s.creditSessionLocked(n)
		s.lateFrameLocked(f.Stream, TypeData)
		return
	}
	if !s.isPeerID(st.id) && !st.gotReply && !st.isPush {
		s.creditSessionLocked(n)
		s.resetLocked(st, RstProtocolError, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "DATA before SYN_REPLY"})
		return
	}
	if st.remoteClosed {
		s.creditSessionLocked(n)
		s.resetLocked(st, RstStreamAlreadyClosed, &StreamError{Stream: st.id, Status: RstStreamAlreadyClosed, Reason: "DATA after FIN"})
		return
	}
	if !st.recv.take(n, s.recvSlack) {
		s.creditSessionLocked(n)
		s.resetLocked(st, RstFlowControlError, &StreamError{Stream: st.id, Status: RstFlowControlError, Reason: s.overrunReason(st.recv.overrun())})
		return
	}
	data := f.Data
	if f.Flags&FlagDataCompress != 0 && n > 0 {
		out, err := st.inflateLocked(data)
		if err != nil {
			s.creditSessionLocked(n)
			s.resetLocked(st, err.Status, err)
			return
		}
		data = out
		if !st.discard {
			st.inflated += int64(len(out))
			st.inflatedWire += n
		}
	}
	if n > 0 {
		if st.discard {
			s.creditSessionLocked(n)
			st.recv.grow(n)
		} else {
			st.buf.write(data)
			if st.isPush && !st.claimed && f.Flags&FlagDataCompress == 0 {
				// Nobody may ever read an unclaimed push: do not let it pin
				// the session window (its stream window still bounds the
				// buffer). Reading it later credits only what is left.
				s.creditSessionLocked(n)
				st.precredited += n
			}
		}
		st.received += int64(len(data))
	}
	if f.Flags&FlagFin != 0 {
		s.remoteFinLocked(st)
	}
	st.signal()
}

func (s *session) onWindowUpdate(f *WindowUpdateFrame) {
	if !s.flow && !s.spdy2WindowUpdateLocked(f) {
		return
	}
	if f.Stream == 0 {
		if !s.v31 {
			return // spdy/3 has no session window; stream 0 means nothing
		}
		if f.Delta == 0 {
			s.fatalLocked(sessionErrorf("FLOW_CONTROL_ERROR: session WINDOW_UPDATE with delta 0"), GoAwayProtocolError, nil, true)
			return
		}
		if !s.send.add(int64(f.Delta)) {
			s.fatalLocked(sessionErrorf("FLOW_CONTROL_ERROR: session window %d exceeds 2^31-1", s.send.avail), GoAwayProtocolError, nil, true)
			return
		}
		s.wake.Signal()
		return
	}
	st := s.streams[f.Stream]
	if st == nil || st.unwindowed {
		return // late updates after our last frame are ignored (2.6.8)
	}
	if f.Delta == 0 {
		s.resetLocked(st, RstFlowControlError, &StreamError{Stream: st.id, Status: RstFlowControlError, Reason: "WINDOW_UPDATE with delta 0"})
		return
	}
	if !st.send.add(int64(f.Delta)) {
		s.resetLocked(st, RstFlowControlError, &StreamError{Stream: st.id, Status: RstFlowControlError, Reason: "stream window exceeds 2^31-1"})
		return
	}
	s.wake.Signal()
}

// setInitialWindowLocked changes our per-stream receive window mid-session:
// open streams are adjusted by the difference and a SETTINGS frame tells the
// peer. While that SETTINGS is in flight the peer may still fill the old
// window, which the slack tolerates (section 2.6.8, "option 2").
func (s *session) setInitialWindowLocked(n int32) {
	delta := int64(n) - s.streamRecvIW
	s.streamRecvIW = int64(n)
	if delta < 0 && -delta > s.recvSlack {
		s.recvSlack = -delta
	}
	for _, st := range s.streams {
		st.recv.grow(delta)
	}
	s.queueControl(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: uint32(n)}}})
}
