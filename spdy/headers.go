package spdy

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Header is a SPDY name/value block: lowercase names, each with one or more
// values. On the wire the values of one name are joined by NUL.
type Header map[string][]string

// Get returns the first value of name (which must be lowercase).
func (h Header) Get(name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Set replaces the values of name.
func (h Header) Set(name, value string) { h[name] = []string{value} }

// Add appends a value to name.
func (h Header) Add(name, value string) { h[name] = append(h[name], value) }

func (h Header) names() []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// DefaultMaxHeaderBlockSize caps a decompressed header block when the
// configuration does not say otherwise.
const DefaultMaxHeaderBlockSize = 256 << 10

// validateName enforces section 2.6.10: non-empty, lowercase, no NUL.
func validateName(name string) error {
	if name == "" {
		return errors.New("empty header name")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == 0 {
			return fmt.Errorf("header name %q contains NUL", name)
		}
		if 'A' <= c && c <= 'Z' {
			return fmt.Errorf("header name %q is not lowercase", name)
		}
	}
	return nil
}

// validateValue enforces section 2.6.10 on a NUL-joined wire value: empty,
// or NUL-separated parts that are each non-empty.
func validateValue(name, v string) error {
	if v == "" {
		return nil
	}
	if v[0] == 0 || v[len(v)-1] == 0 {
		return fmt.Errorf("value of header %q starts or ends with NUL", name)
	}
	if strings.Contains(v, "\x00\x00") {
		return fmt.Errorf("value of header %q contains an empty NUL-separated part", name)
	}
	return nil
}

// headerEncoder is the send-direction compression context of one session.
type headerEncoder struct {
	buf bytes.Buffer
	zw  *zlib.Writer
	raw []byte
}

// headerCompressionLevel: header blocks are small and written once, so the
// best ratio costs little CPU; it is what makes SPDY's header savings real.
const headerCompressionLevel = zlib.BestCompression

func newHeaderEncoder() *headerEncoder {
	e := &headerEncoder{}
	zw, err := zlib.NewWriterLevelDict(&e.buf, headerCompressionLevel, headerDictionary)
	if err != nil { // only possible for an invalid level
		panic(err)
	}
	e.zw = zw
	return e
}

// marshalBlock appends the uncompressed SPDY/3 encoding of h (names sorted
// so the output is deterministic) after validating it.
func marshalBlock(dst []byte, h Header) ([]byte, error) {
	names := h.names()
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(names)))
	for _, name := range names {
		if err := validateName(name); err != nil {
			return nil, fmt.Errorf("spdy: %v", err)
		}
		vals := h[name]
		if len(vals) == 0 {
			return nil, fmt.Errorf("spdy: header %q has no value", name)
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(name)))
		dst = append(dst, name...)
		vlen := len(vals) - 1
		for _, v := range vals {
			vlen += len(v)
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(vlen))
		start := len(dst)
		for i, v := range vals {
			if i > 0 {
				dst = append(dst, 0)
			}
			dst = append(dst, v...)
		}
		if err := validateValue(name, string(dst[start:])); err != nil {
			return nil, fmt.Errorf("spdy: %v", err)
		}
	}
	return dst, nil
}

// encode appends the compressed block for h to dst. Validation happens before
// any byte reaches the compressor, so an error leaves the context intact.
func (e *headerEncoder) encode(dst []byte, h Header) ([]byte, BlockSize, error) {
	raw, err := marshalBlock(e.raw[:0], h)
	if err != nil {
		return dst, BlockSize{}, err
	}
	e.raw = raw
	e.buf.Reset()
	if _, err := e.zw.Write(raw); err != nil {
		return dst, BlockSize{}, err
	}
	// Flush is a zlib SYNC_FLUSH: the block ends on a byte boundary and the
	// peer can decode it completely without waiting for later frames.
	if err := e.zw.Flush(); err != nil {
		return dst, BlockSize{}, err
	}
	return append(dst, e.buf.Bytes()...), BlockSize{Raw: len(raw), Compressed: e.buf.Len()}, nil
}

// compressedInput is the byte source of the receive-direction decompressor:
// the concatenation of every compressed header block received so far. It
// implements io.ByteReader so zlib/flate read exactly the bits they need and
// never read ahead into a block that has not arrived.
type compressedInput struct {
	pending []byte
}

var errBlockExhausted = errors.New("header block ended before its name/value pairs did")

func (c *compressedInput) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		return 0, errBlockExhausted
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *compressedInput) ReadByte() (byte, error) {
	if len(c.pending) == 0 {
		return 0, errBlockExhausted
	}
	b := c.pending[0]
	c.pending = c.pending[1:]
	return b, nil
}

// headerDecoder is the receive-direction compression context of one session.
// Once it fails, it stays failed: the shared zlib state is gone and the
// session must end with GOAWAY.
type headerDecoder struct {
	in       compressedInput
	zr       io.ReadCloser
	max      int
	broken   error
	scratch  []byte
	leftover []byte // compressed bytes not yet consumed when the block was complete
}

func newHeaderDecoder(max int) *headerDecoder {
	if max <= 0 {
		max = DefaultMaxHeaderBlockSize
	}
	return &headerDecoder{max: max}
}

// decode decompresses and parses one block. A *SessionError means the
// compression context is lost; a *StreamError means the block was fully
// consumed but its contents break section 2.6.10 (the stream is reset, the
// session continues).
func (d *headerDecoder) decode(block []byte, stream uint32) (Header, BlockSize, error) {
	size := BlockSize{Compressed: len(block)}
	if d.broken != nil {
		return nil, size, &SessionError{Status: GoAwayProtocolError, Reason: "header compression context lost: " + d.broken.Error()}
	}
	if len(block) == 0 {
		return nil, size, &StreamError{Stream: stream, Status: RstProtocolError, Reason: "missing header block"}
	}
	// Anything the previous block left unconsumed (normally part of its
	// SYNC_FLUSH marker) comes first: the zlib stream is one continuous stream.
	d.leftover = append(append(d.leftover[:0], d.in.pending...), block...)
	d.in.pending = d.leftover
	if d.zr == nil {
		zr, err := zlib.NewReaderDict(&d.in, headerDictionary)
		if err != nil {
			return d.fail(stream, size, err)
		}
		d.zr = zr
	}
	h, raw, verr, err := d.parse(stream)
	size.Raw = raw
	if err != nil {
		return nil, size, err
	}
	if verr != nil {
		return h, size, verr
	}
	return h, size, nil
}

func (d *headerDecoder) fail(stream uint32, size BlockSize, err error) (Header, BlockSize, error) {
	d.broken = err
	se := &SessionError{Status: GoAwayProtocolError, Reason: "header block: " + err.Error()}
	if stream != 0 {
		se.RstStream, se.RstStatus = stream, RstProtocolError
	}
	return nil, size, se
}

// read pulls exactly n decompressed bytes, charging them to the block budget.
func (d *headerDecoder) read(n int, used *int) ([]byte, error) {
	if n > d.max-*used {
		return nil, fmt.Errorf("%w: decompressed header block exceeds %d bytes", errTooLarge, d.max)
	}
	*used += n
	if cap(d.scratch) < n {
		d.scratch = make([]byte, n)
	}
	b := d.scratch[:n]
	if _, err := io.ReadFull(d.zr, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = errBlockExhausted
		}
		return nil, err
	}
	return b, nil
}

func (d *headerDecoder) parse(stream uint32) (h Header, used int, verr error, err error) {
	fail := func(e error) (Header, int, error, error) {
		_, _, se := d.fail(stream, BlockSize{}, e)
		if errors.Is(e, errTooLarge) {
			se.(*SessionError).RstStatus = RstFrameTooLarge
		}
		return nil, used, nil, se
	}
	b, err := d.read(4, &used)
	if err != nil {
		return fail(err)
	}
	count := binary.BigEndian.Uint32(b)
	// Every pair needs at least 8 bytes of lengths: reject absurd counts
	// before allocating anything for them.
	if uint64(count)*8 > uint64(d.max-used) {
		return fail(fmt.Errorf("%w: header block claims %d pairs", errTooLarge, count))
	}
	h = make(Header, count)
	for i := uint32(0); i < count; i++ {
		b, err := d.read(4, &used)
		if err != nil {
			return fail(err)
		}
		nlen := binary.BigEndian.Uint32(b)
		if uint64(nlen) > uint64(d.max-used) {
			return fail(fmt.Errorf("%w: header name of %d bytes", errTooLarge, nlen))
		}
		nb, err := d.read(int(nlen), &used)
		if err != nil {
			return fail(err)
		}
		name := string(nb)
		b, err = d.read(4, &used)
		if err != nil {
			return fail(err)
		}
		vlen := binary.BigEndian.Uint32(b)
		if uint64(vlen) > uint64(d.max-used) {
			return fail(fmt.Errorf("%w: value of header %q has %d bytes", errTooLarge, name, vlen))
		}
		vb, err := d.read(int(vlen), &used)
		if err != nil {
			return fail(err)
		}
		value := string(vb)
		// Keep decompressing after a bad pair so the context stays in sync;
		// report the first problem as a stream error at the end.
		if verr != nil {
			continue
		}
		if e := validateName(name); e != nil {
			verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: e.Error()}
			continue
		}
		if e := validateValue(name, value); e != nil {
			verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: e.Error()}
			continue
		}
		if _, dup := h[name]; dup {
			verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: fmt.Sprintf("duplicate header name %q", name)}
			continue
		}
		if value == "" {
			h[name] = []string{""}
		} else {
			h[name] = strings.Split(value, "\x00")
		}
	}
	return h, used, verr, nil
}

var errTooLarge = errors.New("header block too large")
