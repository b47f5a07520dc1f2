package spdy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
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

const (
	// recentlyClosedCap bounds the memory of closed stream ids kept to answer
	// late frames with the right status.
	recentlyClosedCap = 1024
	// closeWriteTimeout bounds how long a dying session tries to deliver its
	// final GOAWAY to a peer that is not reading.
	closeWriteTimeout = 2 * time.Second
)

type closeKind uint8

const (
	closedNormally    closeKind = iota + 1 // both sides sent FIN
	closedByLocalRst                       // we sent RST_STREAM: late frames are expected, ignore them
	closedByRemoteRst                      // the peer sent RST_STREAM
)

// session is the machinery shared by ClientConn and Server: one reader
// goroutine, one writer goroutine, one mutex over all stream state.
type session struct {
	conn     net.Conn
	cfg      Config
	isClient bool
	v31      bool
	flow     bool    // stream windows; false for spdy/2
	fr       frameIO // a *Framer on the conn, or SCTP messages (transport.go)
	maxFrame int

	mu   sync.Mutex
	wake *sync.Cond // signals the writer

	sched          writeScheduler
	streams        map[uint32]*stream
	opened         uint64 // streams opened so far, either side (stream.opened)
	nextLocalID    uint32
	lastPeerID     uint32 // highest stream id the peer opened (ids must grow)
	lastGoodID     uint32 // highest peer stream answered (SYN_REPLY/RST): GOAWAY last-good
	localActive    int    // open streams we created (bounded by the peer's limit)
	peerActive     int    // open streams the peer created (bounded by ours)
	peerMaxStreams uint32
	peerInitWindow int64 // the peer's SETTINGS_INITIAL_WINDOW_SIZE: our new streams' send window

	send         outflow // session send window (3.1)
	recv         inflow  // session receive window (3.1)
	streamRecvIW int64   // our per-stream receive window
	recvSlack    int64   // see newStream: tolerance while our SETTINGS is in flight

	recentlyClosed map[uint32]closeKind
	closedOrder    []uint32

	goAwaySent     bool
	goAwayReceived *GoAwayFrame
	dead           bool  // conn is going down; writer drains control frames and exits
	err            error // why the session ended
	slotFreed      chan struct{}
	pings          map[uint32]chan struct{}
	nextPingID     uint32
	idleTimer      *time.Timer

	// hooks set by client/server
	onPeerStream func(f *SynStreamFrame) *StreamError // called with mu held
	onPersist    func(f *SettingsFrame)               // client: SETTINGS persistence, mu held

	stats  statsCounter
	limits limiters

	readerDone chan struct{}
	writerDone chan struct{}
	done       chan struct{} // closed when both loops exited and conn is closed
}

// noFlowWindow is a spdy/2 stream's send window: large enough never to run
// out, small enough that adding to it cannot overflow.
const noFlowWindow = 1 << 62

func newSession(conn net.Conn, cfg Config, isClient bool) (*session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &session{
		conn:           conn,
		cfg:            cfg,
		isClient:       isClient,
		v31:            cfg.version31(),
		flow:           cfg.flowControlled(),
		maxFrame:       cfg.maxFrameSize(),
		streams:        make(map[uint32]*stream),
		peerMaxStreams: ^uint32(0), // spec: no limit until the peer says so
		peerInitWindow: DefaultInitialWindowSize,
		send:           outflow{avail: DefaultInitialWindowSize},
		recv:           inflow{avail: int64(cfg.sessionWindow())},
		streamRecvIW:   int64(cfg.initialWindow()),
		recentlyClosed: make(map[uint32]closeKind),
		slotFreed:      make(chan struct{}),
		pings:          make(map[uint32]chan struct{}),
		readerDone:     make(chan struct{}),
		writerDone:     make(chan struct{}),
		done:           make(chan struct{}),
		limits:         newLimiters(&cfg),
	}
	s.sched.policy = cfg.Scheduler
	if !s.flow {
		// SPDY/2: no windows. Sends never wait; a stream's "receive
		// window" is only the unread-buffer cap, returned as the
		// application reads, never announced.
		s.peerInitWindow = noFlowWindow
		s.streamRecvIW = cfg.maxUnreadPerStream()
	} else if s.streamRecvIW < DefaultInitialWindowSize {
		// The peer may send up to the default window before our smaller
		// SETTINGS reaches it (section 2.6.8); accept that, nothing more.
		s.recvSlack = DefaultInitialWindowSize - s.streamRecvIW
	}
	s.wake = sync.NewCond(&s.mu)
	if isClient {
		s.nextLocalID, s.nextPingID = 1, 1
	} else {
		s.nextLocalID, s.nextPingID = 2, 2
	}
	if cfg.NotSentLowat > 0 {
		if err := setNotSentLowat(conn, cfg.NotSentLowat); err != nil {
			return nil, fmt.Errorf("spdy: setting TCP_NOTSENT_LOWAT: %w", err)
		}
	}
	br := bufio.NewReaderSize(conn, 32<<10)
	fr := NewFramerVersion(cfg.wireVersion(), bufio.NewWriterSize(conn, 64<<10), br, cfg.MaxHeaderBlockSize)
	if t := cfg.frameReadTimeout(isClient); t > 0 {
		fr.stall = &stallGuard{br: br, conn: conn, timeout: t}
	}
	fr.MaxReadFrameSize = cfg.MaxReadFrameSize
	if fr.MaxReadFrameSize == 0 {
		fr.MaxReadFrameSize = DefaultMaxReadFrameSize
	}
	s.fr = frameIOFor(conn, fr, cfg, isClient) // SCTP: frames as messages (transport.go)
	return s, nil
}

// start queues the initial SETTINGS (and session WINDOW_UPDATE) and starts
// the reader and writer goroutines.
func (s *session) start(extra []Setting) {
	entries := []Setting{{ID: SettingMaxConcurrentStreams, Value: s.cfg.maxConcurrent()}}
	if s.flow && s.streamRecvIW != DefaultInitialWindowSize {
		entries = append(entries, Setting{ID: SettingInitialWindowSize, Value: uint32(s.streamRecvIW)})
	}
	for _, e := range extra {
		if e.ID != SettingMaxConcurrentStreams && e.ID != SettingInitialWindowSize {
			entries = append(entries, e)
		}
	}
	s.sched.pushControl(&SettingsFrame{Entries: entries}, nil)
	if s.v31 && s.recv.avail > DefaultInitialWindowSize {
		s.sched.pushControl(&WindowUpdateFrame{Stream: 0, Delta: uint32(s.recv.avail - DefaultInitialWindowSize)}, nil)
	}
	if s.cfg.IdleTimeout > 0 {
		s.idleTimer = time.AfterFunc(s.cfg.IdleTimeout, s.idleCheck)
	}
	go s.readLoop()
	go s.writeLoop()
	go func() {
		<-s.readerDone
		<-s.writerDone
		s.mu.Lock()
		if s.idleTimer != nil {
			s.idleTimer.Stop()
		}
		s.mu.Unlock()
		close(s.done)
	}()
}

func (s *session) idleCheck() {
	s.mu.Lock()
	idle := !s.dead && len(s.streams) == 0
	if !idle && !s.dead {
		s.idleTimer.Reset(s.cfg.IdleTimeout)
	}
	s.mu.Unlock()
	if idle {
		s.fatal(ErrSessionClosed, GoAwayOK, nil)
	}
}

func (s *session) internalErrorStatus() GoAwayStatus {
	if s.v31 {
		return GoAwayInternalError
	}
	return GoAwayInternalErrorV3
}

// fatal ends the session: optional RST, GOAWAY (unless one was sent), fail
// every stream, let the writer flush the control queue and close the conn.
func (s *session) fatal(err error, status GoAwayStatus, rst *RstStreamFrame) {
	s.mu.Lock()
	s.fatalLocked(err, status, rst, true)
	s.mu.Unlock()
}

func (s *session) fatalLocked(err error, status GoAwayStatus, rst *RstStreamFrame, sendGoAway bool) {
	if s.dead {
		return
	}
	s.dead = true
	s.err = err
	if rst != nil {
		s.sched.pushControl(rst, nil)
	}
	if sendGoAway && !s.goAwaySent {
		s.goAwaySent = true
		s.sched.pushControl(&GoAwayFrame{LastGoodStream: s.lastGoodID, Status: status}, nil)
	}
	for _, dw := range s.sched.dropData() {
		dw.done <- err
	}
	for _, st := range s.streams {
		st.failLocked(err)
	}
	s.streams = map[uint32]*stream{}
	for id, ch := range s.pings {
		close(ch)
		delete(s.pings, id)
	}
	close(s.slotFreed)
	s.slotFreed = make(chan struct{})
	s.wake.Broadcast()
	// A peer that stops reading must not keep the writer (and Close) stuck.
	s.conn.SetWriteDeadline(time.Now().Add(closeWriteTimeout))
}

// queueControl queues a control frame triggered by the peer, enforcing the
// bound on queued control frames. mu held.
func (s *session) queueControl(f Frame) {
	if s.dead {
		return
	}
	if max := s.cfg.maxQueuedControl(); s.sched.controlLen() >= max {
		s.fatalLocked(sessionErrorf("peer caused more than %d queued control frames", max), GoAwayProtocolError, nil, true)
		return
	}
	s.sched.pushControl(f, nil)
	s.wake.Signal()
}

func (s *session) writeLoop() {
	defer close(s.writerDone)
	var err error
	for {
		s.mu.Lock()
		var item writeItem
		for {
			var ok bool
			var sw *outflow
			if s.v31 {
				sw = &s.send
			}
			item, ok = s.sched.next(sw, s.maxFrame, s.dead)
			if ok {
				break
			}
			if s.dead || err != nil {
				s.mu.Unlock()
				if err == nil {
					s.fr.Flush()
				}
				s.conn.Close()
				return
			}
			if s.fr.Buffered() > 0 {
				// Nothing else is ready: this is the moment to hit the socket.
				s.mu.Unlock()
				err = s.fr.Flush()
				s.mu.Lock()
				if err != nil {
					s.fatalLocked(err, GoAwayOK, nil, false)
				}
				continue
			}
			s.wake.Wait()
		}
		s.mu.Unlock()

		var f Frame
		if item.control != nil {
			f = item.control.f
		} else {
			f = item.data
		}
		err = s.fr.WriteFrame(f)
		if err == nil {
			s.stats.sent(f)
			if s.cfg.Trace != nil {
				s.cfg.Trace(true, f)
			}
		}
		if item.control != nil && item.control.written != nil && err == nil {
			item.control.written()
		}
		if item.data != nil {
			s.dataWritten(item, err)
		}
		if err != nil {
			s.fatal(err, GoAwayOK, nil)
		}
	}
}

// dataWritten finishes the bookkeeping of one DATA frame after it is written.
func (s *session) dataWritten(item writeItem, err error) {
	if item.completed == nil {
		return
	}
	if err != nil {
		item.completed.done <- err
		return
	}
	s.mu.Lock()
	if item.completed.fin {
		item.st.localClosed = true
		s.maybeCloseLocked(item.st)
	}
	s.mu.Unlock()
	item.completed.done <- nil
}

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

// creditSessionLocked returns consumed (or discarded) bytes to the peer's
// session window, batching WINDOW_UPDATEs to half the window.
func (s *session) creditSessionLocked(n int64) {
	if !s.v31 || n <= 0 {
		return
	}
	if d := s.recv.consumed(n, int64(s.cfg.sessionWindow())); d > 0 {
		s.queueControl(&WindowUpdateFrame{Stream: 0, Delta: uint32(d)})
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

func (s *session) onData(f *DataFrame) {
	n := int64(len(f.Data))
	if n == 0 && f.Flags&FlagFin == 0 && s.overLimitLocked(&s.limits.empty, "empty frames") {
		return
	}
	if s.v31 {
		if !s.recv.take(n, 0) {
			s.fatalLocked(&SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf("FLOW_CONTROL_ERROR: peer overran the session window by %d bytes", s.recv.overrun())}, GoAwayProtocolError, nil, true)
			return
		}
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
		reason := fmt.Sprintf("peer overran the stream window by %d bytes", st.recv.overrun())
		if !s.flow {
			reason = fmt.Sprintf("more than %d unread bytes buffered (SPDY/2 has no flow control; Config.MaxUnreadPerStream)", s.streamRecvIW)
		}
		s.resetLocked(st, RstFlowControlError, &StreamError{Stream: st.id, Status: RstFlowControlError, Reason: reason})
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

func (s *session) resetIdleLocked() {
	if s.idleTimer != nil {
		s.idleTimer.Reset(s.cfg.IdleTimeout)
	}
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

func (s *session) onSettings(f *SettingsFrame) {
	if s.overLimitLocked(&s.limits.settings, "SETTINGS frames") {
		return
	}
	if s.isClient && s.onPersist != nil {
		s.onPersist(f)
	}
	for _, e := range f.Entries {
		switch e.ID {
		case SettingMaxConcurrentStreams:
			s.peerMaxStreams = e.Value
			close(s.slotFreed)
			s.slotFreed = make(chan struct{})
		case SettingInitialWindowSize:
			if !s.flow {
				continue // SPDY/2 has no windows (node-spdy still announces one)
			}
			if e.Value > maxWindow {
				s.fatalLocked(sessionErrorf("SETTINGS_INITIAL_WINDOW_SIZE %d exceeds 2^31-1", e.Value), GoAwayProtocolError, nil, true)
				return
			}
			delta := int64(e.Value) - s.peerInitWindow
			s.peerInitWindow = int64(e.Value)
			for _, st := range s.streams {
				if !st.send.add(delta) { // may go negative (section 2.6.8)
					s.resetLocked(st, RstFlowControlError, nil)
				}
			}
			s.wake.Signal()
		}
	}
}

func (s *session) onPing(f *PingFrame) {
	if s.isPeerID(f.ID) {
		// Echo at once, ahead of queued data (section 2.6.5).
		if max := s.cfg.maxQueuedControl(); s.sched.controlLen() >= max {
			s.fatalLocked(sessionErrorf("PING flood: more than %d control frames queued", max), GoAwayProtocolError, nil, true)
			return
		}
		s.sched.pushUrgent(&PingFrame{ID: f.ID})
		s.wake.Signal()
		return
	}
	if ch, ok := s.pings[f.ID]; ok {
		delete(s.pings, f.ID)
		close(ch)
	}
	// An id of our parity we did not send is ignored (section 2.6.5).
}

func (s *session) onGoAway(f *GoAwayFrame) {
	if s.goAwayReceived == nil {
		s.goAwayReceived = f
	}
	for id, st := range s.streams {
		if !s.isPeerID(id) && id > f.LastGoodStream {
			s.closeStreamLocked(st, &GoAwayError{LastGoodStream: f.LastGoodStream, Status: f.Status, Stream: id}, closedByRemoteRst)
		}
	}
	close(s.slotFreed)
	s.slotFreed = make(chan struct{})
	s.afterStreamClosedLocked()
}

func (s *session) onWindowUpdate(f *WindowUpdateFrame) {
	if !s.flow {
		return // never implemented in SPDY/2 (the draft removed it): ignored
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
	if st == nil {
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
		if uint32(s.localActive) < s.peerMaxStreams {
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

// ping sends a PING and waits for its echo.
func (s *session) ping(ctx context.Context) (time.Duration, error) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return 0, ErrSessionClosed
	}
	id := s.nextPingID
	s.nextPingID += 2
	if s.nextPingID > 0x7fffffff {
		s.nextPingID -= 0x7ffffffe // wrap, keeping parity (2.6.5 allows reuse)
	}
	ch := make(chan struct{})
	s.pings[id] = ch
	start := time.Now()
	s.sched.pushUrgent(&PingFrame{ID: id})
	s.wake.Signal()
	s.mu.Unlock()
	select {
	case <-ch:
		s.mu.Lock()
		dead := s.dead
		s.mu.Unlock()
		if dead {
			return 0, ErrSessionClosed
		}
		return time.Since(start), nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pings, id)
		s.mu.Unlock()
		return 0, ctx.Err()
	}
}

// shutdown sends GOAWAY OK, lets open streams finish until ctx ends, then
// closes the session.
func (s *session) shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.dead && !s.goAwaySent {
		s.goAwaySent = true
		s.sched.pushControl(&GoAwayFrame{LastGoodStream: s.lastGoodID, Status: GoAwayOK}, nil)
		s.wake.Signal()
	}
	s.afterStreamClosedLocked()
	s.mu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		s.fatal(ErrSessionClosed, GoAwayOK, nil)
		<-s.done
		return ctx.Err()
	}
}

// close ends the session now: GOAWAY OK, fail open streams, close the conn,
// and wait for the session's goroutines to exit.
func (s *session) close() error {
	s.fatal(ErrSessionClosed, GoAwayOK, nil)
	<-s.done
	return nil
}
