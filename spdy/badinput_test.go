package spdy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// rawPeer drives a session under test with hand-made frames.
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	fr   *Framer
	done chan error
}

func (p *rawPeer) send(frames ...Frame) {
	p.t.Helper()
	for _, f := range frames {
		if err := p.fr.WriteFrame(f); err != nil {
			p.t.Fatalf("writing %v: %v", f, err)
		}
	}
	if err := p.fr.Flush(); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawPeer) sendRaw(b []byte) {
	p.t.Helper()
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next frame that is not routine session traffic.
func (p *rawPeer) next() Frame {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // hang guard only
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			p.t.Fatalf("reading: %v", err)
		}
		switch f.(type) {
		case *SettingsFrame, *WindowUpdateFrame:
			continue
		}
		return f
	}
}

func (p *rawPeer) expectRst(id uint32, status RstStatus) {
	p.t.Helper()
	for {
		f := p.next()
		if r, ok := f.(*RstStreamFrame); ok {
			if r.Stream != id || r.Status != status {
				p.t.Fatalf("got %v, want RST_STREAM stream=%d status=%s", r, id, status)
			}
			return
		}
		if g, ok := f.(*GoAwayFrame); ok {
			p.t.Fatalf("got %v, want RST_STREAM stream=%d status=%s", g, id, status)
		}
	}
}

func (p *rawPeer) expectGoAway(lastGood uint32, status GoAwayStatus) {
	p.t.Helper()
	for {
		f := p.next()
		if g, ok := f.(*GoAwayFrame); ok {
			if g.LastGoodStream != lastGood || g.Status != status {
				p.t.Fatalf("got %v, want GOAWAY last_good_stream=%d status=%s", g, lastGood, status)
			}
			// After a session error the connection is closed.
			p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			for {
				if _, err := p.fr.ReadFrame(); err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
						var ne net.Error
						if errors.As(err, &ne) && ne.Timeout() {
							p.t.Fatal("connection not closed after GOAWAY")
						}
					}
					return
				}
			}
		}
		if r, ok := f.(*RstStreamFrame); ok {
			p.t.Fatalf("got %v, want GOAWAY %s", r, status)
		}
	}
}

// expectAlive checks the session still answers a PING.
func (p *rawPeer) expectAlive(pingID uint32) {
	p.t.Helper()
	p.send(&PingFrame{ID: pingID})
	for {
		f := p.next()
		if pf, ok := f.(*PingFrame); ok && pf.ID == pingID {
			return
		}
		if _, ok := f.(*GoAwayFrame); ok {
			p.t.Fatalf("session went away: %v", f)
		}
	}
}

func blockingHandler() (http.Handler, chan struct{}) {
	release := make(chan struct{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Write([]byte("ok"))
	}), release
}

// newRawClient runs a Server on one end of a TCP pair; the test is the client.
func newRawClient(t *testing.T, cfg Config, h http.Handler) *rawPeer {
	c, s := tcpPipe(t)
	p := &rawPeer{t: t, conn: c, fr: NewFramerVersion(cfg.wireVersion(), c, c, 0), done: make(chan error, 1)}
	srv := &Server{Config: cfg, Handler: h}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { p.done <- srv.ServeConn(ctx, s) }()
	t.Cleanup(func() {
		c.Close()
		cancel()
		<-p.done
	})
	return p
}

func getHeaders(path string) Header {
	return Header{":method": {"GET"}, ":path": {path}, ":version": {"HTTP/1.1"}, ":host": {"example.test"}, ":scheme": {"https"}}
}

func TestServerAnswersBadInput(t *testing.T) {
	both(t, func(t *testing.T, version string) {
		cfg := Config{Version: version}
		h, release := blockingHandler()
		defer close(release)

		t.Run("DATA on a stream never opened", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&DataFrame{Stream: 5, Data: []byte("x")})
			p.expectRst(5, RstInvalidStream)
			p.expectAlive(1)
		})
		t.Run("DATA after FIN", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")},
				&DataFrame{Stream: 1, Data: []byte("late")})
			p.expectRst(1, RstStreamAlreadyClosed)
			p.expectAlive(1)
		})
		t.Run("frames on a fully closed stream", func(t *testing.T) {
			quick := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("done")) })
			p := newRawClient(t, cfg, quick)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
			for { // wait for the server's FIN: the stream is now closed both ways
				if d, ok := p.next().(*DataFrame); ok && d.Flags&FlagFin != 0 {
					break
				}
			}
			// A late WINDOW_UPDATE is ignored (section 2.6.8); DATA on a
			// closed stream is PROTOCOL_ERROR (2.3.7), not the half-closed
			// STREAM_ALREADY_CLOSED.
			p.send(&WindowUpdateFrame{Stream: 1, Delta: 100}, &DataFrame{Stream: 1, Data: []byte("x")})
			p.expectRst(1, RstProtocolError)
			p.send(&HeadersFrame{Stream: 7, Headers: Header{"x": {"y"}}})
			p.expectRst(7, RstInvalidStream)
			p.expectAlive(1)
		})
		t.Run("client stream with even id", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 2, Flags: FlagFin, Headers: getHeaders("/")})
			p.expectGoAway(0, GoAwayProtocolError)
		})
		t.Run("stream id going backwards", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 5, Flags: FlagFin, Headers: getHeaders("/")},
				&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/")})
			p.expectGoAway(5, GoAwayProtocolError)
		})
		t.Run("second SYN_STREAM for an open stream", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/")},
				&SynStreamFrame{Stream: 1, Headers: getHeaders("/")})
			p.expectRst(1, RstProtocolError)
		})
		t.Run("too many streams", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version, MaxConcurrentStreams: 1}, h)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")},
				&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/")})
			p.expectRst(3, RstRefusedStream)
			p.expectAlive(1)
		})
		t.Run("stream window overflow", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")},
				&WindowUpdateFrame{Stream: 1, Delta: maxWindow})
			p.expectRst(1, RstFlowControlError)
			p.expectAlive(1)
		})
		t.Run("stream WINDOW_UPDATE delta 0", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw(append(synStreamRaw(t, 1, FlagFin), 0x80, 3, 0, 9, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0))
			p.expectRst(1, RstFlowControlError)
		})
		t.Run("peer overruns the stream window", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version, SessionWindowSize: 1 << 20}, h)
			p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")})
			chunk := make([]byte, 16384)
			for i := 0; i < 4; i++ {
				p.send(&DataFrame{Stream: 1, Data: chunk})
			}
			p.send(&DataFrame{Stream: 1, Data: []byte("one byte too many")})
			p.expectRst(1, RstFlowControlError)
			p.expectAlive(1)
		})
		t.Run("oversize DATA frame", func(t *testing.T) {
			p := newRawClient(t, Config{Version: version, MaxReadFrameSize: 8192}, h)
			p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")},
				&DataFrame{Stream: 1, Data: make([]byte, 10000)})
			p.expectRst(1, RstFrameTooLarge)
			p.expectAlive(1)
		})
		t.Run("malformed control frame", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte{0x80, 3, 0, 3, 0, 0, 0, 4, 0, 0, 0, 1}) // RST_STREAM with length 4
			p.expectGoAway(0, GoAwayProtocolError)
		})
		t.Run("unsupported version SYN_STREAM", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			raw := synStreamRaw(t, 1, FlagFin)
			raw[1] = 2
			p.sendRaw(raw)
			p.expectRst(1, RstUnsupportedVersion)
			p.expectAlive(1) // a stream error (2.4.2), not a session error
			p.send(&SynStreamFrame{Stream: 3, Flags: FlagFin, Headers: getHeaders("/")})
			p.send(&RstStreamFrame{Stream: 3, Status: RstCancel})
			p.expectAlive(3)
		})
		t.Run("decompression bomb", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			c := newRawCompressor()
			raw := binary.BigEndian.AppendUint32(nil, 1)
			raw = binary.BigEndian.AppendUint32(raw, 1)
			raw = append(raw, 'a')
			raw = binary.BigEndian.AppendUint32(raw, 32<<20)
			c.zw.Write(raw)
			c.zw.Write(make([]byte, 32<<20))
			c.zw.Flush()
			p.sendRaw(synStreamWire(t, 1, 0, 0, FlagFin, c.buf.Bytes()))
			p.expectRst(1, RstFrameTooLarge)
			// 2.6.6: last-good-stream-id counts streams answered with RST_STREAM.
			p.expectGoAway(1, GoAwayProtocolError)
		})
		t.Run("invalid header block contents", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			c := newRawCompressor()
			p.sendRaw(synStreamWire(t, 1, 0, 0, FlagFin, c.block(rawBlock(":method", "GET", "Bad", "x"))))
			p.expectRst(1, RstProtocolError)
			// Same compression context, next block is fine: session lives.
			p.sendRaw(synStreamWire(t, 3, 0, 0, FlagFin, c.block(rawBlock(":method", "GET"))))
			p.expectAlive(1)
		})
		t.Run("request without pseudo-headers gets 400", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: Header{":method": {"GET"}}})
			f := p.next()
			r, ok := f.(*SynReplyFrame)
			if !ok || r.Headers.Get(":status")[:3] != "400" {
				t.Fatalf("got %v", f)
			}
		})
		t.Run("request body shorter than Content-Length", func(t *testing.T) {
			upload := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := io.ReadAll(r.Body); errors.Is(err, ErrBodyLengthMismatch) {
					http.Error(w, err.Error(), http.StatusBadRequest)
				}
			})
			p := newRawClient(t, cfg, upload)
			hdr := getHeaders("/upload")
			hdr.Set("content-length", "10")
			p.send(&SynStreamFrame{Stream: 1, Headers: hdr}, &DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("12345")})
			f := p.next()
			if r, ok := f.(*SynReplyFrame); !ok || r.Headers.Get(":status")[:3] != "400" {
				t.Fatalf("got %v", f)
			}
		})
		t.Run("frames after GOAWAY-worthy error are not processed", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte{0x80, 3, 0, 6, 0, 0, 0, 5, 0, 0, 0, 1, 0}) // PING with length 5
			p.expectGoAway(0, GoAwayProtocolError)
		})
		if version == ProtoSPDY31 {
			t.Run("session window overflow", func(t *testing.T) {
				p := newRawClient(t, cfg, h)
				p.send(&WindowUpdateFrame{Stream: 0, Delta: maxWindow})
				p.expectGoAway(0, GoAwayProtocolError)
			})
			t.Run("peer overruns the session window", func(t *testing.T) {
				p := newRawClient(t, Config{Version: version, InitialWindowSize: 1 << 20}, h)
				p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/a")}, &SynStreamFrame{Stream: 3, Headers: getHeaders("/b")})
				chunk := make([]byte, 16384)
				for i := 0; i < 2; i++ {
					p.send(&DataFrame{Stream: 1, Data: chunk}, &DataFrame{Stream: 3, Data: chunk})
				}
				p.send(&DataFrame{Stream: 1, Data: []byte("x")})
				p.expectGoAway(3, GoAwayProtocolError)
			})
		}
	})
}

// TestServerRefusesFromFrameHeader sends frame headers whose payload never
// comes (garbage, lies about lengths). The session must answer from the
// header alone. The frame read timeout is off, so only that answer can
// arrive; rawPeer's read deadline is a hang guard that fails the test.
func TestServerRefusesFromFrameHeader(t *testing.T) {
	allVersions(t, func(t *testing.T, version string) {
		cfg := Config{Version: version, FrameReadTimeout: -1}
		wire := byte(cfg.wireVersion())
		protocolError, tooLarge := GoAwayProtocolError, RstFrameTooLarge
		if version == ProtoSPDY2 {
			// Draft 2's GOAWAY carries no status, and it has no
			// FRAME_TOO_LARGE: the framer writes PROTOCOL_ERROR.
			protocolError, tooLarge = GoAwayOK, RstProtocolError
		}
		h, release := blockingHandler()
		defer close(release)

		t.Run("garbage opening", func(t *testing.T) {
			// A DATA frame header of stream 0xff1367 with a length of 7 MB
			// (spdy/3.1: beyond the session window; else beyond the frame cap).
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte("\x00\xff\x13garbage that is no protocol at all\r\n\r\n"))
			p.expectGoAway(0, protocolError)
		})
		t.Run("DATA header for a stream never opened", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte{0, 0, 0, 5, 0, 0, 0, 100})
			p.expectRst(5, RstInvalidStream)
			p.sendRaw(make([]byte, 100)) // the payload, late: skipped, the framing stays aligned
			p.expectAlive(1)
		})
		t.Run("DATA header on stream 0", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte{0, 0, 0, 0, 0, 0, 0, 10})
			p.expectGoAway(0, protocolError)
		})
		t.Run("DATA header with the largest length on an open stream", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.send(&SynStreamFrame{Stream: 1, Headers: getHeaders("/upload")})
			p.sendRaw([]byte{0, 0, 0, 1, 0, 0xff, 0xff, 0xff})
			if version == ProtoSPDY31 {
				p.expectGoAway(1, GoAwayProtocolError) // FLOW_CONTROL_ERROR on the session window
				return
			}
			p.expectRst(1, tooLarge)
		})
		t.Run("control frame header with the largest length", func(t *testing.T) {
			p := newRawClient(t, cfg, h)
			p.sendRaw([]byte{0x80, wire, 0, byte(TypeSettings), 0, 0xff, 0xff, 0xff})
			p.expectGoAway(0, protocolError)
		})
		if version != ProtoSPDY2 { // draft 2 ignores other versions' control frames
			t.Run("control frame header of another version", func(t *testing.T) {
				p := newRawClient(t, cfg, h)
				p.sendRaw([]byte{0x80, 7, 0, byte(TypePing), 0, 0, 0, 4})
				p.expectGoAway(0, protocolError)
			})
		}
	})
}

func synStreamRaw(t *testing.T, id uint32, flags uint8) []byte {
	c := newRawCompressor()
	return synStreamWire(t, id, 0, 3, flags, c.block(rawBlock(":host", "example.test", ":method", "GET", ":path", "/", ":scheme", "https", ":version", "HTTP/1.1")))
}

// newRawServer gives a ClientConn whose peer is the test.
func newRawServer(t *testing.T, cfg *ClientConfig) (*ClientConn, *rawPeer) {
	c, s := tcpPipe(t)
	cc, err := NewClientConn(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, conn: s, fr: NewFramer(s, s, 0)}
	t.Cleanup(func() { cc.Close(); s.Close() })
	return cc, p
}

func startGet(cc *ClientConn, path string) chan error {
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "https://example.test"+path, nil)
		resp, err := cc.RoundTrip(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	return errc
}

func (p *rawPeer) expectSyn() *SynStreamFrame {
	p.t.Helper()
	for {
		if s, ok := p.next().(*SynStreamFrame); ok {
			return s
		}
	}
}

func replyHeaders() Header { return Header{":status": {"200"}, ":version": {"HTTP/1.1"}} }

func TestClientAnswersBadInput(t *testing.T) {
	t.Run("second SYN_REPLY", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		errc := startGet(cc, "/")
		s := p.expectSyn()
		p.send(&SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()}, &SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()})
		p.expectRst(s.Stream, RstStreamInUse)
		if err := <-errc; err == nil {
			t.Fatal("request succeeded")
		}
	})
	t.Run("DATA before SYN_REPLY", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		errc := startGet(cc, "/")
		s := p.expectSyn()
		p.send(&DataFrame{Stream: s.Stream, Data: []byte("x")})
		p.expectRst(s.Stream, RstProtocolError)
		if err := <-errc; err == nil {
			t.Fatal("request succeeded")
		}
	})
	t.Run("SYN_REPLY without :status", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		errc := startGet(cc, "/")
		s := p.expectSyn()
		p.send(&SynReplyFrame{Stream: s.Stream, Headers: Header{":version": {"HTTP/1.1"}}})
		p.expectRst(s.Stream, RstProtocolError)
		<-errc
	})
	t.Run("push with Associated-To-Stream-ID 0", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		p.expectSyn()
		p.send(&SynStreamFrame{Stream: 2, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {"/x"}}})
		p.expectGoAway(0, GoAwayProtocolError)
	})
	t.Run("push without :path", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		s := p.expectSyn()
		p.send(&SynStreamFrame{Stream: 2, AssociatedTo: s.Stream, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}}})
		p.expectRst(2, RstProtocolError)
	})
	t.Run("push on a stream that is not open", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		p.expectSyn()
		p.send(&SynStreamFrame{Stream: 2, AssociatedTo: 99, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {"/x"}}})
		p.expectRst(2, RstInvalidStream)
	})
	t.Run("server stream with odd id", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		p.expectSyn()
		p.send(&SynStreamFrame{Stream: 3, AssociatedTo: 1, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {"/x"}}})
		p.expectGoAway(0, GoAwayProtocolError)
	})
	t.Run("too many pushes", func(t *testing.T) {
		cc, p := newRawServer(t, &ClientConfig{Config: Config{MaxConcurrentStreams: 1}})
		startGet(cc, "/")
		s := p.expectSyn()
		push := func(id uint32, path string) *SynStreamFrame {
			return &SynStreamFrame{Stream: id, AssociatedTo: s.Stream, Flags: FlagUnidirectional,
				Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {path}, ":status": {"200"}, ":version": {"HTTP/1.1"}}}
		}
		p.send(push(2, "/a"), push(4, "/b"))
		p.expectRst(4, RstRefusedStream)
	})
	t.Run("server settings persistence and CLEAR", func(t *testing.T) {
		cc, p := newRawServer(t, &ClientConfig{PersistedSettings: []Setting{{ID: SettingRoundTripTime, Value: 80}}})
		// The first SETTINGS from the client returns the persisted value.
		p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		f, err := p.fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		sf := f.(*SettingsFrame)
		found := false
		for _, e := range sf.Entries {
			if e.ID == SettingRoundTripTime {
				found = e.Value == 80 && e.Flags == FlagSettingPersisted
			}
			if e.Flags&FlagSettingPersist != 0 {
				t.Fatalf("client asked the server to persist: %v", sf)
			}
		}
		if !found {
			t.Fatalf("persisted setting not returned: %v", sf)
		}
		p.send(&SettingsFrame{Flags: FlagSettingsClear, Entries: []Setting{{ID: SettingCurrentCwnd, Value: 10, Flags: FlagSettingPersist}}})
		eventually(t, "CLEAR_SETTINGS drops the old value and the new one is persisted", func() bool {
			ps := cc.PersistedSettings()
			return len(ps) == 1 && ps[0] == Setting{ID: SettingCurrentCwnd, Value: 10}
		})
	})
}

// Interop leniencies and window rules found against node-spdy (see
// interop/SPDY_ISSUES.md).
func TestClientInteropLeniency(t *testing.T) {
	pushHeaders := func(path string) Header {
		return Header{":scheme": {"https"}, ":host": {"example.test"}, ":path": {path}, ":method": {"GET"},
			":status": {"200"}, ":version": {"HTTP/1.1"}}
	}
	t.Run("push without FLAG_UNIDIRECTIONAL is still a push", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		s := p.expectSyn()
		p.send(&SynStreamFrame{Stream: 2, AssociatedTo: s.Stream, Headers: pushHeaders("/a.js")},
			&DataFrame{Stream: 2, Flags: FlagFin, Data: []byte("js")})
		var resp *http.Response
		eventually(t, "push offered", func() bool {
			var ok bool
			resp, ok = cc.Pushed("https://example.test/a.js")
			return ok
		})
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != "js" {
			t.Fatalf("push body %q %v", b, err)
		}
	})
	t.Run("RST after FIN keeps the data", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		req, _ := http.NewRequest(http.MethodGet, "https://example.test/", nil)
		respc := make(chan *http.Response, 1)
		go func() {
			resp, err := cc.RoundTrip(req)
			if err != nil {
				t.Error(err)
			}
			respc <- resp
		}()
		s := p.expectSyn()
		p.send(&SynReplyFrame{Stream: s.Stream, Headers: replyHeaders()},
			&DataFrame{Stream: s.Stream, Flags: FlagFin, Data: []byte("hello")},
			&RstStreamFrame{Stream: s.Stream, Status: RstInvalidStream})
		resp := <-respc
		if resp == nil {
			return
		}
		eventually(t, "stream closed by the RST", func() bool {
			cc.s.mu.Lock()
			defer cc.s.mu.Unlock()
			return len(cc.s.streams) == 0
		})
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != "hello" {
			t.Fatalf("body %q, err %v", b, err)
		}
	})
	t.Run("INVALID_STREAM before FIN once Content-Length is complete", func(t *testing.T) {
		// node-spdy's order: last DATA, RST INVALID_STREAM (answering our
		// WINDOW_UPDATE), then the empty DATA with FIN.
		cc, p := newRawServer(t, nil)
		errc := make(chan error, 1)
		body := make(chan []byte, 1)
		go func() {
			resp, err := cc.RoundTrip(mustRequest(t, "/"))
			if err == nil {
				var b []byte
				b, err = io.ReadAll(resp.Body)
				body <- b
			}
			errc <- err
		}()
		s := p.expectSyn()
		rh := replyHeaders()
		rh.Set("content-length", "5")
		p.send(&SynReplyFrame{Stream: s.Stream, Headers: rh}, &DataFrame{Stream: s.Stream, Data: []byte("hello")},
			&RstStreamFrame{Stream: s.Stream, Status: RstInvalidStream}, &DataFrame{Stream: s.Stream, Flags: FlagFin})
		if err := <-errc; err != nil {
			t.Fatalf("complete body failed: %v", err)
		}
		if b := <-body; string(b) != "hello" {
			t.Fatalf("body %q", b)
		}
		p.expectAlive(2) // server PING ids are even
		// The FIN was read before the PING, so an RST for it would be queued
		// or sent by now.
		cc.s.mu.Lock()
		queued := cc.s.sched.controlLen()
		cc.s.mu.Unlock()
		if queued != 0 || cc.Stats().FramesSent["RST_STREAM"] != 0 {
			t.Fatalf("late FIN answered with RST (queued %d, sent %v)", queued, cc.Stats().FramesSent)
		}
	})
	t.Run("INVALID_STREAM with the body incomplete is an error", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		errc := startGet(cc, "/")
		s := p.expectSyn()
		rh := replyHeaders()
		rh.Set("content-length", "6")
		p.send(&SynReplyFrame{Stream: s.Stream, Headers: rh}, &DataFrame{Stream: s.Stream, Data: []byte("hello")},
			&RstStreamFrame{Stream: s.Stream, Status: RstInvalidStream})
		if err := <-errc; !isRst(err, RstInvalidStream) {
			t.Fatalf("incomplete body: %v", err)
		}
	})
	t.Run("unclaimed pushes do not pin the session window", func(t *testing.T) {
		cc, p := newRawServer(t, nil)
		startGet(cc, "/")
		s := p.expectSyn()
		p.send(&SynStreamFrame{Stream: 2, AssociatedTo: s.Stream, Flags: FlagUnidirectional, Headers: pushHeaders("/big.jpg")})
		chunk := make([]byte, 15000)
		for i := 0; i < 4; i++ {
			p.send(&DataFrame{Stream: 2, Data: chunk})
		}
		// Nobody claimed the push, yet the session window must reopen.
		p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			f, err := p.fr.ReadFrame()
			if err != nil {
				t.Fatalf("no session WINDOW_UPDATE for unclaimed push data: %v", err)
			}
			if wu, ok := f.(*WindowUpdateFrame); ok && wu.Stream == 0 {
				if wu.Delta < 32768 {
					t.Fatalf("session update %d", wu.Delta)
				}
				break
			}
			if wu, ok := f.(*WindowUpdateFrame); ok && wu.Stream == 2 {
				t.Fatal("stream window of an unread push reopened")
			}
		}
		if urls := cc.PushedURLs(); len(urls) != 1 {
			t.Fatalf("pushes %v", urls)
		}
	})
}

func TestGoAwayOverTheWire(t *testing.T) {
	cc, p := newRawServer(t, nil)
	first := startGet(cc, "/first")
	s1 := p.expectSyn()
	second := startGet(cc, "/second")
	s3 := p.expectSyn()
	if s1.Stream != 1 || s3.Stream != 3 {
		t.Fatalf("stream ids %d %d", s1.Stream, s3.Stream)
	}
	p.send(&GoAwayFrame{LastGoodStream: 1, Status: GoAwayOK})
	if err := <-second; !errors.Is(err, ErrNotProcessed) {
		t.Fatalf("stream 3 above last-good: %v, want ErrNotProcessed", err)
	}
	if _, err := cc.RoundTrip(mustRequest(t, "/third")); !errors.Is(err, ErrNotProcessed) {
		t.Fatalf("new request after GOAWAY: %v", err)
	}
	// Stream 1 is still served to completion; then the session ends.
	p.send(&SynReplyFrame{Stream: 1, Headers: replyHeaders()}, &DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("ok")})
	if err := <-first; err != nil {
		t.Fatalf("stream 1 at last-good: %v", err)
	}
	<-cc.Done()
	var ge *GoAwayError
	if !errors.As(cc.Err(), &ge) || ge.LastGoodStream != 1 {
		t.Fatalf("session ended with %v", cc.Err())
	}
}

func mustRequest(t *testing.T, path string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, "https://example.test"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
