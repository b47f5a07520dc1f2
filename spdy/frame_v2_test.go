package spdy

import (
	"bytes"
	"compress/zlib"
	"errors"
	"hash/adler32"
	"io"
	"reflect"
	"testing"
)

func TestDictionaryV2IsTheDrafts(t *testing.T) {
	// 907 bytes with the terminating NUL; 0xdfa251b2 is the FDICT id that
	// node-spdy's zlib writes after 38 ea in every v2 header block
	// (v2NodeBlock1 below).
	if len(headerDictionaryV2) != 907 {
		t.Fatalf("v2 dictionary has %d bytes, want 907", len(headerDictionaryV2))
	}
	if id := adler32.Checksum(headerDictionaryV2); id != 0xdfa251b2 {
		t.Fatalf("v2 dictionary adler32 %#08x, want 0xdfa251b2", id)
	}
	if !bytes.HasPrefix(headerDictionaryV2, []byte("optionsgethead")) || !bytes.HasSuffix(headerDictionaryV2, []byte("statusversionurl\x00")) {
		t.Fatal("v2 dictionary does not start with optionsgethead / end with statusversionurl NUL")
	}
}

// Exact wire bytes of every SPDY/2 frame without a header block, written
// and read back (read is what the frame reads back as, when it differs).
func TestFrameVectorsV2(t *testing.T) {
	cases := []struct {
		name  string
		frame Frame
		wire  string
		read  Frame
	}{
		{"data", &DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("hi")}, "00000001 01 000002 6869", nil},
		{"rst", &RstStreamFrame{Stream: 3, Status: RstCancel}, "8002 0003 00 000008 00000003 00000005", nil},
		{"rst flow control", &RstStreamFrame{Stream: 3, Status: RstFlowControlError}, "8002 0003 00 000008 00000003 00000007", nil},
		// Codes after 7 are SPDY/3's; a v2 peer gets PROTOCOL_ERROR.
		{"rst v3-only status", &RstStreamFrame{Stream: 5, Status: RstFrameTooLarge}, "8002 0003 00 000008 00000005 00000001",
			&RstStreamFrame{Stream: 5, Status: RstProtocolError}},
		// Draft 2: 24-bit id little-endian, then the flags byte.
		{"settings", &SettingsFrame{Entries: []Setting{
			{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist},
			{ID: SettingRoundTripTime, Value: 0x010203},
		}}, "8002 0004 00 000014 00000002 03000000 00010203 04000001 00000064", &SettingsFrame{Entries: []Setting{
			{ID: SettingRoundTripTime, Value: 0x010203},
			{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist},
		}}},
		{"settings wide id", &SettingsFrame{Flags: FlagSettingsClear, Entries: []Setting{{ID: 0x0a0b0c, Value: 1}}},
			"8002 0004 01 00000c 00000001 0c0b0a00 00000001", nil},
		{"noop", &NoopFrame{}, "8002 0005 00 000000", nil},
		{"ping", &PingFrame{ID: 7}, "8002 0006 00 000004 00000007", nil},
		// No status in draft 2's GOAWAY.
		{"goaway", &GoAwayFrame{LastGoodStream: 9, Status: GoAwayProtocolError}, "8002 0007 00 000004 00000009",
			&GoAwayFrame{LastGoodStream: 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			fr := NewFramerVersion(Version2, &buf, nil, 0)
			if err := fr.WriteFrame(c.frame); err != nil {
				t.Fatal(err)
			}
			fr.Flush()
			want := unhex(t, c.wire)
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("wire\n got %x\nwant %x", buf.Bytes(), want)
			}
			got, err := NewFramerVersion(Version2, nil, bytes.NewReader(want), 0).ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			wantFrame := c.read
			if wantFrame == nil {
				wantFrame = c.frame
			}
			if !reflect.DeepEqual(got, wantFrame) {
				t.Fatalf("read back %#v, want %#v", got, wantFrame)
			}
			if got.String() == "" {
				t.Fatal("empty String()")
			}
		})
	}
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

func TestHeaderBlockRoundTripV2(t *testing.T) {
	enc := newHeaderEncoderVersion(Version2)
	dec := newHeaderDecoderVersion(Version2, 0)
	blocks := []Header{
		{":method": {"GET"}, ":path": {"/"}, ":version": {"HTTP/1.1"}, ":host": {"example.com"}, ":scheme": {"https"}, "accept": {"*/*"}},
		{":status": {"404 Not Found"}, ":version": {"HTTP/1.1"}, "set-cookie": {"a=1", "b=2"}},
		{"x-big": {string(bytes.Repeat([]byte("v"), 60000))}},
	}
	for i, h := range blocks {
		wire, sz, err := enc.encode(nil, h)
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		got, gsz, err := dec.decode(wire, 1)
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, h) || gsz != sz {
			t.Fatalf("block %d: got %v %+v, want %v %+v", i, got, gsz, h, sz)
		}
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
	c := newV2BlockCompressor(t)
	dec := newHeaderDecoderVersion(Version2, 0)
	_, _, err := dec.decode(c.block(unhex(t, "0001 0007 3a6d6574686f64 0003 474554")), 7)
	var se *StreamError
	if !errors.As(err, &se) || se.Stream != 7 || se.Status != RstProtocolError {
		t.Fatalf("colon name: err = %v, want stream 7 PROTOCOL_ERROR", err)
	}
	if h, _, err := dec.decode(c.block(unhex(t, "0001 0001 61 0001 62")), 9); err != nil || h.Get("a") != "b" {
		t.Fatalf("next block: %v %v", h, err)
	}
	// A count no 16-bit block can hold in the limit ends the session.
	c = newV2BlockCompressor(t)
	_, _, err = newHeaderDecoderVersion(Version2, 64).decode(c.block(unhex(t, "ffff")), 1)
	var sess *SessionError
	if !errors.As(err, &sess) || sess.RstStatus != RstFrameTooLarge {
		t.Fatalf("huge count: err = %v, want session error with FRAME_TOO_LARGE", err)
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

// Frames a SPDY/2 framer must refuse: the session's GOAWAY (or, for a
// SYN_STREAM of another version, RST UNSUPPORTED_VERSION; other control
// frames of another version are ignored, TestOtherVersionIgnoredV2).
func TestFrameDecodeErrorsV2(t *testing.T) {
	cases := []struct {
		name   string
		wire   string
		stream uint32 // non-zero: a *StreamError with UNSUPPORTED_VERSION for it
	}{
		{"v3 syn_stream", "8003 0001 00 00000a 00000005 00000000 0000", 5},
		{"syn_reply without unused bytes", "8002 0002 00 000005 00000001 00", 0},
		{"headers without unused bytes", "8002 0008 00 000004 00000001", 0},
		{"goaway 6 bytes", "8002 0007 00 000006 00000001 0000", 0},
		{"noop with payload", "8002 0005 00 000001 00", 0},
		{"settings count mismatch", "8002 0004 00 00000c 00000002 04000000 00000064", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewFramerVersion(Version2, nil, bytes.NewReader(unhex(t, c.wire)), 0).ReadFrame()
			if c.stream != 0 {
				var se *StreamError
				if !errors.As(err, &se) || se.Stream != c.stream || se.Status != RstUnsupportedVersion {
					t.Fatalf("err = %v, want stream %d UNSUPPORTED_VERSION", err, c.stream)
				}
				return
			}
			var se *SessionError
			if !errors.As(err, &se) || se.Status != GoAwayProtocolError {
				t.Fatalf("err = %v, want *SessionError", err)
			}
		})
	}
}
