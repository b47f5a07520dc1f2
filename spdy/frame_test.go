package spdy

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/adler32"
	"io"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHeaderDictionaries: each wire version's zlib dictionary is its
// draft's, byte for byte.
func TestHeaderDictionaries(t *testing.T) {
	dicts := map[uint16]struct {
		dict           []byte
		n              int
		id             uint32
		prefix, suffix string
	}{
		// 0xe3c6a7c2 is the FDICT id in every SPDY/3 header block (Chrome,
		// spdylay, node-spdy all emit 38 ea e3 c6 a7 c2 ...).
		Version: {headerDictionary, 1423, 0xe3c6a7c2, "\x00\x00\x00\x07options", ",enq=0."},
		// 907 bytes with the terminating NUL; 0xdfa251b2 is the FDICT id that
		// node-spdy's zlib writes after 38 ea in every v2 header block
		// (v2NodeBlock1 in draft2_test.go).
		Version2: {headerDictionaryV2, 907, 0xdfa251b2, "optionsgethead", "statusversionurl\x00"},
	}
	for _, v := range Versions {
		t.Run(subtestName(v.Proto), func(t *testing.T) {
			d := dicts[v.Wire]
			if len(d.dict) != d.n {
				t.Fatalf("dictionary has %d bytes, the draft's has %d", len(d.dict), d.n)
			}
			if id := adler32.Checksum(d.dict); id != d.id {
				t.Fatalf("dictionary adler32 %#08x, want %#08x", id, d.id)
			}
			if !bytes.HasPrefix(d.dict, []byte(d.prefix)) || !bytes.HasSuffix(d.dict, []byte(d.suffix)) {
				t.Fatalf("dictionary does not start with %q / end with %q", d.prefix, d.suffix)
			}
		})
	}
}

// vector is a frame's exact wire bytes in one wire version (hex, spaces
// ignored) and what it reads back as when that differs from the frame; skip
// says why the version has no such frame.
type vector struct {
	wire string
	read Frame
	skip string
}

// Exact wire bytes of every frame without a header block, in each version:
// written and read back.
func TestFrameVectors(t *testing.T) {
	settingsA := &SettingsFrame{Entries: []Setting{
		{ID: SettingInitialWindowSize, Value: 1 << 20},
		{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist},
	}}
	settingsARead := &SettingsFrame{Entries: []Setting{settingsA.Entries[1], settingsA.Entries[0]}} // read back in id order
	settingsB := &SettingsFrame{Entries: []Setting{
		{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist},
		{ID: SettingRoundTripTime, Value: 0x010203},
	}}
	settingsBRead := &SettingsFrame{Entries: []Setting{settingsB.Entries[1], settingsB.Entries[0]}}
	cases := []struct {
		name   string
		frame  Frame
		v3, v2 vector
	}{
		// DATA frames carry no version.
		{"data", &DataFrame{Stream: 1, Data: []byte("hello")},
			vector{wire: "00000001 00 000005 68656c6c6f"}, vector{wire: "00000001 00 000005 68656c6c6f"}},
		{"data fin", &DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("hi")},
			vector{wire: "00000001 01 000002 6869"}, vector{wire: "00000001 01 000002 6869"}},
		{"data fin empty", &DataFrame{Stream: 0x7fffffff, Flags: FlagFin},
			vector{wire: "7fffffff 01 000000"}, vector{wire: "7fffffff 01 000000"}},
		{"rst", &RstStreamFrame{Stream: 3, Status: RstCancel},
			vector{wire: "8003 0003 00 000008 00000003 00000005"}, vector{wire: "8002 0003 00 000008 00000003 00000005"}},
		{"rst flow control", &RstStreamFrame{Stream: 3, Status: RstFlowControlError},
			vector{wire: "8003 0003 00 000008 00000003 00000007"}, vector{wire: "8002 0003 00 000008 00000003 00000007"}},
		// Codes after 7 are SPDY/3's; a v2 peer gets PROTOCOL_ERROR.
		{"rst v3-only status", &RstStreamFrame{Stream: 5, Status: RstFrameTooLarge},
			vector{wire: "8003 0003 00 000008 00000005 0000000b"},
			vector{wire: "8002 0003 00 000008 00000005 00000001", read: &RstStreamFrame{Stream: 5, Status: RstProtocolError}}},
		// SPDY/3: flags byte, then the 24-bit id big-endian; draft 2: the
		// 24-bit id little-endian, then the flags byte.
		{"settings", settingsA,
			vector{wire: "8003 0004 00 000014 00000002 01000004 00000064 00000007 00100000", read: settingsARead},
			vector{wire: "8002 0004 00 000014 00000002 04000001 00000064 07000000 00100000", read: settingsARead}},
		{"settings rtt", settingsB,
			vector{wire: "8003 0004 00 000014 00000002 00000003 00010203 01000004 00000064", read: settingsBRead},
			vector{wire: "8002 0004 00 000014 00000002 03000000 00010203 04000001 00000064", read: settingsBRead}},
		{"settings clear", &SettingsFrame{Flags: FlagSettingsClear, Entries: []Setting{}},
			vector{wire: "8003 0004 01 000004 00000000"}, vector{wire: "8002 0004 01 000004 00000000"}},
		{"settings wide id", &SettingsFrame{Flags: FlagSettingsClear, Entries: []Setting{{ID: 0x0a0b0c, Value: 1}}},
			vector{wire: "8003 0004 01 00000c 00000001 000a0b0c 00000001"}, vector{wire: "8002 0004 01 00000c 00000001 0c0b0a00 00000001"}},
		{"noop", &NoopFrame{},
			vector{skip: "NOOP is draft 2's; SPDY/3 removed it (writing one fails: TestFrameReadV2Quirks)"},
			vector{wire: "8002 0005 00 000000"}},
		{"ping", &PingFrame{ID: 0xdeadbeef},
			vector{wire: "8003 0006 00 000004 deadbeef"}, vector{wire: "8002 0006 00 000004 deadbeef"}},
		{"ping 7", &PingFrame{ID: 7},
			vector{wire: "8003 0006 00 000004 00000007"}, vector{wire: "8002 0006 00 000004 00000007"}},
		// No status in draft 2's GOAWAY.
		{"goaway", &GoAwayFrame{LastGoodStream: 9, Status: GoAwayProtocolError},
			vector{wire: "8003 0007 00 000008 00000009 00000001"},
			vector{wire: "8002 0007 00 000004 00000009", read: &GoAwayFrame{LastGoodStream: 9}}},
		// Draft 2 has no WINDOW_UPDATE; node-spdy's variant (and
		// Config.SPDY2StreamWindows) sends SPDY/3's with version 2.
		{"window update stream", &WindowUpdateFrame{Stream: 5, Delta: 65536},
			vector{wire: "8003 0009 00 000008 00000005 00010000"}, vector{wire: "8002 0009 00 000008 00000005 00010000"}},
		{"window update session", &WindowUpdateFrame{Stream: 0, Delta: 0x7fffffff},
			vector{wire: "8003 0009 00 000008 00000000 7fffffff"},
			vector{skip: "the session window (stream 0) is SPDY/3.1's; no draft 2 variant has one"}},
		{"credential", &CredentialFrame{Slot: 1, Proof: []byte{0xaa}, Certificates: [][]byte{{0xbb, 0xcc}}},
			vector{wire: "8003 000a 00 00000d 0001 00000001 aa 00000002 bbcc"},
			vector{skip: "CREDENTIAL is SPDY/3's; type 10 is unknown in draft 2"}},
	}
	for _, v := range Versions {
		t.Run(subtestName(v.Proto), func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					vec := c.v3
					if v.Wire == Version2 {
						vec = c.v2
					}
					if vec.skip != "" {
						t.Skip(vec.skip)
					}
					checkVector(t, v.Wire, c.frame, vec)
				})
			}
		})
	}
}

func checkVector(t *testing.T, version uint16, frame Frame, vec vector) {
	var buf bytes.Buffer
	fr := NewFramerVersion(version, &buf, nil, 0)
	if err := fr.WriteFrame(frame); err != nil {
		t.Fatal(err)
	}
	fr.Flush()
	want := unhex(t, vec.wire)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("wire\n got %x\nwant %x", buf.Bytes(), want)
	}
	got, err := NewFramerVersion(version, nil, bytes.NewReader(want), 0).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	wantFrame := vec.read
	if wantFrame == nil {
		wantFrame = frame
	}
	if d, ok := got.(*DataFrame); ok && len(d.Data) == 0 {
		d.Data = nil
	}
	if !reflect.DeepEqual(got, wantFrame) {
		t.Fatalf("read back %#v, want %#v", got, wantFrame)
	}
	if got.String() == "" {
		t.Fatal("empty String()")
	}
}

// Header blocks compressed by C zlib (Python's zlib module, window bits 11
// as Chrome used, SYNC_FLUSH after each block) with the spec dictionary:
// two consecutive blocks from one compression context.
const (
	cZlibBlock1 = "38eae3c6a7c202a5455076b2821608fcc014ad975a91080a5cbd647059c16e8548d1eeae2160d50589e0728b5b3f332f25b5420fe478b0ca626079990b2e54334a4a0a40699ec30a7b524794e79cf0f0c3c879ecc5052995c0b804000000ffff"
	cZlibBlock2 = "02e925df955cfac525952085c5c5643b9203ec4888096cf00cc99e686bc890646b84d3e100000000ffff"
)

func synStreamWire(t *testing.T, id, assoc uint32, pri uint8, flags uint8, block []byte) []byte {
	var b []byte
	b = append(b, 0x80, 0x03, 0x00, 0x01, flags)
	n := 10 + len(block)
	b = append(b, byte(n>>16), byte(n>>8), byte(n))
	b = binary.BigEndian.AppendUint32(b, id)
	b = binary.BigEndian.AppendUint32(b, assoc)
	b = append(b, pri<<5, 0)
	return append(b, block...)
}

func TestDecodeHeaderBlocksFromCZlib(t *testing.T) {
	var wire []byte
	wire = append(wire, synStreamWire(t, 1, 0, 2, FlagFin, unhex(t, cZlibBlock1))...)
	wire = append(wire, synStreamWire(t, 3, 0, 7, FlagFin, unhex(t, cZlibBlock2))...)
	fr := NewFramer(nil, bytes.NewReader(wire), 0)
	f1, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	s1 := f1.(*SynStreamFrame)
	if s1.Stream != 1 || s1.Priority != 2 || s1.Flags != FlagFin {
		t.Fatalf("frame 1: %v", s1)
	}
	want1 := Header{":host": {"www.example.com"}, ":method": {"GET"}, ":path": {"/index.html"}, ":scheme": {"https"},
		":version": {"HTTP/1.1"}, "accept": {"text/html"}, "user-agent": {"spdylab"}}
	if !reflect.DeepEqual(s1.Headers, want1) {
		t.Fatalf("block 1: %v", s1.Headers)
	}
	f2, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	s2 := f2.(*SynStreamFrame)
	if s2.Stream != 3 || s2.Priority != 7 {
		t.Fatalf("frame 2: %v", s2)
	}
	if got := s2.Headers["cookie"]; !reflect.DeepEqual(got, []string{"a=1", "b=2"}) {
		t.Fatalf("NUL-joined cookie decoded as %q", got)
	}
	if s2.Headers.Get(":path") != "/style.css" || s2.Size.Compressed != len(unhex(t, cZlibBlock2)) {
		t.Fatalf("block 2: %v %+v", s2.Headers, s2.Size)
	}
	if !strings.Contains(s2.String(), "SYN_STREAM stream=3 pri=7 flags=FIN") || !strings.Contains(s2.String(), "cookie") {
		t.Fatalf("String() = %q", s2.String())
	}
}

func TestHeaderFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewFramer(&buf, nil, 0)
	frames := []Frame{
		&SynStreamFrame{Stream: 1, Priority: 3, Flags: FlagFin, Headers: Header{":method": {"GET"}, ":path": {"/"}, "cookie": {"a=1", "b=2"}, "empty": {""}}},
		&SynStreamFrame{Stream: 2, AssociatedTo: 1, Priority: 0, Flags: FlagUnidirectional, Slot: 0, Headers: Header{":path": {"/p"}}},
		&SynReplyFrame{Stream: 1, Headers: Header{":status": {"200 OK"}, ":version": {"HTTP/1.1"}}},
		&HeadersFrame{Stream: 1, Flags: FlagFin, Headers: Header{"x-trailer": {"v"}}},
		&SynReplyFrame{Stream: 3, Headers: Header{}},
	}
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	// Every compressed block starts a zlib stream with the spec dictionary id
	// in the first frame only.
	raw := buf.Bytes()
	if !bytes.Equal(raw[18+2:18+6], []byte{0xe3, 0xc6, 0xa7, 0xc2}) {
		t.Fatalf("first header block does not name dictionary e3c6a7c2: % x", raw[18:24])
	}
	r := NewFramer(nil, bytes.NewReader(raw), 0)
	for i, want := range frames {
		got, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("frame %d:\n got %#v\nwant %#v", i, got, want)
		}
	}
	if _, err := r.ReadFrame(); err != io.EOF {
		t.Fatalf("after last frame: %v", err)
	}
}

func TestUnknownControlFrameIgnored(t *testing.T) {
	wire := unhex(t, "8003 00ff 00 000003 010203  8003 0006 00 000004 00000001")
	fr := NewFramer(nil, bytes.NewReader(wire), 0)
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := f.(*UnknownFrame); !ok || u.FrameType != 0xff || u.Length != 3 {
		t.Fatalf("got %#v", f)
	}
	f, err = fr.ReadFrame()
	if err != nil || f.(*PingFrame).ID != 1 {
		t.Fatalf("frame after unknown: %v %v", f, err)
	}
}

// Stream-level problems the framer reports without ending the session. The
// wire bytes are one wire version's: each case runs for the versions that
// speak it.
func TestFrameStreamErrors(t *testing.T) {
	cases := []struct {
		name    string
		version uint16
		wire    string
		stream  uint32
		status  RstStatus // 0: no error, the frame is returned
	}{
		// 2.6.3 / 2.4.2: a SYN_STREAM of another version is refused; its
		// block belongs to another compression context, ours is intact.
		{"bad version syn_stream", Version, "8002 0001 00 00000a 00000005 00000000 0000", 5, RstUnsupportedVersion},
		{"v3 syn_stream", Version2, "8003 0001 00 00000a 00000005 00000000 0000", 5, RstUnsupportedVersion},
		// An undefined status still resets just that stream.
		{"rst status 0", Version, "8003 0003 00 000008 00000001 00000000", 1, 0},
	}
	forVersionCases(t, len(cases), func(i int) (string, uint16) { return cases[i].name, cases[i].version }, func(t *testing.T, i int) {
		c := cases[i]
		f, err := NewFramerVersion(c.version, nil, bytes.NewReader(unhex(t, c.wire)), 0).ReadFrame()
		if c.status == 0 {
			if err != nil || f.StreamID() != c.stream {
				t.Fatalf("got %v, %v", f, err)
			}
			return
		}
		var se *StreamError
		if !errors.As(err, &se) || se.Stream != c.stream || se.Status != c.status {
			t.Fatalf("err = %v, want stream %d %s", err, c.stream, c.status)
		}
	})
}

// Frames a framer must refuse with the session's GOAWAY PROTOCOL_ERROR (a
// SYN_STREAM of another version is a stream error, TestFrameStreamErrors;
// other control frames of another version are ignored on a v2 session,
// TestOtherVersionIgnoredV2). Each case runs for the versions whose wire
// version it is in.
func TestFrameDecodeErrors(t *testing.T) {
	cases := []struct {
		name      string
		version   uint16
		wire      string
		rstStream uint32
		rstStatus RstStatus
	}{
		{"bad version ping", Version, "8002 0006 00 000004 00000001", 0, 0},
		{"rst wrong length", Version, "8003 0003 00 000004 00000001", 0, 0},
		{"rst stream 0", Version, "8003 0003 00 000008 00000000 00000001", 0, 0},
		{"ping wrong length", Version, "8003 0006 00 000005 0000000100", 0, 0},
		{"goaway wrong length", Version, "8003 0007 00 000004 00000001", 0, 0},
		{"window update wrong length", Version, "8003 0009 00 000004 00000001", 0, 0},
		{"settings count mismatch", Version, "8003 0004 00 00000c 00000002 00000004 00000064", 0, 0},
		{"syn_stream short", Version, "8003 0001 00 000004 00000001", 0, 0},
		{"data on stream 0", Version, "00000000 00 000001 00", 0, 0},
		{"credential truncated", Version, "8003 000a 00 000006 0001 00000009", 0, 0},
		{"syn_reply without unused bytes", Version2, "8002 0002 00 000005 00000001 00", 0, 0},
		{"headers without unused bytes", Version2, "8002 0008 00 000004 00000001", 0, 0},
		{"goaway 6 bytes", Version2, "8002 0007 00 000006 00000001 0000", 0, 0},
		{"noop with payload", Version2, "8002 0005 00 000001 00", 0, 0},
		{"settings count mismatch", Version2, "8002 0004 00 00000c 00000002 04000000 00000064", 0, 0},
	}
	forVersionCases(t, len(cases), func(i int) (string, uint16) { return cases[i].name, cases[i].version }, func(t *testing.T, i int) {
		c := cases[i]
		_, err := NewFramerVersion(c.version, nil, bytes.NewReader(unhex(t, c.wire)), 0).ReadFrame()
		var se *SessionError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want *SessionError", err)
		}
		if se.Status != GoAwayProtocolError || se.RstStream != c.rstStream || se.RstStatus != c.rstStatus {
			t.Fatalf("got %+v", se)
		}
	})
}

// forVersionCases runs case i of n, named and in the wire version info
// gives, as a subtest of every entry of Versions: run for the versions with
// that wire version, skipped for the others.
func forVersionCases(t *testing.T, n int, info func(i int) (string, uint16), run func(t *testing.T, i int)) {
	for _, v := range Versions {
		t.Run(subtestName(v.Proto), func(t *testing.T) {
			for i := 0; i < n; i++ {
				name, wire := info(i)
				t.Run(name, func(t *testing.T) {
					if wire != v.Wire {
						t.Skipf("the case's bytes are wire version %d's (%s speaks %d)", wire, v.Proto, v.Wire)
					}
					run(t, i)
				})
			}
		})
	}
}

func TestOversizeFrames(t *testing.T) {
	big := make([]byte, 20000)
	var buf bytes.Buffer
	w := NewFramer(&buf, nil, 0)
	w.WriteFrame(&DataFrame{Stream: 7, Data: big})
	w.WriteFrame(&SynReplyFrame{Stream: 9, Headers: Header{"x": {string(randomBytes(0, 0)) + strings.Repeat("y", 0) + "z"}}})
	w.WriteFrame(&PingFrame{ID: 3})
	w.Flush()
	r := NewFramer(nil, bytes.NewReader(buf.Bytes()), 0)
	r.MaxReadFrameSize = 8192
	f, err := r.ReadFrame()
	var se *StreamError
	if !errors.As(err, &se) || se.Stream != 7 || se.Status != RstFrameTooLarge {
		t.Fatalf("oversize DATA: %v", err)
	}
	if f.(*DataFrame).skipped != len(big) {
		t.Fatalf("skipped %d", f.(*DataFrame).skipped)
	}
	// The reader stays aligned and the header context intact.
	if f, err = r.ReadFrame(); err != nil || f.(*SynReplyFrame).Headers.Get("x") != "z" {
		t.Fatalf("after oversize DATA: %v %v", f, err)
	}
	if f, err = r.ReadFrame(); err != nil || f.(*PingFrame).ID != 3 {
		t.Fatalf("after oversize DATA: %v %v", f, err)
	}

	// An oversize SYN_STREAM cannot be decompressed: FRAME_TOO_LARGE then GOAWAY.
	buf.Reset()
	w = NewFramer(&buf, nil, 0)
	w.WriteFrame(&SynStreamFrame{Stream: 11, Headers: Header{"cookie": {string(randomHex(30000))}}})
	w.Flush()
	r = NewFramer(nil, bytes.NewReader(buf.Bytes()), 0)
	r.MaxReadFrameSize = 8192
	_, err = r.ReadFrame()
	var sess *SessionError
	if !errors.As(err, &sess) || sess.RstStream != 11 || sess.RstStatus != RstFrameTooLarge {
		t.Fatalf("oversize SYN_STREAM: %v", err)
	}
}

func randomHex(n int) []byte {
	return []byte(hex.EncodeToString(randomBytes(n/2, 99)))
}

func TestWriteFrameRejectsBadInput(t *testing.T) {
	w := NewFramer(io.Discard, nil, 0)
	bad := []Frame{
		&DataFrame{Stream: 0},
		&RstStreamFrame{Stream: 1 << 31, Status: RstCancel},
		&SynStreamFrame{Stream: 1, Priority: 8, Headers: Header{}},
		&SynStreamFrame{Stream: 1, Headers: Header{"Upper": {"x"}}},
		&SynStreamFrame{Stream: 1, Headers: Header{"": {"x"}}},
		&SynReplyFrame{Stream: 1, Headers: Header{"x": {"a\x00"}}},
		&SynReplyFrame{Stream: 1, Headers: Header{"x": {"a", ""}}},
		&SynReplyFrame{Stream: 1, Headers: Header{"x": {}}},
		&WindowUpdateFrame{Stream: 1, Delta: 0},
		&WindowUpdateFrame{Stream: 1, Delta: 1 << 31},
	}
	for _, f := range bad {
		if err := w.WriteFrame(f); err == nil {
			t.Errorf("WriteFrame(%#v) succeeded", f)
		}
	}
	// A rejected header block must not disturb the compression context.
	var buf bytes.Buffer
	w = NewFramer(&buf, nil, 0)
	w.WriteFrame(&SynReplyFrame{Stream: 1, Headers: Header{"Bad": {"x"}}})
	w.WriteFrame(&SynReplyFrame{Stream: 1, Headers: Header{"good": {"x"}}})
	w.Flush()
	f, err := NewFramer(nil, &buf, 0).ReadFrame()
	if err != nil || f.(*SynReplyFrame).Headers.Get("good") != "x" {
		t.Fatalf("%v %v", f, err)
	}
}
