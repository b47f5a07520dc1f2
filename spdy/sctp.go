package spdy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// SPDY over SCTP (the University of Delaware design, 2011).
//
// Every frame is one SCTP message. SPDY stream n travels on SCTP stream
// SCTPStreamFor(n, S) = ((n-1) mod (S-1)) + 1, where S is the association's
// outbound stream count, so streams wrap back to 1 above S-1; SCTP stream 0
// carries the session's own frames (SETTINGS, PING, GOAWAY, session
// WINDOW_UPDATE). With SCTPOptions.ControlStream every control frame goes on
// stream 0 as well and only DATA uses the mapped streams.
//
// Ordering. SCTP delivers in order within a stream only, while SPDY needs
// three orders across streams; each is kept at the receiver, which holds a
// message back (with everything behind it on its SCTP stream) until what it
// depends on was delivered. The sender writes the dependency into the
// message's payload protocol identifier (PPID):
//   - Header compression: zlib blocks must be inflated in the order they
//     were deflated. With ControlStream all header blocks share stream 0,
//     one context per direction, in order. Without it each SCTP stream has
//     its own compression context per direction (a Framer per SCTP stream),
//     so the order within that stream is the only order zlib needs.
//   - DATA after the frame that opened its stream (ControlStream only, where
//     SYN_STREAM/SYN_REPLY travel on stream 0 and DATA elsewhere): a DATA
//     message's PPID is the count of stream-0 messages its sender had sent
//     when it sent that stream's SYN_STREAM or SYN_REPLY; the receiver holds
//     it until it has delivered that many stream-0 messages. A loss on
//     stream 0 therefore delays only the streams it opens, not the others.
//   - Rising SYN_STREAM ids (section 2.3.2; without ControlStream the
//     SYN_STREAMs travel on different SCTP streams): a SYN_STREAM's PPID is
//     the id of its sender's previous SYN_STREAM, and it is held until that
//     one was delivered.
// Frames other than these keep no order across SCTP streams. Known gap: with
// ControlStream a HEADERS frame carrying FIN (trailers) can overtake the last
// DATA of its stream; the lab's servers never send trailers.
//
// Each received frame is checked against the mapping (with the peer's
// outbound count, our inbound count): a frame on the wrong SCTP stream, a
// message that is not exactly one frame, or dependencies left unmet past
// maxHeldBytes end the session with GOAWAY PROTOCOL_ERROR.

// MessageConn is a message transport with numbered, ordered streams: an
// SCTP association (the sctp package's *Assoc implements it). Each message
// is sent and received whole.
type MessageConn interface {
	SendMessage(stream uint16, ppid uint32, p []byte) error
	// RecvMessage reads one whole message; io.EOF after a graceful end.
	RecvMessage(p []byte) (n int, stream uint16, ppid uint32, err error)
	// Streams returns the outbound and inbound stream counts in use.
	Streams() (out, in int)
	SetWriteDeadline(t time.Time) error
	LocalAddr() net.Addr
	RemoteAddr() net.Addr
	Close() error
}

// SCTPOptions chooses how a session uses the association.
type SCTPOptions struct {
	// ControlStream sends every control frame on SCTP stream 0: one header
	// compression context for the session, and only control frames can
	// block each other.
	ControlStream bool
	// Observe, if set, sees every frame with the SCTP stream it used (sent
	// or received), e.g. for traces. It runs on the session's reader or
	// writer goroutine and must not block.
	Observe func(sent bool, sctpStream uint16, f Frame)
}

// maxHeldBytes bounds the messages held back waiting for a dependency; a
// peer whose dependencies never arrive cannot make us buffer more.
const maxHeldBytes = 16 << 20

// SCTPStreamFor is the SCTP stream that carries SPDY stream n (n > 0) on an
// association with s outbound streams (s >= 2; 0 for fewer, where SPDY
// over SCTP cannot run).
func SCTPStreamFor(n uint32, s int) uint16 {
	if s < 2 || n == 0 {
		return 0
	}
	return uint16((uint64(n)-1)%uint64(s-1) + 1)
}

// NewClientConnSCTP starts a client session over an SCTP association.
func NewClientConnSCTP(mc MessageConn, cfg *ClientConfig, opt SCTPOptions) (*ClientConn, error) {
	return NewClientConn(&sctpConn{mc: mc, opt: opt}, cfg)
}

// ServeSCTP runs a server session over an SCTP association, as ServeConn.
func (srv *Server) ServeSCTP(ctx context.Context, mc MessageConn, opt SCTPOptions) error {
	return srv.ServeConn(ctx, &sctpConn{mc: mc, opt: opt})
}

// sctpConn presents an association as the net.Conn a session holds (for
// Close, deadlines and addresses); the frames themselves go through
// newFrameIO, never through Read or Write.
type sctpConn struct {
	mc  MessageConn
	opt SCTPOptions
}

var errNotByteStream = errors.New("spdy: an SCTP association carries frames as messages, not a byte stream")

func (c *sctpConn) Read([]byte) (int, error)           { return 0, errNotByteStream }
func (c *sctpConn) Write([]byte) (int, error)          { return 0, errNotByteStream }
func (c *sctpConn) Close() error                       { return c.mc.Close() }
func (c *sctpConn) LocalAddr() net.Addr                { return c.mc.LocalAddr() }
func (c *sctpConn) RemoteAddr() net.Addr               { return c.mc.RemoteAddr() }
func (c *sctpConn) SetDeadline(t time.Time) error      { return c.mc.SetWriteDeadline(t) }
func (c *sctpConn) SetReadDeadline(time.Time) error    { return nil }
func (c *sctpConn) SetWriteDeadline(t time.Time) error { return c.mc.SetWriteDeadline(t) }

func (c *sctpConn) newFrameIO(cfg Config, isClient bool) frameIO {
	maxRead := cfg.MaxReadFrameSize
	if maxRead == 0 {
		maxRead = DefaultMaxReadFrameSize
	}
	return &sctpFrames{
		mc: c.mc, opt: c.opt, maxHeaderBlock: cfg.MaxHeaderBlockSize, maxRead: maxRead,
		enc: map[uint16]*msgEncoder{}, dec: map[uint16]*msgDecoder{},
		openedAt: map[uint32]uint32{}, held: map[uint16][]heldMsg{},
		rbuf: make([]byte, frameHeaderLen+maxRead+1),
	}
}

// sctpFrames is the frameIO of a session over SCTP. WriteFrame runs on the
// writer goroutine, ReadFrame on the reader; mu guards what both touch.
type sctpFrames struct {
	mc             MessageConn
	opt            SCTPOptions
	maxHeaderBlock int
	maxRead        int

	// writer side
	enc     map[uint16]*msgEncoder
	sent0   uint32 // messages sent on stream 0
	lastSyn uint32 // id of the last SYN_STREAM sent

	mu       sync.Mutex
	openedAt map[uint32]uint32 // ControlStream: SPDY stream -> sent0 after its opening frame

	// reader side
	dec         map[uint16]*msgDecoder
	held        map[uint16][]heldMsg
	heldBytes   int
	arrivals    uint64
	delivered0  uint32 // stream-0 messages delivered
	lastPeerSyn uint32 // id of the last SYN_STREAM delivered
	rbuf        []byte
	recvErr     error
}

type heldMsg struct {
	seq  uint64 // arrival order
	ppid uint32
	b    []byte
}

// msgEncoder turns one frame into one message; its Framer keeps the header
// compression context of one SCTP stream.
type msgEncoder struct {
	buf writeBuffer
	fr  *Framer
}

type writeBuffer struct{ b []byte }

func (w *writeBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

type msgDecoder struct {
	r  msgReader
	fr *Framer
}

type msgReader struct{ b []byte }

func (r *msgReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func (t *sctpFrames) Flush() error  { return nil } // every frame is sent as it is written
func (t *sctpFrames) Buffered() int { return 0 }

// streamOf is the SPDY stream a frame belongs to (0 = the session).
func streamOf(f Frame) uint32 {
	switch f := f.(type) {
	case *DataFrame:
		return f.Stream
	case *SynStreamFrame:
		return f.Stream
	case *SynReplyFrame:
		return f.Stream
	case *HeadersFrame:
		return f.Stream
	case *RstStreamFrame:
		return f.Stream
	case *WindowUpdateFrame:
		return f.Stream
	}
	return 0
}

// sctpStreamOf applies the mapping to a frame, for an association with s
// streams in the frame's direction.
func (t *sctpFrames) sctpStreamOf(f Frame, s int) uint16 {
	_, isData := f.(*DataFrame)
	if t.opt.ControlStream && !isData {
		return 0
	}
	if n := streamOf(f); n != 0 {
		return SCTPStreamFor(n, s)
	}
	return 0
}

// codecKey is the SCTP stream whose compression context a frame uses: all
// share stream 0's with ControlStream (header blocks only travel there).
func (t *sctpFrames) codecKey(sid uint16) uint16 {
	if t.opt.ControlStream {
		return 0
	}
	return sid
}

func (t *sctpFrames) WriteFrame(f Frame) error {
	out, _ := t.mc.Streams()
	if out < 2 {
		return fmt.Errorf("spdy: the SCTP association has %d outbound streams; SPDY over SCTP needs at least 2", out)
	}
	sid := t.sctpStreamOf(f, out)
	key := t.codecKey(sid)
	e := t.enc[key]
	if e == nil {
		e = &msgEncoder{}
		e.fr = NewFramer(&e.buf, nil, t.maxHeaderBlock)
		t.enc[key] = e
	}
	e.buf.b = e.buf.b[:0]
	if err := e.fr.WriteFrame(f); err != nil {
		return err
	}
	if err := e.fr.Flush(); err != nil {
		return err
	}
	ppid := t.dependencyOf(f)
	if err := t.mc.SendMessage(sid, ppid, e.buf.b); err != nil {
		return err
	}
	if sid == 0 {
		t.sent0++
	}
	t.afterSend(f)
	if t.opt.Observe != nil {
		t.opt.Observe(true, sid, f)
	}
	return nil
}

// dependencyOf is the PPID announcing what f must not overtake.
func (t *sctpFrames) dependencyOf(f Frame) uint32 {
	switch f := f.(type) {
	case *DataFrame:
		if t.opt.ControlStream {
			t.mu.Lock()
			defer t.mu.Unlock()
			return t.openedAt[f.Stream]
		}
	case *SynStreamFrame:
		if !t.opt.ControlStream {
			return t.lastSyn
		}
	}
	return 0
}

// afterSend keeps the dependency bookkeeping after a frame went out.
func (t *sctpFrames) afterSend(f Frame) {
	switch f := f.(type) {
	case *SynStreamFrame:
		t.lastSyn = f.Stream
		if f.Flags&FlagFin == 0 {
			t.setOpened(f.Stream)
		}
	case *SynReplyFrame:
		if f.Flags&FlagFin == 0 {
			t.setOpened(f.Stream)
		}
	case *DataFrame:
		if f.Flags&FlagFin != 0 {
			t.forget(f.Stream)
		}
	case *RstStreamFrame:
		t.forget(f.Stream)
	}
}

func (t *sctpFrames) setOpened(id uint32) {
	if !t.opt.ControlStream {
		return
	}
	t.mu.Lock()
	t.openedAt[id] = t.sent0
	t.mu.Unlock()
}

func (t *sctpFrames) forget(id uint32) {
	t.mu.Lock()
	delete(t.openedAt, id)
	t.mu.Unlock()
}

func (t *sctpFrames) ReadFrame() (Frame, error) {
	for {
		if m, sid, ok := t.nextDeliverable(); ok {
			return t.decode(sid, m)
		}
		if t.recvErr != nil {
			return nil, t.recvErr
		}
		if t.heldBytes > maxHeldBytes {
			return nil, sessionErrorf("SCTP messages of %d bytes held back for dependencies the peer never sent", t.heldBytes)
		}
		n, sid, ppid, err := t.mc.RecvMessage(t.rbuf)
		if err != nil {
			t.recvErr = err
			continue // deliver what may still be held, then the error
		}
		if _, in := t.mc.Streams(); int(sid) >= in {
			return nil, sessionErrorf("SCTP message on stream %d, beyond the %d inbound streams", sid, in)
		}
		t.arrivals++
		t.held[sid] = append(t.held[sid], heldMsg{seq: t.arrivals, ppid: ppid, b: append([]byte(nil), t.rbuf[:n]...)})
		t.heldBytes += n
	}
}

// nextDeliverable picks, among the first held message of every SCTP stream,
// the earliest arrival whose dependency is met.
func (t *sctpFrames) nextDeliverable() (heldMsg, uint16, bool) {
	var best heldMsg
	var bestSID uint16
	found := false
	for sid, q := range t.held {
		if len(q) == 0 || (found && q[0].seq > best.seq) || !t.ready(q[0]) {
			continue
		}
		best, bestSID, found = q[0], sid, true
	}
	if !found {
		return heldMsg{}, 0, false
	}
	if q := t.held[bestSID][1:]; len(q) > 0 {
		t.held[bestSID] = q
	} else {
		delete(t.held, bestSID)
	}
	t.heldBytes -= len(best.b)
	return best, bestSID, true
}

func (t *sctpFrames) ready(m heldMsg) bool {
	if t.opt.ControlStream {
		if isControl(m.b) {
			return true // on stream 0, in order
		}
		return t.delivered0 >= m.ppid
	}
	if isSynStream(m.b) {
		return m.ppid <= t.lastPeerSyn
	}
	return true
}

func isControl(b []byte) bool { return len(b) > 0 && b[0]&0x80 != 0 }

func isSynStream(b []byte) bool {
	return len(b) >= frameHeaderLen && isControl(b) && FrameType(uint16(b[2])<<8|uint16(b[3])) == TypeSynStream
}

// decode turns one delivered message into its frame and checks it against
// the mapping.
func (t *sctpFrames) decode(sid uint16, m heldMsg) (Frame, error) {
	if sid == 0 {
		t.delivered0++
	}
	if isSynStream(m.b) && len(m.b) >= frameHeaderLen+4 {
		// Counted even when its header block fails to decode: the id is used.
		t.lastPeerSyn = binary.BigEndian.Uint32(m.b[frameHeaderLen:]) & 0x7fffffff
	}
	key := t.codecKey(sid)
	d := t.dec[key]
	if d == nil {
		d = &msgDecoder{}
		d.fr = NewFramer(nil, &d.r, t.maxHeaderBlock)
		d.fr.MaxReadFrameSize = t.maxRead
		t.dec[key] = d
	}
	d.r.b = m.b
	f, err := d.fr.ReadFrame()
	if err != nil && d.fr.pending > 0 {
		// An oversize DATA frame refused from its header: the rest of
		// this message is its payload, not the start of the next frame.
		d.r.b, d.fr.pending = d.r.b[min(d.fr.pending, len(d.r.b)):], 0
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, sessionErrorf("SCTP message of %d bytes on stream %d holds a truncated frame", len(m.b), sid)
	}
	if err == nil && len(d.r.b) > 0 {
		return nil, sessionErrorf("SCTP message on stream %d holds %d bytes after its %s frame (one frame per message)", sid, len(d.r.b), f.Type())
	}
	if f == nil {
		return f, err
	}
	_, in := t.mc.Streams()
	if in < 2 {
		return nil, sessionErrorf("the SCTP association has %d inbound streams; SPDY over SCTP needs at least 2", in)
	}
	if want := t.sctpStreamOf(f, in); want != sid {
		return nil, sessionErrorf("%s frame of stream %d arrived on SCTP stream %d; the mapping puts it on %d", f.Type(), streamOf(f), sid, want)
	}
	switch f := f.(type) {
	case *RstStreamFrame:
		t.forget(f.Stream) // no more DATA will be sent on a reset stream
	}
	if t.opt.Observe != nil {
		t.opt.Observe(false, sid, f)
	}
	return f, err
}
