package spdy

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"
)

// Rules of draft 2 that SPDY/3 changed; the conform suite checks them on the
// wire (conform/cases_v2.go), these pin them in the package.

// "Protocol versioning": a control frame of another version other than
// SYN_STREAM must be ignored (a SPDY/3 framer ends the session instead).
func TestOtherVersionIgnoredV2(t *testing.T) {
	for _, wire := range []string{"8003 0006 00 000004 00000001", "8003 0007 00 000008 00000000 00000001", "8001 0003 00 000008 00000001 00000001"} {
		f, err := NewFramerVersion(Version2, nil, bytes.NewReader(unhex(t, wire)), 0).ReadFrame()
		u, ok := f.(*UnknownFrame)
		if err != nil || !ok || u.Version == Version2 || u.Version == 0 {
			t.Fatalf("%s: %#v, %v; want an ignored UnknownFrame of its version", wire, f, err)
		}
	}
	if _, err := NewFramer(nil, bytes.NewReader(unhex(t, "8002 0006 00 000004 00000001")), 0).ReadFrame(); !errors.As(err, new(*SessionError)) {
		t.Fatalf("SPDY/3 framer, v2 PING: %v, want a session error", err)
	}
	p := newRawClientV2(t, http.NotFoundHandler())
	p.sendRaw(unhex(t, "8003 0006 00 000004 00000001")) // a version-3 PING: not echoed
	p.send(&PingFrame{ID: 3})
	for {
		f := p.next()
		if pf, ok := f.(*PingFrame); ok {
			if pf.ID != 3 {
				t.Fatalf("echoed %v of another version", pf)
			}
			break
		}
		if _, ok := f.(*GoAwayFrame); ok {
			t.Fatalf("session went away: %v", f)
		}
	}
	p.expectAlive(5)
}

// "Name/Value header block format": a zero-length value gets RST_STREAM
// PROTOCOL_ERROR; our encoder never sends one (empty values are left out).
func TestZeroLengthValueV2(t *testing.T) {
	checkBadBlockV2(t, "empty value", "0002 0001 61 0000 0001 62 0001 63", 3)
	enc := newHeaderEncoderVersion(Version2)
	wire, _, err := enc.encode(nil, Header{":status": {"200"}, "x-empty": {""}, "x-parts": {"", "a", ""}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := newHeaderDecoderVersion(Version2, 0).decode(wire, 1)
	if want := (Header{":status": {"200"}, "x-parts": {"a"}}); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("encoded %v, %v; want %v", got, err, want)
	}
	// SPDY/3 allows the empty value (2.6.10).
	wire, _, _ = newHeaderEncoder().encode(nil, Header{"x-empty": {""}})
	if got, _, err := newHeaderDecoder(0).decode(wire, 1); err != nil || !reflect.DeepEqual(got, Header{"x-empty": {""}}) {
		t.Fatalf("SPDY/3 empty value: %v, %v", got, err)
	}

	p := newRawClientV2(t, http.NotFoundHandler())
	h := getHeaders("/")
	h["x-empty"] = []string{""}
	p.sendRaw(rawSynStreamV2(t, 1, h))
	p.expectRst(1, RstProtocolError)
	p.expectAlive(1)
}

// "Stream close": data on a stream already torn down must be ignored (SPDY/3
// 2.3.7: PROTOCOL_ERROR); a stream that never existed still gets
// INVALID_STREAM ("Data frames").
func TestDataOnClosedStreamIgnoredV2(t *testing.T) {
	quick := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("done")) })
	p := newRawClientV2(t, quick)
	p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	for { // the server's FIN: closed both ways
		if d, ok := p.next().(*DataFrame); ok && d.Flags&FlagFin != 0 {
			break
		}
	}
	p.send(&SynStreamFrame{Stream: 3, Headers: getHeaders("/")}, &RstStreamFrame{Stream: 3, Status: RstCancel})
	p.send(&DataFrame{Stream: 1, Data: []byte("x")}, &DataFrame{Stream: 3, Data: []byte("y")})
	// A PING echo may overtake control frames queued before it (2.6.5), but
	// not a second PING sent after the first echo came back.
	for _, id := range []uint32{1, 3} {
		p.send(&PingFrame{ID: id})
	wait:
		for {
			switch f := p.next().(type) {
			case *PingFrame:
				break wait
			case *RstStreamFrame, *GoAwayFrame:
				t.Fatalf("answered DATA on a torn-down stream with %v", f)
			}
		}
	}
	p.send(&DataFrame{Stream: 9, Data: []byte("z")})
	p.expectRst(9, RstInvalidStream)
}

// newRawClientV2 runs a spdy/2 Server; the test is a hand-driven v2 client.
func newRawClientV2(t *testing.T, h http.Handler) *rawPeer {
	p := newRawClient(t, Config{Version: ProtoSPDY2}, h)
	p.fr = NewFramerVersion(Version2, p.conn, p.conn, 0)
	return p
}

// rawSynStreamV2 is a v2 SYN_STREAM whose block the encoder would not write
// (it leaves empty values out): compressed here in a fresh v2 context, so it
// must be the session's first header block.
func rawSynStreamV2(t *testing.T, id uint32, h Header) []byte {
	raw := []byte{byte(len(h) >> 8), byte(len(h))}
	for name, vals := range h {
		if v2, ok := v3ToV2Names[name]; ok {
			name = v2
		}
		v := vals[0]
		raw = append(raw, byte(len(name)>>8), byte(len(name)))
		raw = append(raw, name...)
		raw = append(raw, byte(len(v)>>8), byte(len(v)))
		raw = append(raw, v...)
	}
	block := newV2BlockCompressor(t).block(raw)
	n := 10 + len(block)
	out := append(unhex(t, "8002 0001 01"), byte(n>>16), byte(n>>8), byte(n))
	out = append(out, byte(id>>24), byte(id>>16), byte(id>>8), byte(id), 0, 0, 0, 0, 0x40, 0)
	return append(out, block...)
}

// The header frames of SPDY/2: exact bytes before the block, and the exact
// uncompressed block (16-bit fields, colon-less names, sorted) inside the
// zlib stream seeded with the v2 dictionary.
func TestHeaderFrameVectorsV2(t *testing.T) {
	req := Header{":method": {"GET"}, ":path": {"/a"}, ":version": {"HTTP/1.1"}, ":host": {"h"}, ":scheme": {"https"}}
	cases := []struct {
		name   string
		frame  Frame
		prefix string // control header with the length left out, then the fixed fields
		raw    string // the uncompressed name/value block
	}{
		{"syn_stream", &SynStreamFrame{Stream: 1, Priority: 5, Flags: FlagFin, Headers: req},
			"8002 0001 01 | 00000001 00000000 80 00",
			"0005 0004 686f7374 0001 68" + "0006 6d6574686f64 0003 474554" + "0006 736368656d65 0005 6874747073" +
				"0003 75726c 0002 2f61" + "0007 76657273696f6e 0008 485454502f312e31"},
		{"syn_stream push", &SynStreamFrame{Stream: 2, AssociatedTo: 1, Priority: 0, Flags: FlagUnidirectional,
			Headers: Header{":status": {"200"}, "x": {"a", "b"}}},
			"8002 0001 02 | 00000002 00000001 00 00",
			"0002 0006 737461747573 0003 323030" + "0001 78 0003 610062"},
		{"syn_reply", &SynReplyFrame{Stream: 1, Headers: Header{":status": {"200 OK"}, ":version": {"HTTP/1.1"}}},
			"8002 0002 00 | 00000001 0000",
			"0002 0006 737461747573 0006 323030204f4b" + "0007 76657273696f6e 0008 485454502f312e31"},
		{"headers", &HeadersFrame{Stream: 3, Flags: FlagFin, Headers: Header{"etag": {"x"}}},
			"8002 0008 01 | 00000003 0000", "0001 0004 65746167 0001 78"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			fr := NewFramerVersion(Version2, &buf, nil, 0)
			if err := fr.WriteFrame(c.frame); err != nil {
				t.Fatal(err)
			}
			fr.Flush()
			wire := buf.Bytes()
			parts := bytes.SplitN([]byte(c.prefix), []byte("|"), 2)
			head, fixed := unhex(t, string(parts[0])), unhex(t, string(parts[1]))
			if !bytes.Equal(wire[:5], head) || int(wire[5])<<16|int(wire[6])<<8|int(wire[7]) != len(wire)-8 ||
				!bytes.Equal(wire[8:8+len(fixed)], fixed) {
				t.Fatalf("frame %x, want it to start %x <len> %x", wire, head, fixed)
			}
			zr, err := zlib.NewReaderDict(bytes.NewReader(wire[8+len(fixed):]), headerDictionaryV2)
			if err != nil {
				t.Fatal(err)
			}
			want := unhex(t, c.raw)
			got := make([]byte, len(want))
			if _, err := io.ReadFull(zr, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("block %x (%v), want %x", got, err, want)
			}
			back, err := NewFramerVersion(Version2, nil, bytes.NewReader(wire), 0).ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := c.frame.(*SynStreamFrame); ok {
				s.Priority &^= 1 // two bits on the wire: 5 travels as 2 and reads as 4
			}
			clearSizes(back)
			clearSizes(c.frame)
			if !reflect.DeepEqual(back, c.frame) {
				t.Fatalf("read back %#v, want %#v", back, c.frame)
			}
		})
	}
}

func clearSizes(f Frame) {
	switch f := f.(type) {
	case *SynStreamFrame:
		f.Size = BlockSize{}
	case *SynReplyFrame:
		f.Size = BlockSize{}
	case *HeadersFrame:
		f.Size = BlockSize{}
	}
}

// Two consecutive v2 header blocks from one compression context, made by
// node's zlib (the one node-spdy uses) with node-spdy's v2 dictionary.
const (
	v2NodeBlock1 = "38eadfa251b26260656001e51206eed48ac4dc829c54bde4fc5c06b6dcd4928cfc14066677d71006b6e2e48cd4dc5406d68c92928262066690366efdccbc94d40a3d90a318d8a1e63170c0ac01000000ffff"
	v2NodeBlock2 = "626066608358c5c0666460a0e0ef8d4d110f72ec3070c20308000000ffff"
)

func TestDecodeV2HeaderBlocksFromNode(t *testing.T) {
	d := newHeaderDecoderVersion(Version2, 0)
	h, _, err := d.decode(unhex(t, v2NodeBlock1), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{":host": {"example.com"}, ":method": {"GET"}, ":scheme": {"https"}, ":path": {"/index.html"}, ":version": {"HTTP/1.1"}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("block 1 = %v, want %v", h, want)
	}
	h, _, err = d.decode(unhex(t, v2NodeBlock2), 1)
	if err != nil {
		t.Fatal(err)
	}
	want = Header{":status": {"200 OK"}, ":version": {"HTTP/1.1"}, "content-type": {"text/html"}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("block 2 = %v, want %v", h, want)
	}
	// The v3 decoder must not take a v2 block: another dictionary.
	if _, _, err := newHeaderDecoder(0).decode(unhex(t, v2NodeBlock1), 1); err == nil {
		t.Fatal("SPDY/3 decoder accepted a SPDY/2 block")
	}
}

func TestHeaderBlockV2Errors(t *testing.T) {
	for name, h := range map[string]Header{
		"value over 16 bits":  {"x": {string(bytes.Repeat([]byte("v"), 1<<16))}},
		"host twice":          {":host": {"a"}, "host": {"b"}},
		"status header twice": {":status": {"200"}, "status": {"x"}},
		"unknown colon name":  {":authority": {"a"}},
	} {
		if _, _, err := newHeaderEncoderVersion(Version2).encode(nil, h); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	// A colon name from a v2 peer resets the stream, the context survives.
	checkBadBlockV2(t, "colon name", "0001 0007 3a6d6574686f64 0003 474554", 7)
	// A count no 16-bit block can hold in the limit ends the session.
	c := newV2BlockCompressor(t)
	_, _, err := newHeaderDecoderVersion(Version2, 64).decode(c.block(unhex(t, "ffff")), 1)
	var sess *SessionError
	if !errors.As(err, &sess) || sess.RstStatus != RstFrameTooLarge {
		t.Fatalf("huge count: err = %v, want session error with FRAME_TOO_LARGE", err)
	}
}

// checkBadBlockV2 decodes raw (hex) as stream id's block in a fresh v2
// context: RST_STREAM PROTOCOL_ERROR for the stream, and the context
// survives (the next block decodes).
func checkBadBlockV2(t *testing.T, what, raw string, id uint32) {
	t.Helper()
	c := newV2BlockCompressor(t)
	dec := newHeaderDecoderVersion(Version2, 0)
	_, _, err := dec.decode(c.block(unhex(t, raw)), id)
	var se *StreamError
	if !errors.As(err, &se) || se.Stream != id || se.Status != RstProtocolError {
		t.Fatalf("%s: err = %v, want stream %d PROTOCOL_ERROR", what, err, id)
	}
	if h, _, err := dec.decode(c.block(unhex(t, "0001 0001 61 0001 62")), id+2); err != nil || h.Get("a") != "b" {
		t.Fatalf("%s: next block: %v %v", what, h, err)
	}
}

// v2BlockCompressor compresses raw blocks in one v2 context, SYNC_FLUSHed.
type v2BlockCompressor struct {
	buf bytes.Buffer
	zw  *zlib.Writer
}

func newV2BlockCompressor(t testing.TB) *v2BlockCompressor {
	c := &v2BlockCompressor{}
	var err error
	if c.zw, err = zlib.NewWriterLevelDict(&c.buf, zlib.DefaultCompression, headerDictionaryV2); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *v2BlockCompressor) block(raw []byte) []byte {
	c.buf.Reset()
	c.zw.Write(raw)
	c.zw.Flush()
	return append([]byte(nil), c.buf.Bytes()...)
}

func TestFrameReadV2Quirks(t *testing.T) {
	// node-spdy writes SPDY/3's 8-byte GOAWAY in v2 too.
	f, err := NewFramerVersion(Version2, nil, bytes.NewReader(unhex(t, "8002 0007 00 000008 00000003 00000000")), 0).ReadFrame()
	if err != nil || !reflect.DeepEqual(f, &GoAwayFrame{LastGoodStream: 3}) {
		t.Fatalf("8-byte GOAWAY: %#v, %v", f, err)
	}
	// WINDOW_UPDATE is not in draft 2, but node-spdy sends it with
	// version 2: readable, and writable for Config.SPDY2StreamWindows.
	f, err = NewFramerVersion(Version2, nil, bytes.NewReader(unhex(t, "8002 0009 00 000008 00000001 00001000")), 0).ReadFrame()
	if err != nil || !reflect.DeepEqual(f, &WindowUpdateFrame{Stream: 1, Delta: 0x1000}) {
		t.Fatalf("WINDOW_UPDATE: %v, %v", f, err)
	}
	var buf bytes.Buffer
	w := NewFramerVersion(Version2, &buf, nil, 0)
	if err := w.WriteFrame(&WindowUpdateFrame{Stream: 1, Delta: 0x1000}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if want := unhex(t, "8002 0009 00 000008 00000001 00001000"); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("v2 WINDOW_UPDATE %x, want %x", buf.Bytes(), want)
	}
	if err := NewFramer(&buf, nil, 0).WriteFrame(&NoopFrame{}); err == nil {
		t.Fatal("wrote a v3 NOOP")
	}
	// Type 5 in SPDY/3 and type 10 in SPDY/2 are unknown types, ignored.
	for _, c := range []struct {
		v    uint16
		wire string
	}{{Version, "8003 0005 00 000000"}, {Version2, "8002 000a 00 000002 0001"}} {
		f, err := NewFramerVersion(c.v, nil, bytes.NewReader(unhex(t, c.wire)), 0).ReadFrame()
		if _, ok := f.(*UnknownFrame); !ok || err != nil {
			t.Fatalf("version %d %s: %#v, %v", c.v, c.wire, f, err)
		}
	}
	// node-spdy puts its 3-bit priority in the top bits; v2 reads the top two.
	c := newV2BlockCompressor(t)
	block := c.block(unhex(t, "0000"))
	wire := append(unhex(t, "8002 0001 01"), 0, 0, byte(10+len(block)))
	wire = append(wire, unhex(t, "00000001 00000000 a0 00")...)
	f, err = NewFramerVersion(Version2, nil, bytes.NewReader(append(wire, block...)), 0).ReadFrame()
	if err != nil || f.(*SynStreamFrame).Priority != 4 {
		t.Fatalf("priority byte a0: %v, %v", f, err)
	}
}

// Without flow control the only bound on a stream's unread data is
// MaxUnreadPerStream: past it the stream is reset, the session lives on.
func TestUnreadCapResetsStreamV2(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, 2<<20))
	})
	cfg := Config{Version: ProtoSPDY2}
	p := newPair(t, cfg, &ClientConfig{Config: Config{Version: ProtoSPDY2, MaxUnreadPerStream: 256 << 10}}, h)
	resp, err := p.get(context.Background(), "/big")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "client resets the overfull stream", func() bool { return p.cc.Stats().FramesSent["RST_STREAM"] == 1 })
	_, err = io.ReadAll(resp.Body)
	var se *StreamError
	if !errors.As(err, &se) || se.Status != RstFlowControlError {
		t.Fatalf("reading the reset body: %v, want FLOW_CONTROL_ERROR", err)
	}
	resp.Body.Close()
	if _, err := p.cc.Ping(context.Background()); err != nil {
		t.Fatalf("session after the reset: %v", err)
	}
}

// A v2 peer's SETTINGS_INITIAL_WINDOW_SIZE and a delta-0 WINDOW_UPDATE
// change nothing: a zero window does not stall our sends. (Under the
// default SPDY2WindowsAuto a window setting alone never limits our sends,
// and a WINDOW_UPDATE that reopens nothing is no sign of windows.)
func TestPeerWindowsIgnoredV2(t *testing.T) {
	body := randomBytes(300<<10, 3)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	p := newRawClientV2(t, h)

	// Window 0 on SPDY/3 would stall every byte; a delta-0 WINDOW_UPDATE
	// would be a FLOW_CONTROL_ERROR.
	p.send(&SettingsFrame{Entries: []Setting{{ID: SettingInitialWindowSize, Value: 0}}})
	p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	p.sendRaw(unhex(t, "8002 0009 00 000008 00000001 00000000"))
	var got []byte
	for {
		f := p.next()
		switch f := f.(type) {
		case *DataFrame:
			got = append(got, f.Data...)
			if f.Flags&FlagFin != 0 {
				if !bytes.Equal(got, body) {
					t.Fatalf("got %d bytes, want %d", len(got), len(body))
				}
				return
			}
		case *RstStreamFrame, *GoAwayFrame:
			t.Fatalf("server answered %v", f)
		}
	}
}

// Version errors: a SPDY/3 SYN_STREAM to a v2 server is refused with
// UNSUPPORTED_VERSION and the v2 session carries on.
func TestV3SynStreamToV2ServerRefused(t *testing.T) {
	p := newRawClientV2(t, http.NotFoundHandler())
	var v3 bytes.Buffer
	w := NewFramer(&v3, nil, 0)
	w.WriteFrame(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	w.Flush()
	p.sendRaw(v3.Bytes())
	p.expectRst(1, RstUnsupportedVersion)
	p.send(&NoopFrame{})
	p.expectAlive(1)
	if err := (&Config{Version: "spdy/1"}).validate(); err == nil || !errors.As(err, new(*ConfigError)) {
		t.Fatalf("Config.Version spdy/1: %v", err)
	}
}

// Config.SPDY2StreamWindows (node-spdy's spdy/2): SPDY/3 stream windows
// with version 2 on the wire; a slowly read body arrives only because the
// reader's WINDOW_UPDATEs reopen the sender's window.
func TestSPDY2StreamWindows(t *testing.T) {
	body := randomBytes(400<<10, 5)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	cfg := Config{Version: ProtoSPDY2, SPDY2StreamWindows: SPDY2WindowsOn}
	p := newPair(t, cfg, &ClientConfig{Config: cfg}, h)
	resp, err := p.get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readSlowly(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body: %d bytes, %v", len(got), err)
	}
	// 400 KiB through a 64 KiB window needs at least 5 reopenings.
	if n := p.cc.Stats().FramesSent["WINDOW_UPDATE"]; n < 5 {
		t.Fatalf("client sent %d WINDOW_UPDATEs, want >= 5", n)
	}
}

// Draft 2 names a pushed resource by its full URL in "url"; node-spdy (and
// our server) send scheme, host and a path instead. Both are pushes.
func TestPushURLForms(t *testing.T) {
	cases := []struct {
		h    Header
		want string
	}{
		{Header{":path": {"https://example.test/a.css"}}, "https://example.test/a.css"},
		{Header{":scheme": {"https"}, ":host": {"example.test"}, ":path": {"/a.css"}}, "https://example.test/a.css"},
		{Header{":path": {"/a.css"}}, ""},
		{Header{":path": {"https:///a.css"}}, ""},
	}
	for _, c := range cases {
		got, ok := pushURL(c.h)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("pushURL(%v) = %q, %v; want %q", c.h, got, ok, c.want)
		}
	}
}
