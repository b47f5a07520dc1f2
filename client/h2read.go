package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// connError is a connection error we detected: GOAWAY with code, then close.
type connError struct {
	code http2.ErrCode
	msg  string
}

func (e *connError) Error() string { return fmt.Sprintf("h2: %s (%s)", e.msg, e.code) }

func protocolError(format string, a ...any) error {
	return &connError{code: http2.ErrCodeProtocol, msg: fmt.Sprintf(format, a...)}
}

// readLoop reads and dispatches frames until the connection ends.
func (cc *H2Conn) readLoop() {
	defer close(cc.readerDone)
	for {
		f, err := cc.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				cc.streamError(se.StreamID, se.Code, fmt.Errorf("h2: malformed frame on stream %d: %v", se.StreamID, err))
				continue
			}
			cc.readFailed(err)
			return
		}
		cc.traceReceived(f)
		if err := cc.handle(f); err != nil {
			cc.readFailed(err)
			return
		}
	}
}

// readFailed ends the connection after a read error or a connection error
// we detected (GOAWAY with the error's code first).
func (cc *H2Conn) readFailed(err error) {
	var ce http2.ConnectionError
	var our *connError
	code := http2.ErrCode(0)
	switch {
	case errors.As(err, &our):
		code = our.code
	case errors.As(err, &ce):
		code = http2.ErrCode(ce)
		err = fmt.Errorf("h2: malformed frame from the server: %w", err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		err = errors.New("h2: the server closed the connection")
	case errors.Is(err, net.ErrClosed):
		err = ErrConnClosed
	}
	if code != 0 {
		_ = cc.writeFrame(func() error { return cc.fr.WriteGoAway(cc.lastPeerStream(), code, nil) },
			FrameEvent{Type: http2.FrameGoAway, Length: 8, ErrCode: code, LastStreamID: cc.lastPeerStream()})
	}
	cc.mu.Lock()
	got := cc.gotSettings
	cc.mu.Unlock()
	if !got && !errors.Is(err, ErrConnClosed) {
		err = fmt.Errorf("%w (before the server's SETTINGS arrived)", err)
	}
	cc.fail(err)
}

func (cc *H2Conn) lastPeerStream() uint32 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.lastPushID
}

// streamError resets one stream for a problem confined to it.
func (cc *H2Conn) streamError(id uint32, code http2.ErrCode, err error) {
	cc.mu.Lock()
	st := cc.streams[id]
	cc.mu.Unlock()
	if st == nil {
		_ = cc.writeFrame(func() error { return cc.fr.WriteRSTStream(id, code) },
			FrameEvent{Type: http2.FrameRSTStream, StreamID: id, Length: 4, ErrCode: code})
		return
	}
	st.reset(code, err)
}

// handle applies one frame; a non-nil error is a connection error.
func (cc *H2Conn) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		return cc.handleSettings(f)
	case *http2.MetaHeadersFrame:
		return cc.handleHeaders(f)
	case *http2.DataFrame:
		return cc.handleData(f)
	case *http2.WindowUpdateFrame:
		return cc.handleWindowUpdate(f)
	case *http2.RSTStreamFrame:
		cc.handleRST(f)
	case *http2.GoAwayFrame:
		cc.handleGoAway(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			data := f.Data
			return cc.writeFrame(func() error { return cc.fr.WritePing(true, data) },
				FrameEvent{Type: http2.FramePing, Length: 8, Flags: http2.FlagPingAck})
		}
	case *http2.PushPromiseFrame:
		return cc.handlePushPromise(f)
	case *http2.ContinuationFrame:
		// The Framer merges CONTINUATION into HEADERS; one reaching us
		// follows a PUSH_PROMISE, which the Framer does not merge.
		return protocolError("CONTINUATION after PUSH_PROMISE on stream %d is not supported", f.StreamID)
	}
	// PRIORITY and unknown frame types are ignored (RFC 9113 section 4.1).
	return nil
}

func (cc *H2Conn) handleSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		cc.settingsApplied()
		return nil
	}
	if err := f.ForeachSetting(func(s http2.Setting) error { return s.Valid() }); err != nil {
		return &connError{code: errCodeOf(err), msg: "invalid SETTINGS: " + err.Error()}
	}
	var tableSize *uint32
	cc.mu.Lock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.peerMaxStreams = s.Val
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - int64(cc.peerStreamWin)
			for _, st := range cc.streams {
				if !st.sendWin.add(delta) {
					return &connError{code: http2.ErrCodeFlowControl, msg: "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window"}
				}
			}
			cc.peerStreamWin = int32(s.Val)
		case http2.SettingMaxFrameSize:
			cc.peerMaxFrame = s.Val
		case http2.SettingHeaderTableSize:
			v := s.Val
			tableSize = &v
		}
		return nil
	})
	cc.gotSettings = true
	cc.cond.Broadcast()
	cc.mu.Unlock()
	if err != nil {
		return err
	}
	return cc.writeFrame(func() error {
		if tableSize != nil {
			cc.henc.SetMaxDynamicTableSizeLimit(*tableSize)
		}
		return cc.fr.WriteSettingsAck()
	}, FrameEvent{Type: http2.FrameSettings, Flags: http2.FlagSettingsAck})
}

// settingsApplied moves the receive windows of streams opened before the
// server applied our SETTINGS from 65535 to our window, as the server does.
func (cc *H2Conn) settingsApplied() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.settingsAcked {
		return
	}
	cc.settingsAcked = true
	delta := cc.streamWindow - 65535
	for _, st := range cc.streams {
		st.recvAvail += delta // may go below zero: the server then waits
	}
}

func errCodeOf(err error) http2.ErrCode {
	var ce http2.ConnectionError
	if errors.As(err, &ce) {
		return http2.ErrCode(ce)
	}
	return http2.ErrCodeProtocol
}

// stream looks up an open stream; for a stream id that was never opened it
// returns a connection error, for one already closed (nil, nil).
func (cc *H2Conn) stream(id uint32, what string) (*h2Stream, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if st := cc.streams[id]; st != nil {
		return st, nil
	}
	if (id%2 == 1 && id >= cc.nextID) || (id%2 == 0 && id > cc.lastPushID) {
		return nil, protocolError("%s on idle stream %d", what, id)
	}
	return nil, nil
}

func (cc *H2Conn) handleHeaders(f *http2.MetaHeadersFrame) error {
	st, err := cc.stream(f.StreamID, "HEADERS")
	if st == nil || err != nil {
		return err
	}
	cc.mu.Lock()
	cc.stats.HeaderBytesReceivedRaw += fieldsSize(f.Fields)
	cc.mu.Unlock()
	if f.Truncated {
		st.reset(http2.ErrCodeProtocol, fmt.Errorf("h2: response header list exceeds %d bytes", cc.maxHeaderList))
		return nil
	}
	select {
	case <-st.gotHeaders:
		// Trailers: only with END_STREAM.
		if !f.StreamEnded() {
			st.reset(http2.ErrCodeProtocol, errors.New("h2: HEADERS after the response header without END_STREAM"))
			return nil
		}
		if st.resp != nil {
			for _, hf := range f.RegularFields() {
				st.resp.Trailer.Add(http.CanonicalHeaderKey(hf.Name), hf.Value)
			}
		}
		cc.endStream(st)
		return nil
	default:
	}
	resp, err := buildResponse(f, st.req)
	if err != nil {
		st.reset(http2.ErrCodeProtocol, err)
		return nil
	}
	if resp == nil {
		return nil // an interim 1xx response
	}
	resp.Body = st.body
	st.setResponse(resp)
	if f.StreamEnded() {
		cc.endStream(st)
	}
	return nil
}

// buildResponse makes the http.Response of a response header block; nil
// for an interim (1xx) response.
func buildResponse(f *http2.MetaHeadersFrame, req *http.Request) (*http.Response, error) {
	status := f.PseudoValue("status")
	code, err := strconv.Atoi(status)
	if status == "" || err != nil || code < 100 || code > 999 {
		return nil, fmt.Errorf("h2: response without a valid :status (%q)", status)
	}
	for _, hf := range f.PseudoFields() {
		if hf.Name != ":status" {
			return nil, fmt.Errorf("h2: response carries request pseudo-header %s", hf.Name)
		}
	}
	if code >= 100 && code <= 199 {
		if f.StreamEnded() {
			return nil, errors.New("h2: interim response ends the stream")
		}
		return nil, nil
	}
	h := http.Header{}
	for _, hf := range f.RegularFields() {
		h.Add(http.CanonicalHeaderKey(hf.Name), hf.Value)
	}
	resp := &http.Response{
		Status: status + " " + http.StatusText(code), StatusCode: code,
		Proto: "HTTP/2.0", ProtoMajor: 2, Header: h, Trailer: http.Header{},
		ContentLength: -1, Request: req,
	}
	if cl := h.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("h2: bad content-length %q", cl)
		}
		resp.ContentLength = n
	}
	return resp, nil
}

// endStream handles END_STREAM from the peer.
func (cc *H2Conn) endStream(st *h2Stream) {
	cc.mu.Lock()
	st.remoteDone = true
	st.finishLocked()
	cc.mu.Unlock()
	st.body.end(io.EOF)
}

func (cc *H2Conn) handleData(f *http2.DataFrame) error {
	n := int32(f.Length)
	if err := cc.takeConnWindow(n); err != nil {
		return err
	}
	st, err := cc.stream(f.StreamID, "DATA")
	if err != nil || st == nil {
		return err
	}
	select {
	case <-st.gotHeaders:
	default:
		st.reset(http2.ErrCodeProtocol, errors.New("h2: DATA before the response header"))
		return nil
	}
	cc.mu.Lock()
	if left := st.recvAvail; n > left {
		cc.mu.Unlock()
		st.reset(http2.ErrCodeFlowControl, fmt.Errorf("h2: the server sent %d bytes with %d left in the stream's flow-control window", n, left))
		return nil
	}
	st.recvAvail -= n
	cc.mu.Unlock()
	// Padding is nobody's to read: credit it back with the next read.
	st.body.write(f.Data(), n-int32(len(f.Data())))
	st.rcvd += int64(len(f.Data()))
	if f.StreamEnded() {
		if cl := st.resp.ContentLength; cl >= 0 && st.rcvd != cl && st.req.Method != http.MethodHead {
			st.reset(http2.ErrCodeProtocol, fmt.Errorf("h2: body is %d bytes, content-length said %d", st.rcvd, cl))
			return nil
		}
		cc.endStream(st)
	}
	return nil
}

// takeConnWindow accounts n received bytes against the connection window
// and credits them back at once (in batches of half the window): the
// connection window only guards against a peer ignoring it; stream windows
// bound what is buffered.
func (cc *H2Conn) takeConnWindow(n int32) error {
	cc.mu.Lock()
	if n > cc.connWindow-cc.recvUnacked {
		cc.mu.Unlock()
		return &connError{code: http2.ErrCodeFlowControl, msg: fmt.Sprintf("the server sent %d bytes beyond the connection's flow-control window", n)}
	}
	cc.recvUnacked += n
	credit := int32(0)
	if cc.recvUnacked >= cc.connWindow/2 {
		credit, cc.recvUnacked = cc.recvUnacked, 0
	}
	cc.mu.Unlock()
	if credit == 0 {
		return nil
	}
	return cc.writeFrame(func() error { return cc.fr.WriteWindowUpdate(0, uint32(credit)) },
		FrameEvent{Type: http2.FrameWindowUpdate, Length: 4, Increment: uint32(credit)})
}

func (cc *H2Conn) handleWindowUpdate(f *http2.WindowUpdateFrame) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if f.StreamID == 0 {
		if !cc.sendWin.add(int64(f.Increment)) {
			return &connError{code: http2.ErrCodeFlowControl, msg: "WINDOW_UPDATE overflows the connection window"}
		}
		cc.cond.Broadcast()
		return nil
	}
	st := cc.streams[f.StreamID]
	if st == nil {
		return nil
	}
	if !st.sendWin.add(int64(f.Increment)) {
		cc.mu.Unlock()
		st.reset(http2.ErrCodeFlowControl, errors.New("h2: WINDOW_UPDATE overflows the stream window"))
		cc.mu.Lock()
		return nil
	}
	cc.cond.Broadcast()
	return nil
}

func (cc *H2Conn) handleRST(f *http2.RSTStreamFrame) {
	cc.mu.Lock()
	st := cc.streams[f.StreamID]
	if st == nil {
		cc.mu.Unlock()
		return
	}
	err := fmt.Errorf("h2: the server reset stream %d: %s", f.StreamID, f.ErrCode)
	select {
	case <-st.gotHeaders:
	default:
		if f.ErrCode == http2.ErrCodeRefusedStream {
			err = fmt.Errorf("%w: the server refused stream %d (REFUSED_STREAM)", ErrNotProcessed, f.StreamID)
			cc.stats.Refused++
		}
	}
	st.finishLocked()
	cc.mu.Unlock()
	st.abort(err)
}

func (cc *H2Conn) handleGoAway(f *http2.GoAwayFrame) {
	cc.mu.Lock()
	cc.goneAway = true
	cc.goAwayLast = f.LastStreamID
	var dropped []*h2Stream
	for id, st := range cc.streams {
		if id%2 == 1 && id > f.LastStreamID {
			dropped = append(dropped, st)
			st.finishLocked()
			cc.stats.Refused++
		}
	}
	cc.cond.Broadcast()
	cc.mu.Unlock()
	why := f.ErrCode.String()
	if d := f.DebugData(); len(d) > 0 {
		why += " " + strconv.Quote(string(d))
	}
	for _, st := range dropped {
		st.abort(fmt.Errorf("%w: stream %d is above the GOAWAY's last stream %d (%s)", ErrNotProcessed, st.id, f.LastStreamID, why))
	}
}

func (cc *H2Conn) handlePushPromise(f *http2.PushPromiseFrame) error {
	if !cc.pushEnabled {
		return protocolError("PUSH_PROMISE on stream %d with push disabled", f.StreamID)
	}
	if !f.HeadersEnded() {
		return protocolError("PUSH_PROMISE split across CONTINUATION frames is not supported")
	}
	parent, err := cc.stream(f.StreamID, "PUSH_PROMISE")
	if err != nil {
		return err
	}
	cc.mu.Lock()
	if f.PromiseID%2 != 0 || f.PromiseID <= cc.lastPushID {
		cc.mu.Unlock()
		return protocolError("PUSH_PROMISE promises stream %d (after %d)", f.PromiseID, cc.lastPushID)
	}
	cc.lastPushID = f.PromiseID
	cc.mu.Unlock()
	fields, err := cc.decodePushHeaders(f.HeaderBlockFragment())
	if err != nil {
		return &connError{code: http2.ErrCodeCompression, msg: "PUSH_PROMISE header block: " + err.Error()}
	}
	p, req, perr := pushRequest(fields, f)
	cc.mu.Lock()
	cc.stats.HeaderBytesReceivedRaw += fieldsSize(fields)
	cc.stats.PushesOffered++
	cc.mu.Unlock()
	refuse := func(code http2.ErrCode) error {
		return cc.writeFrame(func() error { return cc.fr.WriteRSTStream(f.PromiseID, code) },
			FrameEvent{Type: http2.FrameRSTStream, StreamID: f.PromiseID, Length: 4, ErrCode: code})
	}
	if perr != nil {
		return refuse(http2.ErrCodeProtocol)
	}
	if parent == nil || !cc.cfg.OnPush(p) {
		return refuse(http2.ErrCodeCancel)
	}
	cc.mu.Lock()
	if _, dup := cc.pushes[p.URL]; dup || cc.closed {
		cc.mu.Unlock()
		return refuse(http2.ErrCodeCancel)
	}
	st := newH2Stream(cc, f.PromiseID, req, cc.recvWindowNow(), 0)
	st.pushed = true
	cc.streams[st.id] = st
	cc.pushes[p.URL] = st
	cc.stats.PushesAccepted++
	cc.mu.Unlock()
	return nil
}

// decodePushHeaders decodes a PUSH_PROMISE block with the connection's
// HPACK decoder (one dynamic table for every header block the server sends).
func (cc *H2Conn) decodePushHeaders(block []byte) ([]hpack.HeaderField, error) {
	dec := cc.fr.ReadMetaHeaders
	var fields []hpack.HeaderField
	var size uint32
	dec.SetEmitEnabled(true)
	dec.SetEmitFunc(func(hf hpack.HeaderField) {
		size += hf.Size()
		if size <= cc.maxHeaderList {
			fields = append(fields, hf)
		}
	})
	defer dec.SetEmitFunc(func(hpack.HeaderField) {})
	if _, err := dec.Write(block); err != nil {
		return nil, err
	}
	if err := dec.Close(); err != nil {
		return nil, err
	}
	if size > cc.maxHeaderList {
		return nil, fmt.Errorf("header list exceeds %d bytes", cc.maxHeaderList)
	}
	return fields, nil
}

// pushRequest checks a promised request (RFC 9113 section 8.4: safe,
// cacheable, no body) and builds its URL.
func pushRequest(fields []hpack.HeaderField, f *http2.PushPromiseFrame) (*PushPromise, *http.Request, error) {
	var method, scheme, authority, path string
	h := http.Header{}
	for _, hf := range fields {
		switch hf.Name {
		case ":method":
			method = hf.Value
		case ":scheme":
			scheme = hf.Value
		case ":authority":
			authority = hf.Value
		case ":path":
			path = hf.Value
		default:
			if strings.HasPrefix(hf.Name, ":") {
				return nil, nil, fmt.Errorf("promised request has pseudo-header %s", hf.Name)
			}
			h.Add(http.CanonicalHeaderKey(hf.Name), hf.Value)
		}
	}
	if method != http.MethodGet && method != http.MethodHead {
		return nil, nil, fmt.Errorf("promised request method %q is not safe", method)
	}
	if scheme == "" || authority == "" || !strings.HasPrefix(path, "/") {
		return nil, nil, errors.New("promised request lacks :scheme, :authority or :path")
	}
	u, err := url.Parse(scheme + "://" + authority + path)
	if err != nil {
		return nil, nil, err
	}
	req := &http.Request{Method: method, URL: u, Header: h, Host: authority, Proto: "HTTP/2.0", ProtoMajor: 2}
	return &PushPromise{URL: u.String(), AssociatedStreamID: f.StreamID, StreamID: f.PromiseID, Header: h}, req, nil
}

// traceReceived reports a frame as it was on the wire: a DATA frame the
// splitter cut is reported once, at its last piece, with its wire length.
func (cc *H2Conn) traceReceived(f http2.Frame) {
	if cc.cfg.Trace == nil {
		return
	}
	ev := eventOf(f)
	if _, ok := f.(*http2.DataFrame); ok && cc.split != nil {
		if !cc.split.lastEnded {
			return
		}
		ev.Length = cc.split.wireLen
	}
	cc.cfg.Trace(ev)
}
