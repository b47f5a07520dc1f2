package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"golang.org/x/net/http2"
)

// h2Stream is one request/response exchange (or one accepted push).
// Fields below "guarded by cc.mu" are only touched with cc.mu held.
type h2Stream struct {
	cc     *H2Conn
	id     uint32
	req    *http.Request
	pushed bool

	gotHeaders  chan struct{} // closed when resp is set or the stream failed first
	headersOnce sync.Once
	resp        *http.Response // set before gotHeaders closes
	body        *h2Body
	rcvd        int64 // DATA bytes received (reader goroutine only)

	// guarded by cc.mu
	sendWin      window // peer's window for our DATA
	recvAvail    int32  // DATA the peer may still send before our next WINDOW_UPDATE (may be < 0)
	streamWindow int32  // our advertised stream window (credit threshold)
	remoteDone   bool   // END_STREAM or RST received: no more DATA will come
	finished     bool   // removed from the connection
	inChain      bool   // registered in the priority chain
	err          error
}

func newH2Stream(cc *H2Conn, id uint32, req *http.Request, recvWindow, sendWindow int32) *h2Stream {
	st := &h2Stream{cc: cc, id: id, req: req, gotHeaders: make(chan struct{}),
		sendWin: window(sendWindow), recvAvail: recvWindow, streamWindow: cc.streamWindow}
	st.body = &h2Body{st: st}
	st.body.cond = sync.NewCond(&st.body.mu)
	return st
}

// setResponse publishes the response header.
func (st *h2Stream) setResponse(resp *http.Response) {
	st.headersOnce.Do(func() {
		st.resp = resp
		close(st.gotHeaders)
	})
}

// failure is why the stream ended without a response.
func (st *h2Stream) failure() error {
	st.cc.mu.Lock()
	defer st.cc.mu.Unlock()
	if st.err != nil {
		return st.err
	}
	return ErrConnClosed
}

// abort ends the stream with err: a waiting RoundTrip returns it, a body
// reader gets it after the bytes already received. The caller does not
// hold cc.mu.
func (st *h2Stream) abort(err error) {
	st.cc.mu.Lock()
	if st.err == nil {
		st.err = err
	}
	st.remoteDone = true
	st.cc.mu.Unlock()
	st.headersOnce.Do(func() { close(st.gotHeaders) })
	st.body.end(err)
}

// finishLocked removes the stream from the connection and frees its slot.
// The caller holds cc.mu.
func (st *h2Stream) finishLocked() {
	if st.finished {
		return
	}
	st.finished = true
	cc := st.cc
	if cc.streams[st.id] == st {
		delete(cc.streams, st.id)
	}
	if st.inChain {
		cc.chain.close(st.id)
	}
	if !st.pushed {
		cc.active--
	}
	cc.cond.Broadcast()
}

// reset sends RST_STREAM code (unless the stream is already over) and ends
// the stream with err.
func (st *h2Stream) reset(code http2.ErrCode, err error) {
	cc := st.cc
	cc.mu.Lock()
	already := st.finished
	st.finishLocked()
	cc.mu.Unlock()
	if !already {
		_ = cc.writeFrame(func() error { return cc.fr.WriteRSTStream(st.id, code) },
			FrameEvent{Type: http2.FrameRSTStream, StreamID: st.id, Length: 4, ErrCode: code})
	}
	st.abort(err)
}

// claim marks an accepted push as read by someone: from now on its bytes
// are credited back as they are read, like any response.
func (st *h2Stream) claim() {}

// writeBody sends the request body as DATA within the peer's windows.
func (st *h2Stream) writeBody(ctx context.Context, body io.Reader) error {
	cc := st.cc
	buf := make([]byte, 16384)
	for {
		n, rerr := io.ReadFull(body, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return fmt.Errorf("reading the request body: %w", rerr)
		}
		last := rerr != nil
		chunk := buf[:n]
		for first := true; first || len(chunk) > 0; first = false {
			k, err := st.awaitSendWindow(ctx, len(chunk))
			if err != nil {
				return err
			}
			part := chunk[:k]
			chunk = chunk[k:]
			end := last && len(chunk) == 0
			ev := FrameEvent{Type: http2.FrameData, StreamID: st.id, Length: uint32(len(part))}
			if end {
				ev.Flags = http2.FlagDataEndStream
			}
			if err := cc.writeFrame(func() error { return cc.fr.WriteData(st.id, end, part) }, ev); err != nil {
				return fmt.Errorf("writing DATA: %w", err)
			}
		}
		if last {
			return nil
		}
	}
}

// awaitSendWindow takes up to want bytes of stream and connection send
// window (at most the peer's frame size), waiting while either is empty.
func (st *h2Stream) awaitSendWindow(ctx context.Context, want int) (int, error) {
	cc := st.cc
	if want == 0 {
		return 0, nil
	}
	defer cc.wakeOnDone(ctx)()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for {
		switch {
		case st.err != nil:
			return 0, st.err
		case st.finished || cc.closed:
			return 0, fmt.Errorf("the stream ended while sending the request body: %w", ErrConnClosed)
		case ctx.Err() != nil:
			return 0, context.Cause(ctx)
		}
		n := min(int32(want), int32(st.sendWin), int32(cc.sendWin), int32(cc.peerMaxFrame))
		if n > 0 {
			st.sendWin -= window(n)
			cc.sendWin -= window(n)
			return int(n), nil
		}
		cc.cond.Wait()
	}
}

// h2Body is a response body fed by the reader goroutine as DATA arrives.
type h2Body struct {
	st      *h2Stream
	mu      sync.Mutex
	cond    *sync.Cond
	buf     bytes.Buffer
	err     error // io.EOF after END_STREAM
	closed  bool
	unacked int32 // bytes read but not yet credited back to the peer
	onClose func()
}

// write appends DATA received on the stream; pad bytes of flow-control
// window are credited back with the next read.
func (b *h2Body) write(p []byte, pad int32) {
	b.mu.Lock()
	if !b.closed && b.err == nil {
		b.buf.Write(p)
	}
	b.unacked += pad
	b.cond.Broadcast()
	b.mu.Unlock()
}

// end makes reads return err once the buffered bytes are read.
func (b *h2Body) end(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.cond.Broadcast()
	b.mu.Unlock()
}

func (b *h2Body) Read(p []byte) (int, error) {
	b.mu.Lock()
	for b.buf.Len() == 0 && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	if b.closed {
		b.mu.Unlock()
		return 0, errors.New("h2: read on closed body")
	}
	if b.buf.Len() == 0 {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	n, _ := b.buf.Read(p)
	b.unacked += int32(n)
	credit := int32(0)
	if b.unacked >= b.st.streamWindow/2 {
		credit, b.unacked = b.unacked, 0
	}
	b.mu.Unlock()
	if credit > 0 {
		b.st.credit(credit)
	}
	return n, nil
}

// Close ends reading; a stream still receiving is cancelled.
func (b *h2Body) Close() error {
	b.mu.Lock()
	wasClosed := b.closed
	b.closed = true
	done := b.err != nil
	b.buf.Reset()
	b.cond.Broadcast()
	b.mu.Unlock()
	if wasClosed {
		return nil
	}
	if !done {
		b.st.reset(http2.ErrCodeCancel, errors.New("h2: response body closed before its end"))
	}
	if b.onClose != nil {
		b.onClose()
	}
	return nil
}

// credit sends a stream WINDOW_UPDATE for n bytes the application read.
func (st *h2Stream) credit(n int32) {
	cc := st.cc
	cc.mu.Lock()
	if st.remoteDone || st.finished {
		cc.mu.Unlock()
		return
	}
	st.recvAvail += n
	cc.mu.Unlock()
	_ = cc.writeFrame(func() error { return cc.fr.WriteWindowUpdate(st.id, uint32(n)) },
		FrameEvent{Type: http2.FrameWindowUpdate, StreamID: st.id, Length: 4, Increment: uint32(n)})
}

// window is a flow-control send window: it may go negative when the peer
// shrinks SETTINGS_INITIAL_WINDOW_SIZE, and may never exceed 2^31-1.
type window int64

const maxWindow = 1<<31 - 1

// add grows w by n; false when the result would exceed 2^31-1 (a
// FLOW_CONTROL_ERROR by the peer).
func (w *window) add(n int64) bool {
	if int64(*w)+n > maxWindow {
		return false
	}
	*w += window(n)
	return true
}
