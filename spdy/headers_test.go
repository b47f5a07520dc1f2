package spdy

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// rawCompressor is a peer's send context that compresses arbitrary bytes,
// valid or not, the way a SPDY peer would (dictionary, SYNC_FLUSH per block).
type rawCompressor struct {
	buf bytes.Buffer
	zw  *zlib.Writer
}

func newRawCompressor() *rawCompressor {
	c := &rawCompressor{}
	c.zw, _ = zlib.NewWriterLevelDict(&c.buf, zlib.DefaultCompression, headerDictionary)
	return c
}

func (c *rawCompressor) block(raw []byte) []byte {
	c.buf.Reset()
	c.zw.Write(raw)
	c.zw.Flush()
	return append([]byte(nil), c.buf.Bytes()...)
}

// rawBlock encodes pairs without any validation.
func rawBlock(pairs ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(pairs)/2))
	for _, s := range pairs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// Header blocks survive the encoder and decoder of every version, one
// compression context per direction across the blocks.
func TestHeaderCodecRoundTrip(t *testing.T) {
	// Draft 2 has no zero-length values: its encoder leaves "empty" out
	// (TestZeroLengthValueV2).
	withoutEmptyV2 := Header{":method": {"POST"}, ":path": {"/b"}, "cookie": {"x=1", "y=2", "z=3"}}
	blocks := []Header{
		{":method": {"GET"}, ":path": {"/a"}, "accept": {"*/*"}},
		{":method": {"POST"}, ":path": {"/b"}, "cookie": {"x=1", "y=2", "z=3"}, "empty": {""}},
		{},
		{"x-binary": {"\x01\x02\xff"}},
		{":method": {"GET"}, ":path": {"/"}, ":version": {"HTTP/1.1"}, ":host": {"example.com"}, ":scheme": {"https"}, "accept": {"*/*"}},
		{":status": {"404 Not Found"}, ":version": {"HTTP/1.1"}, "set-cookie": {"a=1", "b=2"}},
		{"x-big": {string(bytes.Repeat([]byte("v"), 60000))}},
	}
	for _, v := range Versions {
		t.Run(subtestName(v.Proto), func(t *testing.T) {
			enc := newHeaderEncoderVersion(v.Wire)
			dec := newHeaderDecoderVersion(v.Wire, 0)
			for i, h := range blocks {
				wire, size, err := enc.encode(nil, h)
				if err != nil {
					t.Fatalf("block %d: %v", i, err)
				}
				got, dsize, err := dec.decode(wire, 1)
				if err != nil {
					t.Fatalf("block %d: %v", i, err)
				}
				want := h
				if v.Wire == Version2 && i == 1 {
					want = withoutEmptyV2
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("block %d: got %v want %v", i, got, want)
				}
				if size != dsize || size.Compressed != len(wire) {
					t.Fatalf("block %d: sizes %+v vs %+v", i, size, dsize)
				}
			}
		})
	}
}

func TestHeaderDecoderRejectsInvalidBlocksAndStaysInSync(t *testing.T) {
	cases := map[string][]byte{
		"uppercase name":     rawBlock("Accept", "x"),
		"empty name":         rawBlock("", "x"),
		"leading NUL":        rawBlock("a", "\x00x"),
		"trailing NUL":       rawBlock("a", "x\x00"),
		"double NUL":         rawBlock("a", "x\x00\x00y"),
		"lone NUL":           rawBlock("a", "\x00"),
		"duplicate name":     rawBlock("a", "1", "a", "2"),
		"NUL in name":        rawBlock("a\x00b", "1"),
		"bad pair then good": rawBlock("B", "1", "c", "2"),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			c := newRawCompressor()
			dec := newHeaderDecoder(0)
			_, _, err := dec.decode(c.block(raw), 5)
			var se *StreamError
			if !errors.As(err, &se) || se.Status != RstProtocolError || se.Stream != 5 {
				t.Fatalf("err = %v, want stream PROTOCOL_ERROR on 5", err)
			}
			// The context must still be usable for the next block.
			h, _, err := dec.decode(c.block(rawBlock("ok", "yes")), 7)
			if err != nil || h.Get("ok") != "yes" {
				t.Fatalf("next block: %v %v", h, err)
			}
		})
	}
}

func TestHeaderDecoderBombAndTruncation(t *testing.T) {
	t.Run("decompression bomb", func(t *testing.T) {
		c := newRawCompressor()
		// 64 MiB of value compresses to ~64 KiB; the decoder must refuse
		// without inflating it all.
		raw := binary.BigEndian.AppendUint32(nil, 1)
		raw = binary.BigEndian.AppendUint32(raw, 1)
		raw = append(raw, 'a')
		raw = binary.BigEndian.AppendUint32(raw, 64<<20)
		c.zw.Write(raw)
		zeros := make([]byte, 1<<20)
		for i := range zeros {
			zeros[i] = 'x'
		}
		for i := 0; i < 64; i++ {
			c.zw.Write(zeros)
		}
		c.zw.Flush()
		block := c.buf.Bytes()
		if len(block) > 1<<20 {
			t.Fatalf("bomb is %d bytes compressed", len(block))
		}
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		dec := newHeaderDecoder(0)
		_, _, err := dec.decode(block, 3)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		var se *SessionError
		if !errors.As(err, &se) || se.RstStatus != RstFrameTooLarge || se.RstStream != 3 {
			t.Fatalf("err = %v", err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Fatalf("decoder allocated %d bytes for a bomb", grew)
		}
		// The context is gone for good.
		if _, _, err := dec.decode(newRawCompressor().block(rawBlock("a", "b")), 5); !errors.As(err, &se) {
			t.Fatalf("broken decoder accepted another block: %v", err)
		}
	})
	t.Run("absurd pair count", func(t *testing.T) {
		c := newRawCompressor()
		_, _, err := newHeaderDecoder(0).decode(c.block(binary.BigEndian.AppendUint32(nil, 1<<30)), 1)
		var se *SessionError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("truncated block", func(t *testing.T) {
		c := newRawCompressor()
		raw := rawBlock("name", "value")
		_, _, err := newHeaderDecoder(0).decode(c.block(raw[:len(raw)-2]), 1)
		var se *SessionError
		if !errors.As(err, &se) || !strings.Contains(se.Reason, "header block") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		_, _, err := newHeaderDecoder(0).decode([]byte("this is not zlib"), 1)
		var se *SessionError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("wrong dictionary", func(t *testing.T) {
		var buf bytes.Buffer
		zw, _ := zlib.NewWriterLevelDict(&buf, 6, []byte("some other dictionary"))
		zw.Write(rawBlock("a", "b"))
		zw.Flush()
		_, _, err := newHeaderDecoder(0).decode(buf.Bytes(), 1)
		var se *SessionError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("block at the cap is fine", func(t *testing.T) {
		c := newRawCompressor()
		raw := rawBlock("a", strings.Repeat("v", 1000))
		dec := newHeaderDecoder(len(raw))
		if _, _, err := dec.decode(c.block(raw), 1); err != nil {
			t.Fatal(err)
		}
		dec = newHeaderDecoder(len(raw) - 1)
		if _, _, err := dec.decode(newRawCompressor().block(raw), 1); err == nil {
			t.Fatal("block one byte over the cap accepted")
		}
	})
}
