package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// cdpConn is a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe: Chromium reads NUL-terminated JSON messages from
// its fd 3 and writes them to its fd 4. A pipe needs no port (nothing to
// collide with inside a shared namespace, nothing another process can
// connect to) and closes by itself when Chromium dies, which is how a crash
// mid-load is noticed. The protocol surface spdylab uses is a dozen methods,
// so a full generated client (chromedp/cdproto, ~40k lines) buys nothing.
type cdpConn struct {
	w io.WriteCloser

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpReply
	err     error // set once the read side ended

	onEvent func(cdpEvent) // called on the reader goroutine, in arrival order
	done    chan struct{}  // closed when the read side ends
}

type cdpReply struct {
	Result json.RawMessage
	Err    error
}

// cdpEvent is one protocol event. SessionID is empty for browser-level
// events.
type cdpEvent struct {
	Method    string
	SessionID string
	Params    json.RawMessage
}

type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *cdpError) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("%s (%d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// writeTimeout bounds one write to the pipe when the caller's context has
// no deadline.
const writeTimeout = 30 * time.Second

// errCDPClosed is the read side's end when Chromium closed its pipe.
var errCDPClosed = errors.New("DevTools pipe closed by Chromium")

// maxCDPMessage bounds one message from Chromium; response bodies are never
// requested, so real messages stay far below it.
const maxCDPMessage = 64 << 20

func newCDPConn(r io.Reader, w io.WriteCloser, onEvent func(cdpEvent)) *cdpConn {
	c := &cdpConn{w: w, pending: map[int64]chan cdpReply{}, onEvent: onEvent, done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

func (c *cdpConn) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	var err error
	for {
		var msg []byte
		msg, err = readCDPMessage(br)
		if err != nil {
			break
		}
		if err = c.dispatch(msg); err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		err = errCDPClosed
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		ch <- cdpReply{Err: err}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

// readCDPMessage reads one NUL-terminated message.
func readCDPMessage(br *bufio.Reader) ([]byte, error) {
	var msg []byte
	for {
		chunk, err := br.ReadSlice(0)
		msg = append(msg, chunk...)
		if len(msg) > maxCDPMessage {
			return nil, fmt.Errorf("DevTools message larger than %d bytes", maxCDPMessage)
		}
		if err == nil {
			return msg[:len(msg)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(msg) > 0 && errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("DevTools pipe closed mid-message: %w", io.ErrUnexpectedEOF)
			}
			return nil, err
		}
	}
}

// dispatch routes one decoded message to its caller or the event handler.
func (c *cdpConn) dispatch(raw []byte) error {
	var m cdpMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("DevTools sent a malformed message: %w", err)
	}
	if m.ID == 0 {
		if m.Method != "" && c.onEvent != nil {
			c.onEvent(cdpEvent{Method: m.Method, SessionID: m.SessionID, Params: m.Params})
		}
		return nil
	}
	c.mu.Lock()
	ch, ok := c.pending[m.ID]
	delete(c.pending, m.ID)
	c.mu.Unlock()
	if !ok {
		return nil // a reply to a call whose caller gave up
	}
	if m.Error != nil {
		ch <- cdpReply{Err: m.Error}
	} else {
		ch <- cdpReply{Result: m.Result}
	}
	return nil
}

// call sends method with params (nil = none) to the session ("" = the
// browser) and decodes the reply into result (nil = ignore).
func (c *cdpConn) call(ctx context.Context, session, method string, params, result any) error {
	var p json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		p = b
	}
	ch := make(chan cdpReply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	b, err := json.Marshal(cdpMessage{ID: id, Method: method, SessionID: session, Params: p})
	if err == nil {
		// A browser that stopped reading its pipe must not block the
		// caller past its deadline.
		if d, ok := c.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
			dl, has := ctx.Deadline()
			if !has {
				dl = time.Now().Add(writeTimeout)
			}
			d.SetWriteDeadline(dl)
		}
		_, err = c.w.Write(append(b, 0))
	}
	if err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: writing to DevTools: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return fmt.Errorf("%s: %w", method, r.Err)
		}
		if result != nil && len(r.Result) > 0 {
			if err := json.Unmarshal(r.Result, result); err != nil {
				return fmt.Errorf("%s: decoding reply: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
}

// closed reports the read side's end, nil while it runs.
func (c *cdpConn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
