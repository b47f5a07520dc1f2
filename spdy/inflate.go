package spdy

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
)

// windowSize is deflate's history window.
const windowSize = 32 << 10

// flushInflater decompresses one zlib stream that arrives in pieces (header
// blocks, or compressed DATA frames), each ending at a flush point
// (SYNC_FLUSH or FULL_FLUSH, which end in the bytes 00 00 ff ff).
//
// Go's flate reader stops for good at the first read error, and a piece is
// only known to be finished when the reader asks for more input. So each
// piece is decoded by a reader reset onto the piece with the last 32 KiB of
// output as its preset window. At a flush point that window is all the state
// deflate carries (blocks do not share Huffman tables), so decoding resumes
// exactly, and "asked for more input" is a clean end of the piece.
type flushInflater struct {
	in      compressedInput
	fr      io.ReadCloser
	dict    []byte // preset dictionary the stream must announce; nil = none
	hist    []byte // the last windowSize bytes of output (at least)
	out     []byte // scratch for inflating DATA
	started bool   // zlib header consumed
}

var errNotFlushed = errors.New("compressed piece does not end at a zlib flush point (00 00 ff ff)")

func newFlushInflater(dict []byte) *flushInflater {
	return &flushInflater{dict: dict, hist: append([]byte(nil), dict...)}
}

// begin starts decoding piece p.
func (z *flushInflater) begin(p []byte) error {
	if !isSyncFlushTail(p) {
		return errNotFlushed
	}
	z.in.pending = p
	if !z.started {
		if err := z.readZlibHeader(); err != nil {
			return err
		}
		z.started = true
	}
	if z.fr == nil {
		z.fr = flate.NewReaderDict(&z.in, z.hist)
		return nil
	}
	return z.fr.(flate.Resetter).Reset(&z.in, z.hist)
}

func (z *flushInflater) readZlibHeader() error {
	if len(z.in.pending) < 2 {
		return errors.New("zlib header truncated")
	}
	h := z.in.pending[:2]
	if h[0]&0x0f != 8 || binary.BigEndian.Uint16(h)%31 != 0 {
		return fmt.Errorf("bad zlib header % x", h)
	}
	z.in.pending = z.in.pending[2:]
	hasDict := h[1]&0x20 != 0
	if hasDict != (z.dict != nil) {
		return fmt.Errorf("zlib stream preset dictionary flag %v, want %v", hasDict, z.dict != nil)
	}
	if hasDict {
		if len(z.in.pending) < 4 {
			return errors.New("zlib dictionary id truncated")
		}
		if id := binary.BigEndian.Uint32(z.in.pending); id != adler32.Checksum(z.dict) {
			return fmt.Errorf("zlib stream uses dictionary %08x, not the SPDY dictionary", id)
		}
		z.in.pending = z.in.pending[4:]
	}
	return nil
}

// Read returns decompressed bytes of the current piece; errBlockExhausted
// means the piece is used up.
func (z *flushInflater) Read(b []byte) (int, error) {
	n, err := z.fr.Read(b)
	if n > 0 {
		z.remember(b[:n])
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = fmt.Errorf("zlib stream ended: %w", err)
	}
	return n, err
}

func (z *flushInflater) remember(p []byte) {
	if len(p) >= windowSize {
		z.hist = append(z.hist[:0], p[len(p)-windowSize:]...)
		return
	}
	if len(z.hist)+len(p) > 2*windowSize {
		keep := windowSize - len(p)
		z.hist = append(z.hist[:0], z.hist[len(z.hist)-keep:]...)
	}
	z.hist = append(z.hist, p...)
}

// drain decodes the rest of the piece, failing once more than limit bytes
// come out; it returns how many did.
func (z *flushInflater) drain(buf []byte, limit int) (int, error) {
	total := 0
	for {
		n, err := z.Read(buf)
		total += n
		if total > limit {
			return total, errInflateBudget
		}
		if err == errBlockExhausted {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func isSyncFlushTail(b []byte) bool {
	n := len(b)
	return n >= 4 && b[n-4] == 0 && b[n-3] == 0 && b[n-2] == 0xff && b[n-1] == 0xff
}

// DefaultMaxInflatedBuffer is the least a stream may hold of decompressed,
// unread FLAG_DATA_COMPRESSED payload (see Config.MaxInflatedBuffer).
const DefaultMaxInflatedBuffer = 1 << 20

var errInflateBudget = errors.New("decompressed data exceeds its limit")

// inflateLocked decompresses a FLAG_DATA_COMPRESSED payload for st (2.2.2:
// one context per stream, no dictionary, distinct from the header
// contexts). The stream's unread decompressed bytes stay under
// Config.MaxInflatedBuffer, so a decompression bomb costs the stream only.
func (st *stream) inflateLocked(p []byte) ([]byte, *StreamError) {
	if st.inflate == nil {
		st.inflate = newFlushInflater(nil)
	}
	budget := st.s.cfg.maxInflatedBuffer(st.s.streamRecvIW) - st.buf.len()
	z := st.inflate
	if err := z.begin(p); err != nil {
		return nil, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "compressed DATA: " + err.Error()}
	}
	var out []byte
	if z.out == nil {
		z.out = make([]byte, 16<<10)
	}
	buf := z.out
	for {
		n, err := z.Read(buf)
		if len(out)+n > budget {
			return nil, &StreamError{Stream: st.id, Status: RstFrameTooLarge,
				Reason: fmt.Sprintf("compressed DATA inflates beyond the stream's %d byte buffer limit", budget+st.buf.len())}
		}
		out = append(out, buf[:n]...)
		if err == errBlockExhausted {
			return out, nil
		}
		if err != nil {
			return nil, &StreamError{Stream: st.id, Status: RstProtocolError, Reason: "compressed DATA: " + err.Error()}
		}
	}
}
