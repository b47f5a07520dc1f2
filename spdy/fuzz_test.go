package spdy

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// seedFrames are real frames as this framer writes them.
func seedFrames(t testing.TB) [][]byte {
	var buf bytes.Buffer
	w := NewFramer(&buf, nil, 0)
	frames := []Frame{
		&SynStreamFrame{Stream: 1, Priority: 3, Flags: FlagFin, Headers: getHeaders("/index.html")},
		&SynReplyFrame{Stream: 1, Headers: Header{":status": {"200 OK"}, ":version": {"HTTP/1.1"}, "content-type": {"text/html"}}},
		&DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("<html></html>")},
		&SynStreamFrame{Stream: 2, AssociatedTo: 1, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {"/s.css"}, ":status": {"200"}, ":version": {"HTTP/1.1"}}},
		&HeadersFrame{Stream: 1, Headers: Header{"x": {"1", "2"}}},
		&RstStreamFrame{Stream: 3, Status: RstCancel},
		&SettingsFrame{Flags: FlagSettingsClear, Entries: []Setting{{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist}, {ID: SettingInitialWindowSize, Value: 1 << 20}}},
		&PingFrame{ID: 1},
		&GoAwayFrame{LastGoodStream: 1},
		&WindowUpdateFrame{Stream: 0, Delta: 1000},
		&CredentialFrame{Slot: 1, Proof: []byte{1}, Certificates: [][]byte{{2, 3}}},
	}
	seeds := writeSeeds(t, w, &buf, frames)
	// buf is never reset, so seed i holds frames 0..i: conversations that
	// share one compression context, as on a real connection.
	b1, _ := hex.DecodeString(cZlibBlock1)
	b2, _ := hex.DecodeString(cZlibBlock2)
	seeds = append(seeds, append(synStreamWire(nil, 1, 0, 2, FlagFin, b1), synStreamWire(nil, 3, 0, 7, FlagFin, b2)...))
	return seeds
}

// writeSeeds writes frames with w into buf, never reset: seed i holds
// frames 0..i.
func writeSeeds(t testing.TB, w *Framer, buf *bytes.Buffer, frames []Frame) [][]byte {
	var seeds [][]byte
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		seeds = append(seeds, append([]byte(nil), buf.Bytes()...))
	}
	return seeds
}

// FuzzFrameDecoder feeds arbitrary bytes to the framer: it must never panic,
// never return a frame together with a session error, and frames it accepts
// must survive a write/read round trip.
func FuzzFrameDecoder(f *testing.F) {
	for _, s := range seedFrames(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readFuzzedFrames(data, Version, func(fr Frame) {
			switch fr := fr.(type) {
			case *SynStreamFrame, *SynReplyFrame, *HeadersFrame, *UnknownFrame:
				// header frames depend on the compression context; unknown
				// frames are not re-encodable by design
			case *SettingsFrame:
				for _, e := range fr.Entries {
					if e.ID > 0xffffff {
						t.Fatalf("setting id %d exceeds 24 bits", e.ID)
					}
				}
			default:
				roundTrip(t, Version, fr)
			}
		})
	})
}

// FuzzFrameDecoderV2 is FuzzFrameDecoder for a SPDY/2 framer: no panic, and
// accepted frames survive a v2 round trip.
func FuzzFrameDecoderV2(f *testing.F) {
	for _, s := range seedFramesV2(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readFuzzedFrames(data, Version2, func(fr Frame) {
			switch fr := fr.(type) {
			case *SynStreamFrame:
				if fr.Priority > 6 || fr.Priority&1 != 0 || fr.Slot != 0 {
					t.Fatalf("v2 SYN_STREAM read as priority %d slot %d", fr.Priority, fr.Slot)
				}
			case *SynReplyFrame, *HeadersFrame, *UnknownFrame:
				// context-dependent or not re-encodable
			case *WindowUpdateFrame:
				if fr.Delta != 0 { // delta 0 is passed on for the session to reject
					roundTrip(t, Version2, fr)
				}
			case *RstStreamFrame:
				if fr.Status > RstFlowControlError || fr.Status == 0 {
					return // v2 sends codes 1-7 only (others become PROTOCOL_ERROR)
				}
				roundTrip(t, Version2, fr)
			case *GoAwayFrame:
				fr.Status = GoAwayOK // v2 sends no status
				roundTrip(t, Version2, fr)
			default:
				roundTrip(t, Version2, fr)
			}
		})
	})
}

// readFuzzedFrames reads up to 64 frames of data in a wire version and
// hands every frame read without error to check; a stream error skips the
// frame, any other error ends the read.
func readFuzzedFrames(data []byte, version uint16, check func(Frame)) {
	r := NewFramerVersion(version, nil, bytes.NewReader(data), 16<<10)
	r.MaxReadFrameSize = 64 << 10
	for i := 0; i < 64; i++ {
		fr, err := r.ReadFrame()
		if fr != nil {
			_ = fr.String()
		}
		if err != nil {
			var se *StreamError
			if errors.As(err, &se) {
				continue
			}
			return
		}
		check(fr)
	}
}

// roundTrip writes fr in a wire version and reads it back unchanged
// (SETTINGS entries come back in id order).
func roundTrip(t *testing.T, version uint16, fr Frame) {
	var buf bytes.Buffer
	w := NewFramerVersion(version, &buf, nil, 0)
	if err := w.WriteFrame(fr); err != nil {
		if wu, ok := fr.(*WindowUpdateFrame); ok && wu.Delta == 0 {
			return // the reader passes delta 0 on for the session to reject
		}
		t.Fatalf("re-encoding %v: %v", fr, err)
	}
	w.Flush()
	back, err := NewFramerVersion(version, nil, &buf, 0).ReadFrame()
	if err != nil {
		t.Fatalf("re-reading %v: %v", fr, err)
	}
	if d, ok := back.(*DataFrame); ok {
		d.Data = append([]byte{}, d.Data...)
		fr.(*DataFrame).Data = append([]byte{}, fr.(*DataFrame).Data...)
	}
	if s, ok := fr.(*SettingsFrame); ok { // written in id order
		s.Entries = back.(*SettingsFrame).Entries[:len(s.Entries):len(s.Entries)]
		if len(back.(*SettingsFrame).Entries) != len(s.Entries) {
			t.Fatalf("settings round trip %v -> %v", fr, back)
		}
	}
	if !reflect.DeepEqual(back, fr) {
		t.Fatalf("round trip %#v -> %#v", fr, back)
	}
}

// FuzzHeaderBlockDecoder checks the header codec two ways: arbitrary bytes
// as a compressed block (must not panic or exceed the cap), and arbitrary
// bytes as an uncompressed block compressed by a peer; whatever decodes
// cleanly must re-encode and decode to the same header.
func FuzzHeaderBlockDecoder(f *testing.F) {
	b1, _ := hex.DecodeString(cZlibBlock1)
	f.Add(b1)
	f.Add(rawBlock(":method", "GET", "cookie", "a\x00b"))
	f.Add(rawBlock("A", "b"))
	f.Add(rawBlock("a", "\x00"))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzHeaderBlock(t, Version, data, newRawCompressor().block(data))
	})
}

// FuzzHeaderBlockDecoderV2 is FuzzHeaderBlockDecoder for SPDY/2 blocks.
func FuzzHeaderBlockDecoderV2(f *testing.F) {
	b1, _ := hex.DecodeString(v2NodeBlock1)
	f.Add(b1)
	f.Add(rawBlockV2("method", "GET", "url", "/", "cookie", "a\x00b"))
	f.Add(rawBlockV2(":method", "GET"))
	f.Add(rawBlockV2("host", "a", "A", "b"))
	f.Add([]byte{0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzHeaderBlock(t, Version2, data, newV2BlockCompressor(t).block(data))
	})
}

// fuzzHeaderBlock decodes data as a compressed block of a wire version
// within a cap, then compressed (data compressed by the peer): what decodes
// must re-encode and decode to the same header.
func fuzzHeaderBlock(t *testing.T, version uint16, data, compressed []byte) {
	const max = 4096
	d := newHeaderDecoderVersion(version, max)
	if h, sz, err := d.decode(data, 1); err == nil && sz.Raw > max {
		t.Fatalf("decoded %d bytes past the %d cap: %v", sz.Raw, max, h)
	}
	h, _, err := newHeaderDecoderVersion(version, max).decode(compressed, 1)
	if err != nil {
		return
	}
	wire, _, err := newHeaderEncoderVersion(version).encode(nil, h)
	if err != nil {
		t.Fatalf("decoded block %v does not re-encode: %v", h, err)
	}
	back, _, err := newHeaderDecoderVersion(version, 0).decode(wire, 1)
	if err != nil {
		t.Fatalf("re-decoding: %v", err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Fatalf("round trip %v -> %v", h, back)
	}
}

// FuzzCompressedData feeds a stream's FLAG_DATA_COMPRESSED path: data is
// cut into frames at the positions its first byte picks, each frame
// inflated in turn under a small budget. It must never panic, never return
// more than the budget, and a compressed stream built from data must come
// back byte for byte.
func FuzzCompressedData(f *testing.F) {
	var c compressData
	f.Add(c.frame([]byte("hello, compressed spdy")))
	f.Add(bytes.Repeat([]byte{0}, 1000))
	f.Add([]byte{0x78, 0x9c, 0, 0, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		const budget = 64 << 10
		s := &session{cfg: Config{MaxInflatedBuffer: budget}, streamRecvIW: DefaultInitialWindowSize}
		st := &stream{s: s, id: 1}
		step := 1
		if len(data) > 0 {
			step = int(data[0]) + 1
		}
		for off := 0; off < len(data); off += step {
			out, err := st.inflateLocked(data[off:min(off+step, len(data))])
			if err != nil {
				break
			}
			if len(out) > budget {
				t.Fatalf("inflated %d bytes past the %d budget", len(out), budget)
			}
		}
		// What a compliant peer sends inflates back exactly.
		var peer compressData
		st = &stream{s: s, id: 3}
		var got []byte
		for off := 0; off < len(data); off += step {
			chunk := data[off:min(off+step, len(data))]
			out, err := st.inflateLocked(peer.frame(chunk))
			if err != nil {
				t.Fatalf("inflating a compliant frame: %v", err)
			}
			got = append(got, out...)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("round trip lost data: %d bytes in, %d out", len(data), len(got))
		}
	})
}

// seedFramesV2 are real SPDY/2 frames as this framer writes them, growing
// conversations in one compression context, plus node-spdy's blocks.
func seedFramesV2(t testing.TB) [][]byte {
	var buf bytes.Buffer
	w := NewFramerVersion(Version2, &buf, nil, 0)
	frames := []Frame{
		&SynStreamFrame{Stream: 1, Priority: 2, Flags: FlagFin, Headers: getHeaders("/index.html")},
		&SynReplyFrame{Stream: 1, Headers: Header{":status": {"200 OK"}, ":version": {"HTTP/1.1"}, "content-type": {"text/html"}}},
		&DataFrame{Stream: 1, Flags: FlagFin, Data: []byte("<html></html>")},
		&SynStreamFrame{Stream: 2, AssociatedTo: 1, Flags: FlagUnidirectional, Headers: Header{":scheme": {"https"}, ":host": {"a"}, ":path": {"/s.css"}, ":status": {"200"}, ":version": {"HTTP/1.1"}}},
		&HeadersFrame{Stream: 1, Headers: Header{"x": {"1", "2"}}},
		&RstStreamFrame{Stream: 3, Status: RstCancel},
		&SettingsFrame{Entries: []Setting{{ID: SettingMaxConcurrentStreams, Value: 100, Flags: FlagSettingPersist}}},
		&NoopFrame{},
		&PingFrame{ID: 1},
		&GoAwayFrame{LastGoodStream: 1},
	}
	seeds := writeSeeds(t, w, &buf, frames)
	b1, _ := hex.DecodeString(v2NodeBlock1)
	b2, _ := hex.DecodeString(v2NodeBlock2)
	node := append([]byte{0x80, 2, 0, 1, 1, 0, 0, byte(10 + len(b1)), 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0}, b1...)
	node = append(node, 0x80, 2, 0, 2, 0, 0, 0, byte(6+len(b2)), 0, 0, 0, 1, 0, 0)
	seeds = append(seeds, append(node, b2...))
	seeds = append(seeds, []byte{0x80, 2, 0, 7, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 0}) // node's 8-byte GOAWAY
	return seeds
}

func rawBlockV2(pairs ...string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(pairs)/2))
	for _, s := range pairs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	return b
}
