package conform

import (
	"errors"
	"fmt"

	"github.com/spdylab/spdylab/spdy"
)

const (
	noFlow2  = "draft 2 has no flow control: WINDOW_UPDATE was never implemented and is removed from it"
	noWindow = "spdy/3 has no session window (WINDOW_UPDATE on stream 0 is SPDY/3.1's)"
	// section31 cites the SPDY/3.1 change (session flow control) that the
	// SPDY/3 draft lacks; spdylab's reference README quotes it.
	section31 = "SPDY/3.1 session flow control"
)

// flowCases break flow control in ways window-overflow (a stream window
// pushed past 2^31-1) does not.
var flowCases = []Case{
	{ID: "data-beyond-stream-window", Section: "2.6.8",
		Title: "a DATA frame larger than the stream's window gets FLOW_CONTROL_ERROR",
		Expected: "RST_STREAM stream=1 FLOW_CONTROL_ERROR (spdy/3.1: GOAWAY or close also pass when the server's session window " +
			"is no larger than its stream window, as the frame then overruns both)",
		Draft2: Draft2{Skip: noFlow2},
		run:    dataBeyondStreamWindow},
	{ID: "data-beyond-session-window", Section: section31, Skip3: noWindow,
		Title:    "DATA beyond the session window, no stream's window exceeded, is a session FLOW_CONTROL_ERROR",
		Expected: "GOAWAY with an error status (SPDY/3.1's GOAWAY has no FLOW_CONTROL_ERROR) or close, no RST_STREAM FLOW_CONTROL_ERROR",
		Draft2:   Draft2{Skip: noFlow2},
		run:      dataBeyondSessionWindow},
	{ID: "window-update-zero", Section: "2.6.8",
		Title:    "a WINDOW_UPDATE with delta 0 (legal range 1 to 2^31-1) is an error",
		Expected: "RST_STREAM stream=1 FLOW_CONTROL_ERROR or PROTOCOL_ERROR, or GOAWAY PROTOCOL_ERROR",
		Draft2:   Draft2{Skip: noFlow2 + " (window-update-ignored checks it is ignored)"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			// Built by hand: the framer will not write a delta of 0.
			if err := p.sendRaw(p.control(9, 0, []byte{0, 0, 0, 1, 0, 0, 0, 0})); err != nil {
				return false, err
			}
			return p.await(func(f spdy.Frame) (bool, bool) {
				if g, ok := f.(*spdy.GoAwayFrame); ok {
					return true, g.Status == spdy.GoAwayProtocolError
				}
				return rstOn(1, spdy.RstFlowControlError, spdy.RstProtocolError)(f)
			})
		}},
	{ID: "session-window-overflow", Section: section31, Skip3: noWindow,
		Title:    "a WINDOW_UPDATE taking the session window past 2^31-1 is a session FLOW_CONTROL_ERROR",
		Expected: "GOAWAY with an error status, or close, after WINDOW_UPDATE stream=0 delta=2^31-1",
		Draft2:   Draft2{Skip: noFlow2},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.WindowUpdateFrame{Stream: 0, Delta: 0x7fffffff}); err != nil {
				return false, err
			}
			return p.awaitSessionError()
		}},
}

// awaitSessionError waits for a GOAWAY with an error status; the PINGs sent
// after show a server that let the violation pass. Two PINGs, as in
// peer.quiet: a server may echo a PING ahead of frames it queued before it
// (a GOAWAY, WINDOW_UPDATEs), in the same write, so only the second echo
// shows that everything the first one followed has arrived. A close
// passes too: a server that ends the session while frames it will not
// read are in flight closes with unread data, and the kernel's reset can
// destroy the GOAWAY before it is read.
func (p *peer) awaitSessionError() (bool, error) {
	for _, id := range []uint32{lastPing, lastPing - 2} {
		if err := p.send(&spdy.PingFrame{ID: id}); err != nil && !isClosed(err) {
			return false, err
		}
		echoed := false
		ok, err := p.await(func(f spdy.Frame) (bool, bool) {
			switch f := f.(type) {
			case *spdy.GoAwayFrame:
				return true, f.Status != spdy.GoAwayOK
			case *spdy.RstStreamFrame:
				return f.Status == spdy.RstFlowControlError, false
			}
			echoed = isPing(id)(f)
			return echoed, false
		})
		if errors.Is(err, errClosed) {
			return true, nil
		}
		if ok || err != nil || !echoed {
			return ok, err
		}
	}
	return false, nil
}

// syncWindows waits for a PING's echo, by which the server's SETTINGS and
// session WINDOW_UPDATEs sent at the start have arrived.
func (p *peer) syncWindows() (bool, error) {
	if err := p.send(&spdy.PingFrame{ID: 1}); err != nil {
		return false, err
	}
	return p.await(func(f spdy.Frame) (bool, bool) { return isPing(1)(f), true })
}

// dataBeyondStreamWindow sends one DATA frame a byte larger than the
// stream window the server announced: in one frame, so no WINDOW_UPDATE
// can have made room for it.
func dataBeyondStreamWindow(p *peer, o *Options) (bool, error) {
	if ok, err := p.syncWindows(); !ok || err != nil {
		return ok, err
	}
	w := p.streamWindow
	if w+1 > spdy.MaxFrameLength {
		return false, fmt.Errorf("the server's stream window (%d) is larger than a DATA frame can overrun", w)
	}
	if err := p.sendRaw(p.synStream(1, 0, p.block(p.request("POST", o.Path)))); err != nil {
		return false, err
	}
	// The server may refuse the frame by its header and close before the
	// payload is written: what it sent is read all the same.
	if err := p.send(&spdy.DataFrame{Stream: 1, Data: make([]byte, w+1)}); err != nil && !isClosed(err) {
		return false, err
	}
	both := o.Version == spdy.ProtoSPDY31 && p.sessionWindow <= w
	ok, err := p.await(func(f spdy.Frame) (bool, bool) {
		if _, ok := f.(*spdy.GoAwayFrame); ok {
			return true, both
		}
		return rstOn(1, spdy.RstFlowControlError)(f)
	})
	if errors.Is(err, errClosed) && both {
		return true, nil // the session error's close (see awaitSessionError)
	}
	return ok, err
}

// dataBeyondSessionWindow spreads one byte more than the session window
// over as many streams as it takes, each frame within its stream's window,
// all in one write.
func dataBeyondSessionWindow(p *peer, o *Options) (bool, error) {
	if ok, err := p.syncWindows(); !ok || err != nil {
		return ok, err
	}
	w := p.streamWindow
	if w <= 0 {
		return false, fmt.Errorf("the server's stream window is %d: no DATA can be sent", w)
	}
	// A server may credit its session window while the excess is in
	// flight (it consumed the first bytes): that credit is room, not a
	// violation, so the next round sends one byte beyond it, a few times.
	next, left := uint32(1), p.sessionWindow+1
	for round := 0; round < 4; round++ {
		var b []byte
		for ; left > 0; next += 2 {
			if next > 401 {
				return false, fmt.Errorf("the server's session window (%d) needs more than 200 streams of window %d to overrun", p.sessionWindow, w)
			}
			b = append(b, p.synStream(next, 0, p.block(p.request("POST", o.Path)))...)
			for n := min(left, w); n > 0; {
				chunk := min(n, 1<<16)
				b = append(b, dataFrame(next, int(chunk))...)
				n, left = n-chunk, left-chunk
			}
		}
		if err := p.sendRaw(b); err != nil && !isClosed(err) {
			return false, err
		}
		ok, credit, err := p.awaitSessionErrorOrCredit()
		if ok || err != nil || credit == 0 {
			return ok, err
		}
		left = int64(credit) + 1
	}
	return false, notJudged("the server credited its session window as fast as DATA came, over 4 rounds: no DATA could be sent beyond it, so the rule cannot be tested on this server")
}

// awaitSessionErrorOrCredit is awaitSessionError that also gives the
// session credit the server sent meanwhile (peer.next takes every
// WINDOW_UPDATE into p.sessionWindow and hands none to a matcher).
func (p *peer) awaitSessionErrorOrCredit() (bool, uint32, error) {
	before := p.sessionWindow
	ok, err := p.awaitSessionError()
	return ok, uint32(max(0, p.sessionWindow-before)), err
}

// dataFrame is a DATA frame of n zero bytes on stream id.
func dataFrame(id uint32, n int) []byte {
	b := []byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id), 0, byte(n >> 16), byte(n >> 8), byte(n)}
	return append(b, make([]byte, n)...)
}
