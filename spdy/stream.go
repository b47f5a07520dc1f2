package spdy

import (
	"errors"
	"fmt"
	"io"
)

// stream is the state of one SPDY stream. All fields are guarded by the
// session mutex.
type stream struct {
	s          *session
	id         uint32
	priority   uint8
	associated uint32 // for pushed streams
	isPush     bool
	opened     uint64 // the session's count of streams when this one opened (ScheduleFIFO's order)

	// send side
	send        outflow      // stream send window
	pending     []*dataWrite // writes waiting in the scheduler
	dataSent    int64        // DATA payload bytes handed to the writer (Config.RampFrames)
	queued      bool         // in a scheduler round-robin level
	localClosed bool         // FIN written
	unwindowed  bool         // spdy/2: opened before the peer's windows were detected (spdy2windows.go)

	// receive side
	recv         inflow // stream receive window
	buf          recvBuffer
	received     int64
	declaredLen  int64 // request Content-Length the body must match (server side); -1 = none
	unannounced  int64 // spdy/2: read bytes no WINDOW_UPDATE returned (spdy2windows.go)
	recvFin      bool
	remoteClosed bool
	discard      bool           // the application is not going to read (body closed)
	claimed      bool           // a push the application took with Pushed
	precredited  int64          // buffered bytes already returned to the session window
	headerBytes  int            // decompressed header bytes received (all header frames)
	inflate      *flushInflater // FLAG_DATA_COMPRESSED context, made on first use
	inflated     int64          // buffered bytes that came out of the inflater
	inflatedWire int64          // the wire bytes those came from, not yet returned to the windows
	err          error
	notify       chan struct{} // capacity 1: wakes a blocked reader

	gotReply     bool
	replied      chan struct{} // closed when response headers are complete or the stream fails
	replyHeaders Header
	trailers     Header

	closed  bool
	onClose func() // mu held
}

// complete reports whether all the data announced by Content-Length has
// arrived (responses on the client, request bodies on the server).
func (st *stream) complete() bool {
	want := st.declaredLen
	if st.gotReply && st.replyHeaders != nil {
		want = contentLength(st.replyHeaders)
	}
	return want >= 0 && st.received == want
}

// signal wakes a reader waiting on this stream.
func (st *stream) signal() {
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// failLocked records err for readers and writers of the stream.
func (st *stream) failLocked(err error) {
	if st.err == nil {
		st.err = err
	}
	for _, dw := range st.pending {
		dw.done <- err
	}
	st.pending = nil
	st.queued = false
	if !st.gotReply {
		select {
		case <-st.replied:
		default:
			close(st.replied)
		}
	}
	st.signal()
}

// read copies received data, returning window to the peer as the
// application consumes it (not on arrival), so a slow reader throttles the
// sender at both flow-control levels.
func (st *stream) read(p []byte) (int, error) {
	return st.await(func() int { return st.buf.read(p) })
}

// await waits until the stream has data buffered, its end, or an error;
// with data, take removes some (mu held) and returns how much, and that
// much is consumed.
func (st *stream) await(take func() int) (int, error) {
	s := st.s
	for {
		s.mu.Lock()
		if st.buf.len() > 0 {
			n := take()
			st.consumedLocked(int64(n))
			s.mu.Unlock()
			return n, nil
		}
		if st.recvFin {
			s.mu.Unlock()
			if st.declaredLen >= 0 && st.received != st.declaredLen {
				// Section 3.2.1: the server answers such a request with 400.
				return 0, fmt.Errorf("%w: body has %d bytes, Content-Length says %d", ErrBodyLengthMismatch, st.received, st.declaredLen)
			}
			return 0, io.EOF
		}
		if st.err != nil {
			err := st.err
			s.mu.Unlock()
			return 0, err
		}
		s.mu.Unlock()
		<-st.notify
	}
}

// creditBufferedLocked returns n buffered bytes to the session window,
// minus what was returned on arrival (unclaimed pushes).
func (st *stream) creditBufferedLocked(n int64) {
	c := min(n, st.precredited)
	st.precredited -= c
	st.s.creditSessionLocked(n - c)
}

// windowBytes converts n buffered bytes leaving the buffer into the window
// they occupied: plain DATA byte for byte, inflated DATA in proportion to
// the compressed bytes it came from (which are what flow control counted).
func (st *stream) windowBytes(n int64) int64 {
	c := min(n, st.inflated)
	if c == 0 {
		return n
	}
	wire := st.inflatedWire
	if c < st.inflated {
		wire = st.inflatedWire * c / st.inflated
	}
	st.inflated -= c
	st.inflatedWire -= wire
	return n - c + wire
}

// dropBufferedLocked returns the window of n buffered bytes thrown away.
func (st *stream) dropBufferedLocked(n int64) { st.creditBufferedLocked(st.windowBytes(n)) }

func (st *stream) consumedLocked(n int64) {
	s := st.s
	n = st.windowBytes(n)
	st.creditBufferedLocked(n)
	if !s.flow {
		st.recv.grow(n) // frees the unread-buffer cap
		s.spdy2ConsumedLocked(st, n)
		return
	}
	if st.recvFin || st.closed || n == 0 {
		return // no WINDOW_UPDATE after the peer's FIN (section 2.6.8)
	}
	if d := st.recv.consumed(n, s.streamRecvIW); d > 0 {
		s.queueControl(&WindowUpdateFrame{Stream: st.id, Delta: uint32(d)})
	}
}

// closeRead is the application saying it will not read any more. Buffered
// data is returned to the session window; if the peer has not finished, the
// stream is cancelled.
func (st *stream) closeRead() {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st.discard = true
	if n := int64(st.buf.len()); n > 0 {
		st.buf.reset()
		st.dropBufferedLocked(n)
	}
	if !st.recvFin && !st.closed {
		s.resetLocked(st, RstCancel, errBodyClosed)
	}
}

var errBodyClosed = errors.New("spdy: read on closed body")

// ErrBodyLengthMismatch is returned by a request body whose DATA does not add
// up to its Content-Length; handlers should answer 400 Bad Request.
var ErrBodyLengthMismatch = errors.New("spdy: request body length mismatch")

// write sends p as DATA (fin marks the last write) and blocks until the
// writer has taken all of it, the stream fails or the session dies.
func (st *stream) write(p []byte, fin bool) error {
	s := st.s
	s.mu.Lock()
	if st.err != nil {
		err := st.err
		s.mu.Unlock()
		return err
	}
	if s.dead {
		s.mu.Unlock()
		return ErrSessionClosed
	}
	if st.localClosed || st.closed {
		s.mu.Unlock()
		return errors.New("spdy: write after end of stream")
	}
	dw := &dataWrite{st: st, data: p, fin: fin, done: make(chan error, 1)}
	s.sched.pushData(dw)
	s.wake.Signal()
	s.mu.Unlock()
	return <-dw.done
}

// bodyReader adapts a stream to io.ReadCloser for request and response
// bodies.
type bodyReader struct {
	st     *stream
	closed bool
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errBodyClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	return b.st.read(p)
}

// WriteTo hands each received chunk to w as it arrives, so io.Copy from a
// body needs no copy buffer: a handler waiting in io.Copy for a body that
// never comes holds none (io.Copy's own is 32 KiB, which a slowloris of
// unfinished uploads multiplies by every open stream).
func (b *bodyReader) WriteTo(w io.Writer) (int64, error) {
	if b.closed {
		return 0, errBodyClosed
	}
	var total int64
	for {
		var chunk *[]byte
		_, err := b.st.await(func() int { chunk = b.st.buf.take(); return len(*chunk) })
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		n, werr := w.Write(*chunk)
		total += int64(n)
		recycleChunk(chunk)
		if werr != nil {
			return total, werr
		}
	}
}

func (b *bodyReader) Close() error {
	if !b.closed {
		b.closed = true
		b.st.closeRead()
	}
	return nil
}
