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
	buf     bytes.Buffer
	zw      *zlib.Writer
	raw     []byte
	version uint16 // 2 or 3: field widths, names and dictionary
}

// headerCompressionLevel: header blocks are small and written once, so the
// best ratio costs little CPU; it is what makes SPDY's header savings real.
const headerCompressionLevel = zlib.BestCompression

func newHeaderEncoder() *headerEncoder { return newHeaderEncoderVersion(Version) }

func newHeaderEncoderVersion(version uint16) *headerEncoder {
	e := &headerEncoder{version: version}
	zw, err := zlib.NewWriterLevelDict(&e.buf, headerCompressionLevel, dictionaryFor(version))
	if err != nil { // only possible for an invalid level
		panic(err)
	}
	e.zw = zw
	return e
}

// dictionaryFor is the zlib dictionary of a wire version's header blocks.
func dictionaryFor(version uint16) []byte {
	if version == Version2 {
		return headerDictionaryV2
	}
	return headerDictionary
}

// marshalBlock appends the uncompressed SPDY/3 encoding of h (names sorted
// so the output is deterministic) after validating it.
func marshalBlock(dst []byte, h Header) ([]byte, error) { return marshalBlockVersion(dst, h, Version) }

// marshalBlockVersion encodes h for a wire version. SPDY/2 counts and
// lengths are 16 bits and its request/response names have no colon, so a
// v2 block is renamed first (toWireNamesV2).
func marshalBlockVersion(dst []byte, h Header, version uint16) ([]byte, error) {
	putLen := func(dst []byte, n int) []byte { return binary.BigEndian.AppendUint32(dst, uint32(n)) }
	if version == Version2 {
		var err error
		if h, err = toWireNamesV2(h); err != nil {
			return nil, err
		}
		putLen = func(dst []byte, n int) []byte { return binary.BigEndian.AppendUint16(dst, uint16(n)) }
	}
	names := h.names()
	if version == Version2 && len(names) > 0xffff {
		return nil, fmt.Errorf("spdy: %d headers do not fit SPDY/2's 16-bit count", len(names))
	}
	dst = putLen(dst, len(names))
	for _, name := range names {
		if err := validateName(name); err != nil {
			return nil, fmt.Errorf("spdy: %v", err)
		}
		vals := h[name]
		if len(vals) == 0 {
			return nil, fmt.Errorf("spdy: header %q has no value", name)
		}
		vlen := len(vals) - 1
		for _, v := range vals {
			vlen += len(v)
		}
		if version == Version2 && (len(name) > 0xffff || vlen > 0xffff) {
			return nil, fmt.Errorf("spdy: header %q does not fit SPDY/2's 16-bit lengths", name)
		}
		dst = putLen(dst, len(name))
		dst = append(dst, name...)
		dst = putLen(dst, vlen)
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
	raw, err := marshalBlockVersion(e.raw[:0], h, e.version)
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
	z       *flushInflater
	max     int
	broken  error
	scratch []byte
	version uint16 // 2 or 3
}

func newHeaderDecoder(max int) *headerDecoder { return newHeaderDecoderVersion(Version, max) }

func newHeaderDecoderVersion(version uint16, max int) *headerDecoder {
	if max <= 0 {
		max = DefaultMaxHeaderBlockSize
	}
	return &headerDecoder{max: max, z: newFlushInflater(dictionaryFor(version)), version: version}
}

// readLen reads one count or length field: 32 bits, 16 in SPDY/2.
func (d *headerDecoder) readLen(used *int) (uint32, error) {
	if d.version == Version2 {
		b, err := d.read(2, used)
		if err != nil {
			return 0, err
		}
		return uint32(binary.BigEndian.Uint16(b)), nil
	}
	b, err := d.read(4, used)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
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
	if err := d.z.begin(block); err != nil {
		return d.fail(stream, size, err)
	}
	h, raw, verr, err := d.parse(stream)
	size.Raw = raw
	if err != nil {
		return nil, size, err
	}
	if err := d.consumeRest(stream, len(block)); err != nil {
		return nil, size, err
	}
	if verr != nil {
		return h, size, verr
	}
	return h, size, nil
}

// consumeRest makes a header block end exactly where its frame ends (a
// second block smuggled after the first used to become the start of the
// next stream's headers). Whatever follows the last pair is decompressed
// and dropped, so the context stays in step with the peer's compressor and
// nothing reaches the next block; if anything came out, the stream is
// refused with PROTOCOL_ERROR (2.6.10: the block is the rest of the frame).
// Bytes that do not decompress lose the context (2.4.1).
func (d *headerDecoder) consumeRest(stream uint32, compressed int) error {
	if cap(d.scratch) < 4096 {
		d.scratch = make([]byte, 4096)
	}
	extra, err := d.z.drain(d.scratch[:cap(d.scratch)], d.max)
	if errors.Is(err, errInflateBudget) {
		_, _, se := d.fail(stream, BlockSize{}, fmt.Errorf("%w: more than %d bytes after the end of the header block", errTooLarge, d.max))
		se.(*SessionError).RstStatus = RstFrameTooLarge
		return se
	}
	if err != nil {
		_, _, se := d.fail(stream, BlockSize{}, fmt.Errorf("bytes after the end of the header block do not decompress: %v", err))
		return se
	}
	if extra > 0 {
		return &StreamError{Stream: stream, Status: RstProtocolError,
			Reason: fmt.Sprintf("%d decompressed bytes after the end of the header block", extra)}
	}
	return nil
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
	if _, err := io.ReadFull(d.z, b); err != nil {
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
	count, err := d.readLen(&used)
	if err != nil {
		return fail(err)
	}
	// Every pair needs at least two length fields: reject absurd counts
	// before allocating anything for them.
	if uint64(count)*uint64(2*d.lenWidth()) > uint64(d.max-used) {
		return fail(fmt.Errorf("%w: header block claims %d pairs", errTooLarge, count))
	}
	h = make(Header, count)
	for i := uint32(0); i < count; i++ {
		nlen, err := d.readLen(&used)
		if err != nil {
			return fail(err)
		}
		if uint64(nlen) > uint64(d.max-used) {
			return fail(fmt.Errorf("%w: header name of %d bytes", errTooLarge, nlen))
		}
		nb, err := d.read(int(nlen), &used)
		if err != nil {
			return fail(err)
		}
		name := string(nb)
		vlen, err := d.readLen(&used)
		if err != nil {
			return fail(err)
		}
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
		if d.version == Version2 {
			var e error
			if name, e = fromWireNameV2(name); e != nil {
				verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: e.Error()}
				continue
			}
		}
		if e := validateValue(name, value); e != nil {
			verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: e.Error()}
			continue
		}
		if value == "" && d.version == Version2 {
			// Draft 2: "The length of each name and value must be greater
			// than zero" (SPDY/3 allows an empty value).
			verr = &StreamError{Stream: stream, Status: RstProtocolError, Reason: fmt.Sprintf("zero-length value of header %q", name)}
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
