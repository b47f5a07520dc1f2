package spdy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

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
	flow     bool           // stream windows; false for spdy/2
	spdy2    spdy2Detection // spdy/2: switching to windows a peer keeps (spdy2windows.go)
	fr       frameIO        // a *Framer on the conn, or SCTP messages (transport.go)
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
	awaitPeer      bool  // client: one local stream until the peer's first frame (ClientConfig.AwaitPeerSettings)
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

	// rw is the adaptive session receive window (recvwindow.go), nil
	// unless Config.AdaptiveSessionWindow; rwPing its PING in flight and
	// rwReceived the DATA bytes received in all.
	rw         *recvWindow
	rwPing     recvWindowPing
	rwReceived int64

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
	if cfg.AdaptiveSessionWindow && s.v31 {
		s.rw = newRecvWindow(int64(cfg.sessionWindow()))
		s.recv.avail = s.rw.target
	}
	s.sched.ramp = cfg.RampFrames
	if !s.flow {
		// SPDY/2: no windows. Sends never wait; a stream's "receive
		// window" is only the unread-buffer cap, returned as the
		// application reads, never announced.
		s.peerInitWindow = noFlowWindow
		s.streamRecvIW = cfg.maxUnreadPerStream()
		s.spdy2 = spdy2Detection{on: cfg.detectsSPDY2Windows(), window: DefaultInitialWindowSize, peerIW: DefaultInitialWindowSize}
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
	fr.dataGate = s.dataHeader
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
	if s.rw != nil {
		s.recvWindowPingLocked() // the base round trip, before any data queues
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

func (s *session) resetIdleLocked() {
	if s.idleTimer != nil {
		s.idleTimer.Reset(s.cfg.IdleTimeout)
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
