package spdy

// Stream bookkeeping: opening, registering, closing and resetting streams,
// and the frames that open, answer or end them.

import (
	"context"
	"fmt"
)

func (s *session) isPeerID(id uint32) bool {
	if s.isClient {
		return id%2 == 0
	}
	return id%2 == 1
}

func (s *session) rememberClosed(id uint32, kind closeKind) {
	if _, ok := s.recentlyClosed[id]; !ok {
		s.closedOrder = append(s.closedOrder, id)
		if len(s.closedOrder) > recentlyClosedCap {
			delete(s.recentlyClosed, s.closedOrder[0])
			s.closedOrder = s.closedOrder[1:]
		}
	}
	s.recentlyClosed[id] = kind
}

// sendRstLocked queues RST_STREAM for a stream that has no state (or whose
// state is being dropped) and remembers it so later frames are ignored.
func (s *session) sendRstLocked(id uint32, status RstStatus) {
	if id == 0 {
		return
	}
	if s.recentlyClosed[id] == closedByLocalRst {
		return // coalesce: one RST per stream is enough (section 2.4.2)
	}
	if s.isPeerID(id) && id <= s.lastPeerID && id > s.lastGoodID {
		s.lastGoodID = id // a RST_STREAM is a reply (2.6.6 last-good-stream-id)
	}
	s.rememberClosed(id, closedByLocalRst)
	s.queueControl(&RstStreamFrame{Stream: id, Status: status})
}

// resetLocked sends RST_STREAM for an open stream and tears it down.
func (s *session) resetLocked(st *stream, status RstStatus, cause error) {
	if st.closed {
		return
	}
	if cause == nil {
		cause = &RstError{Stream: st.id, Status: status}
	}
	s.sendRstLocked(st.id, status)
	s.closeStreamLocked(st, cause, closedByLocalRst)
}

// closeStreamLocked removes st from the session, failing pending I/O with
// err (nil for a normal close).
func (s *session) closeStreamLocked(st *stream, err error, kind closeKind) {
	if st.closed {
		return
	}
	st.closed = true
	if err != nil {
		for _, dw := range s.sched.removeStream(st) {
			dw.done <- err
		}
		st.failLocked(err)
	}
	if s.streams[st.id] == st {
		delete(s.streams, st.id)
		if s.isPeerID(st.id) {
			s.peerActive--
		} else {
			s.localActive--
		}
		close(s.slotFreed)
		s.slotFreed = make(chan struct{})
	}
	if kind != closedByLocalRst || s.recentlyClosed[st.id] != closedByLocalRst {
		s.rememberClosed(st.id, kind)
	}
	// Data the application never read still occupies the session window.
	// After the peer's FIN the data is complete, though: an RST then (some
	// peers answer a late WINDOW_UPDATE that way) must not destroy it.
	if n := int64(st.buf.len()); n > 0 && err != nil && !st.recvFin {
		st.buf.reset()
		st.dropBufferedLocked(n)
	}
	if st.onClose != nil {
		st.onClose()
	}
	s.afterStreamClosedLocked()
}

func (s *session) maybeCloseLocked(st *stream) {
	if st.localClosed && st.remoteClosed && !st.closed {
		s.closeStreamLocked(st, nil, closedNormally)
	}
}

// afterStreamClosedLocked finishes a graceful shutdown once the last stream
// is gone.
func (s *session) afterStreamClosedLocked() {
	if len(s.streams) > 0 || s.dead {
		return
	}
	if s.goAwaySent || s.goAwayReceived != nil {
		err := error(ErrSessionClosed)
		if g := s.goAwayReceived; g != nil {
			err = &GoAwayError{LastGoodStream: g.LastGoodStream, Status: g.Status}
		}
		s.fatalLocked(err, GoAwayOK, nil, true)
	}
}

// registerLocked enters st (its id set) among the session's streams, in
// open order. mu held.
func (s *session) registerLocked(st *stream) {
	s.opened++
	st.opened = s.opened
	s.streams[st.id] = st
}

// newStreamLocked registers a stream. mu held.
func (s *session) newStreamLocked(id uint32, priority uint8) *stream {
	st := &stream{
		s:           s,
		id:          id,
		priority:    priority & 7,
		send:        outflow{avail: s.peerInitWindow},
		recv:        inflow{avail: s.streamRecvIW},
		declaredLen: -1,
		notify:      make(chan struct{}, 1),
		replied:     make(chan struct{}),
	}
	s.registerLocked(st)
	if s.isPeerID(id) {
		s.peerActive++
	} else {
		s.localActive++
	}
	return st
}

func (s *session) onSynStream(f *SynStreamFrame) {
	if s.goAwaySent {
		return // section 2.6.6: ignore new streams after GOAWAY
	}
	if f.Stream == 0 || !s.isPeerID(f.Stream) {
		s.fatalLocked(sessionErrorf("SYN_STREAM with invalid stream id %d", f.Stream), GoAwayProtocolError, nil, true)
		return
	}
	if st := s.streams[f.Stream]; st != nil {
		s.resetLocked(st, RstProtocolError, &StreamError{Stream: f.Stream, Status: RstProtocolError, Reason: "second SYN_STREAM for an open stream"})
		return
	}
	if f.Stream <= s.lastPeerID {
		s.fatalLocked(sessionErrorf("SYN_STREAM id %d not above previous id %d", f.Stream, s.lastPeerID), GoAwayProtocolError, nil, true)
		return
	}
	s.lastPeerID = f.Stream
	if uint32(s.peerActive) >= s.cfg.maxConcurrent() {
		if s.overLimitLocked(&s.limits.refused, "refused streams") {
			return
		}
		s.lastGoodID = f.Stream
		s.sendRstLocked(f.Stream, RstRefusedStream)
		return
	}
	se := s.onPeerStream(f)
	if s.dead {
		return
	}
	if st := s.streams[f.Stream]; st != nil {
		st.headerBytes = f.Size.Raw
	}
	s.lastGoodID = f.Stream
	if se != nil {
		s.sendRstLocked(f.Stream, se.Status)
	}
	s.resetIdleLocked()
}

func (s *session) onSynReply(f *SynReplyFrame) {
	st := s.streams[f.Stream]
	if st == nil {
		s.lateFrameLocked(f.Stream, TypeSynReply)
		return
	}
	if s.isPeerID(st.id) || st.isPush {
		s.resetLocked(st, RstProtocolError, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "SYN_REPLY for a stream the peer opened"})
		return
	}
	if st.gotReply {
		s.resetLocked(st, RstStreamInUse, &StreamError{Stream: st.id, Status: RstStreamInUse, Reason: "second SYN_REPLY"})
		return
	}
	if f.Headers.Get(":status") == "" || f.Headers.Get(":version") == "" {
		s.resetLocked(st, RstProtocolError, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "SYN_REPLY without :status or :version"})
		return
	}
	if !s.chargeHeadersLocked(st, f.Size.Raw) {
		return
	}
	st.gotReply = true
	st.replyHeaders = f.Headers
	close(st.replied)
	if f.Flags&FlagFin != 0 {
		s.remoteFinLocked(st)
	}
	st.signal()
}

// remoteFinLocked records the peer's FIN on st: the stream is half-closed
// (remote) and fully closed if our side has finished too.
func (s *session) remoteFinLocked(st *stream) {
	st.remoteClosed = true
	st.recvFin = true
	s.maybeCloseLocked(st)
}

func (s *session) onHeaders(f *HeadersFrame) {
	if len(f.Headers) == 0 && f.Flags&FlagFin == 0 && s.overLimitLocked(&s.limits.empty, "empty frames") {
		return
	}
	st := s.streams[f.Stream]
	if st == nil {
		s.lateFrameLocked(f.Stream, TypeHeaders)
		return
	}
	if st.remoteClosed {
		s.resetLocked(st, RstStreamAlreadyClosed, &StreamError{Stream: st.id, Status: RstStreamAlreadyClosed, Reason: "HEADERS after FIN"})
		return
	}
	if !s.chargeHeadersLocked(st, f.Size.Raw) {
		return
	}
	if st.isPush && !st.gotReply {
		// A pushed stream may complete its response headers in HEADERS.
		for k, v := range f.Headers {
			if _, dup := st.replyHeaders[k]; dup {
				s.resetLocked(st, RstProtocolError, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "HEADERS repeats header " + k})
				return
			}
			st.replyHeaders[k] = v
		}
		if st.replyHeaders.Get(":status") != "" {
			st.gotReply = true
			close(st.replied)
		}
	} else {
		if st.trailers == nil {
			st.trailers = Header{}
		}
		for k, v := range f.Headers {
			st.trailers[k] = v
		}
	}
	if f.Flags&FlagFin != 0 {
		s.remoteFinLocked(st)
	}
	st.signal()
}

func (s *session) onRst(f *RstStreamFrame) {
	if s.overLimitLocked(&s.limits.resets, "RST_STREAM frames") {
		return
	}
	st := s.streams[f.Stream]
	if st == nil {
		return // never answer RST with RST
	}
	if f.Status == RstInvalidStream && !st.recvFin && st.complete() {
		// node-spdy forgets a stream once its last DATA is queued, answers
		// our WINDOW_UPDATE for it with INVALID_STREAM, and sends the
		// empty FIN only after that RST. When every byte the
		// Content-Length announced is here, the RST is that artefact:
		// finish the body normally and ignore the FIN that follows.
		st.recvFin, st.remoteClosed = true, true
		for _, dw := range s.sched.removeStream(st) {
			dw.done <- &RstError{Stream: f.Stream, Status: f.Status, Remote: true}
		}
		s.closeStreamLocked(st, nil, closedByLocalRst)
		st.signal()
		return
	}
	s.closeStreamLocked(st, &RstError{Stream: f.Stream, Status: f.Status, Remote: true}, closedByRemoteRst)
	// Cancelling a request cancels the pushes associated with it (3.3.2).
	if !s.isClient && f.Status == RstCancel {
		for _, other := range s.streams {
			if other.isPush && other.associated == f.Stream {
				s.resetLocked(other, RstCancel, nil)
			}
		}
	}
}

// waitSlotLocked blocks (releasing mu) until a local stream may be opened
// under the peer's MAX_CONCURRENT_STREAMS, the session dies, or ctx ends.
func (s *session) waitSlotLocked(ctx context.Context) error {
	for {
		if s.dead {
			if s.err != nil {
				return fmt.Errorf("%w: %w", ErrSessionClosed, s.err)
			}
			return ErrSessionClosed
		}
		if s.goAwaySent || s.goAwayReceived != nil {
			return fmt.Errorf("spdy: session is going away: %w", ErrNotProcessed)
		}
		if s.nextLocalID > 0x7fffffff {
			return ErrStreamIDsExhausted
		}
		if uint32(s.localActive) < s.localStreamLimitLocked() {
			return nil
		}
		ch := s.slotFreed
		s.mu.Unlock()
		select {
		case <-ch:
			s.mu.Lock()
		case <-ctx.Done():
			s.mu.Lock()
			return ctx.Err()
		}
	}
}

// localStreamLimitLocked is how many streams we may have open: the peer's
// MAX_CONCURRENT_STREAMS, or one while we await the peer's first frame
// (which carries that limit when the peer has one).
func (s *session) localStreamLimitLocked() uint32 {
	if s.awaitPeer {
		return min(s.peerMaxStreams, 1)
	}
	return s.peerMaxStreams
}

// peerSpokeLocked ends the wait for the peer's first frame, now handled:
// a peer that limits streams sent its SETTINGS first, so the limit it
// advertised is in force for the requests that waited.
func (s *session) peerSpokeLocked() {
	if !s.awaitPeer {
		return
	}
	s.awaitPeer = false
	close(s.slotFreed)
	s.slotFreed = make(chan struct{})
}
