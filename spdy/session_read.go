package spdy

// The session's reader and frame dispatch: one goroutine reads frames and
// hands each to its handler (session_streams.go, session_flow.go,
// session_control.go) with mu held.

import (
	"errors"
	"io"
	"os"
)

func (s *session) readLoop() {
	defer close(s.readerDone)
	for {
		f, err := s.fr.ReadFrame()
		if f != nil {
			s.stats.received(f)
			if s.cfg.Trace != nil {
				s.cfg.Trace(false, f)
			}
		}
		if err != nil {
			var se *StreamError
			var sess *SessionError
			switch {
			case errors.As(err, &se):
				s.mu.Lock()
				s.onStreamErrorFrame(f, se)
				s.peerSpokeLocked()
				s.mu.Unlock()
				continue
			case errors.As(err, &sess):
				var rst *RstStreamFrame
				s.mu.Lock()
				if id := sess.RstStream; id != 0 {
					rst = &RstStreamFrame{Stream: id, Status: sess.RstStatus}
					if s.isPeerID(id) && id > s.lastGoodID {
						// The RST answers the stream: GOAWAY must count it (2.6.6).
						s.lastPeerID, s.lastGoodID = max(s.lastPeerID, id), id
					}
				}
				s.fatalLocked(sess, sess.Status, rst, true)
				s.mu.Unlock()
				return
			default:
				s.mu.Lock()
				if !s.dead {
					// Section 2.1: an endpoint closing the connection MUST
					// first send GOAWAY, also when the peer half-closed or
					// stopped mid-frame (PROTOCOL_ERROR: a frame was cut).
					status := GoAwayOK
					if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrDeadlineExceeded) {
						status = GoAwayProtocolError
					}
					if err == io.EOF {
						err = ErrSessionClosed
						if s.goAwayReceived != nil {
							err = &GoAwayError{LastGoodStream: s.goAwayReceived.LastGoodStream, Status: s.goAwayReceived.Status}
						}
					}
					s.fatalLocked(err, status, nil, true)
				}
				s.mu.Unlock()
				return
			}
		}
		s.mu.Lock()
		s.handleFrame(f)
		s.peerSpokeLocked()
		dead := s.dead
		s.mu.Unlock()
		if dead {
			// Keep reading until the writer closes the conn so the peer's
			// frames do not back up; frames are no longer acted on.
			s.drainUntilClosed()
			return
		}
	}
}

func (s *session) drainUntilClosed() {
	for {
		if _, err := s.fr.ReadFrame(); err != nil {
			var se *StreamError
			if errors.As(err, &se) {
				continue
			}
			return
		}
	}
}

// onStreamErrorFrame handles a frame the framer flagged with a stream error
// (bad header block contents, oversize DATA). mu held.
func (s *session) onStreamErrorFrame(f Frame, se *StreamError) {
	if ss, ok := f.(*SynStreamFrame); ok && s.isPeerID(ss.Stream) && ss.Stream > s.lastPeerID {
		s.lastPeerID = ss.Stream // the id is consumed even though the stream is refused
		s.lastGoodID = ss.Stream
	}
	if df, ok := f.(*DataFrame); ok && s.v31 {
		// The peer charged the skipped payload to the session window:
		// account for it, then give it back.
		s.recv.take(int64(df.skipped), 0)
		s.creditSessionLocked(int64(df.skipped))
	}
	if st := s.streams[se.Stream]; st != nil {
		s.resetLocked(st, se.Status, se)
		return
	}
	s.sendRstLocked(se.Stream, se.Status)
}

func (s *session) handleFrame(f Frame) {
	switch f := f.(type) {
	case *DataFrame:
		s.onData(f)
	case *SynStreamFrame:
		s.onSynStream(f)
	case *SynReplyFrame:
		s.onSynReply(f)
	case *HeadersFrame:
		s.onHeaders(f)
	case *RstStreamFrame:
		s.onRst(f)
	case *SettingsFrame:
		s.onSettings(f)
	case *PingFrame:
		s.onPing(f)
	case *GoAwayFrame:
		s.onGoAway(f)
	case *WindowUpdateFrame:
		s.onWindowUpdate(f)
	case *CredentialFrame, *UnknownFrame:
		// SPDY/3 CREDENTIAL carries client certificates this implementation
		// never asks for; unknown control frames must be ignored (2.2.1).
	}
}

// lateFrameLocked answers a stream frame for a stream with no state.
func (s *session) lateFrameLocked(id uint32, typ FrameType) {
	switch s.recentlyClosed[id] {
	case closedByLocalRst:
		return // in flight before our RST arrived; no RST loops
	case closedNormally, closedByRemoteRst:
		if typ == TypeData && s.cfg.wireVersion() == Version2 {
			// Draft 2 ("Stream close"): data on a stream already torn
			// down must be ignored (draft 3 made it PROTOCOL_ERROR).
			return
		}
		if typ == TypeData && s.recentlyClosed[id] == closedNormally {
			// 2.3.7: DATA after the stream is closed gets PROTOCOL_ERROR.
			s.sendRstLocked(id, RstProtocolError)
			return
		}
	}
	s.sendRstLocked(id, RstInvalidStream)
}
