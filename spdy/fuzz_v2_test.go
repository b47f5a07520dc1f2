package spdy

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// seedFramesV2 are real SPDY/2 frames as this framer writes them, growing
// conversations in one compression context, plus node-spdy's blocks.
func seedFramesV2(t testing.TB) [][]byte {
	var seeds [][]byte
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
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		seeds = append(seeds, append([]byte(nil), buf.Bytes()...))
	}
	b1, _ := hex.DecodeString(v2NodeBlock1)
	b2, _ := hex.DecodeString(v2NodeBlock2)
	node := append([]byte{0x80, 2, 0, 1, 1, 0, 0, byte(10 + len(b1)), 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0}, b1...)
	node = append(node, 0x80, 2, 0, 2, 0, 0, 0, byte(6+len(b2)), 0, 0, 0, 1, 0, 0)
	seeds = append(seeds, append(node, b2...))
	seeds = append(seeds, []byte{0x80, 2, 0, 7, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 0}) // node's 8-byte GOAWAY
	return seeds
}

// FuzzFrameDecoderV2 is FuzzFrameDecoder for a SPDY/2 framer: no panic, and
// accepted frames survive a v2 round trip.
func FuzzFrameDecoderV2(f *testing.F) {
	for _, s := range seedFramesV2(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewFramerVersion(Version2, nil, bytes.NewReader(data), 16<<10)
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
			switch fr := fr.(type) {
			case *SynStreamFrame:
				if fr.Priority > 6 || fr.Priority&1 != 0 || fr.Slot != 0 {
					t.Fatalf("v2 SYN_STREAM read as priority %d slot %d", fr.Priority, fr.Slot)
				}
			case *SynReplyFrame, *HeadersFrame, *UnknownFrame:
				// context-dependent or not re-encodable
			case *WindowUpdateFrame:
				if fr.Delta != 0 { // delta 0 is passed on for the session to reject
					roundTripV2(t, fr)
				}
			case *RstStreamFrame:
				if fr.Status > RstFlowControlError || fr.Status == 0 {
					continue // v2 sends codes 1-7 only (others become PROTOCOL_ERROR)
				}
				roundTripV2(t, fr)
			case *GoAwayFrame:
				fr.Status = GoAwayOK // v2 sends no status
				roundTripV2(t, fr)
			default:
				roundTripV2(t, fr)
			}
		}
	})
}

func roundTripV2(t *testing.T, fr Frame) {
	var buf bytes.Buffer
	w := NewFramerVersion(Version2, &buf, nil, 0)
	if err := w.WriteFrame(fr); err != nil {
		t.Fatalf("re-encoding %v: %v", fr, err)
	}
	w.Flush()
	back, err := NewFramerVersion(Version2, nil, &buf, 0).ReadFrame()
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

func rawBlockV2(pairs ...string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(pairs)/2))
	for _, s := range pairs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	return b
}

// FuzzHeaderBlockDecoderV2: arbitrary bytes as a compressed v2 block and
// as an uncompressed v2 block; what decodes re-encodes to the same header.
func FuzzHeaderBlockDecoderV2(f *testing.F) {
	b1, _ := hex.DecodeString(v2NodeBlock1)
	f.Add(b1)
	f.Add(rawBlockV2("method", "GET", "url", "/", "cookie", "a\x00b"))
	f.Add(rawBlockV2(":method", "GET"))
	f.Add(rawBlockV2("host", "a", "A", "b"))
	f.Add([]byte{0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 4096
		d := newHeaderDecoderVersion(Version2, max)
		if h, sz, err := d.decode(data, 1); err == nil && sz.Raw > max {
			t.Fatalf("decoded %d bytes past the %d cap: %v", sz.Raw, max, h)
		}
		h, _, err := newHeaderDecoderVersion(Version2, max).decode(newV2BlockCompressor(t).block(data), 1)
		if err != nil {
			return
		}
		wire, _, err := newHeaderEncoderVersion(Version2).encode(nil, h)
		if err != nil {
			t.Fatalf("decoded block %v does not re-encode: %v", h, err)
		}
		back, _, err := newHeaderDecoderVersion(Version2, 0).decode(wire, 1)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if !reflect.DeepEqual(back, h) {
			t.Fatalf("round trip %v -> %v", h, back)
		}
	})
}
