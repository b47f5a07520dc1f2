package spdy

// The Framer: its buffers, header compression contexts and wire version.
// Reading is in frame_read.go, writing in frame_write.go.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

const (
	frameHeaderLen = 8
	// MaxFrameLength is the largest length the 24-bit field can express.
	MaxFrameLength = 1<<24 - 1
	// DefaultMaxReadFrameSize is the cap on a received frame's length when
	// none is configured. The spec requires at least 8192 for control frames.
	DefaultMaxReadFrameSize = 1 << 20
	minReadFrameSize        = 8192
)

// Framer reads and writes SPDY/3 frames, including the two header
// compression contexts (one per direction) that every SYN_STREAM, SYN_REPLY
// and HEADERS frame shares. A Framer is not safe for concurrent use: one
// goroutine reads, another may write.
type Framer struct {
	r  io.Reader
	w  *bufio.Writer
	rb []byte // read buffer, grown up to MaxReadFrameSize

	// MaxReadFrameSize caps the length of a received frame; a longer frame
	// is refused from its header: DATA as FRAME_TOO_LARGE (its payload
	// skipped without being buffered), a control frame as a session error.
	MaxReadFrameSize int

	enc *headerEncoder
	dec *headerDecoder

	stall *stallGuard // set by sessions: a deadline for frames cut short

	// dataGate, set by sessions, judges a DATA frame by its header before
	// its payload is read: an error refuses it at once (a session window
	// it overruns), open=false means no stream takes it, so its payload is
	// not buffered. nil: every stream is open.
	dataGate func(stream uint32, length int) (open bool, err error)
	// pending is the payload of a DATA frame refused at its header, still
	// to be discarded before the next frame's header.
	pending int

	version uint16 // wire version: Version (3) or Version2

	wb []byte // scratch for encoding
}

// NewFramer returns a Framer writing to w and reading from r (either may be
// nil). maxHeaderBlock caps a decompressed header block (0 = 256 KiB).
func NewFramer(w io.Writer, r io.Reader, maxHeaderBlock int) *Framer {
	return NewFramerVersion(Version, w, r, maxHeaderBlock)
}

// NewFramerVersion is NewFramer for a wire version: Version (SPDY/3 and
// 3.1) or Version2. Any other version is treated as Version.
func NewFramerVersion(version uint16, w io.Writer, r io.Reader, maxHeaderBlock int) *Framer {
	if version != Version2 {
		version = Version
	}
	f := &Framer{r: r, MaxReadFrameSize: DefaultMaxReadFrameSize, version: version}
	if w != nil {
		if bw, ok := w.(*bufio.Writer); ok {
			f.w = bw
		} else {
			f.w = bufio.NewWriterSize(w, 32<<10)
		}
	}
	f.enc = newHeaderEncoderVersion(version)
	f.dec = newHeaderDecoderVersion(version, maxHeaderBlock)
	return f
}

// Flush writes buffered frames to the underlying writer.
func (f *Framer) Flush() error { return f.w.Flush() }

// Buffered reports how many bytes are waiting in the write buffer.
func (f *Framer) Buffered() int { return f.w.Buffered() }

func (f *Framer) readCap() int {
	if f.MaxReadFrameSize < minReadFrameSize {
		return minReadFrameSize
	}
	if f.MaxReadFrameSize > MaxFrameLength {
		return MaxFrameLength
	}
	return f.MaxReadFrameSize
}

func (f *Framer) startControl(typ FrameType, flags uint8) {
	f.wb = append(f.wb[:0], 0x80|byte(f.version>>8), byte(f.version), byte(typ>>8), byte(typ), flags, 0, 0, 0)
}

func (f *Framer) finish() error {
	n := len(f.wb) - frameHeaderLen
	if n > MaxFrameLength {
		return fmt.Errorf("spdy: frame payload of %d bytes exceeds the 24-bit length field", n)
	}
	f.wb[5], f.wb[6], f.wb[7] = byte(n>>16), byte(n>>8), byte(n)
	_, err := f.w.Write(f.wb)
	return err
}

func (f *Framer) putU32(v uint32) { f.wb = binary.BigEndian.AppendUint32(f.wb, v) }
