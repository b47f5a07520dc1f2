package client

import (
	"encoding/binary"
	"io"

	"golang.org/x/net/http2"
)

// dataSplitter sits between the connection's buffered reader and the
// Framer and cuts each DATA frame into frames of the bytes that have
// arrived so far. x/net/http2's Framer returns a frame only once all of it
// is read, so a 16 KiB DATA frame that straddles the server's first
// congestion window reached the body a round trip late; a browser's
// HTTP/2 decoder hands payload on as it arrives, and so scans an HTML
// document's first packets at once. The cut frames carry the
// wire frame's stream and END_STREAM only on the last piece, so flow
// control and stream ends are unchanged. PADDED frames, empty ones and
// frames over the size limit pass whole (the Framer judges the last).
type dataSplitter struct {
	r        io.Reader
	maxFrame uint32

	hdr      [9]byte
	left     int  // payload bytes of the current wire frame still to come
	cutting  bool // the current wire frame is a DATA frame being cut
	flags    http2.Flags
	streamID uint32
	out      []byte // bytes for the Framer not yet handed over
	buf      []byte

	// Of the frame the Framer read last: whether it ended its wire frame,
	// and that wire frame's length (what a trace should show).
	lastEnded bool
	wireLen   uint32
}

func newDataSplitter(r io.Reader, maxFrame uint32) *dataSplitter {
	return &dataSplitter{r: r, maxFrame: maxFrame, buf: make([]byte, 9+int(maxFrame))}
}

func (s *dataSplitter) Read(p []byte) (int, error) {
	if len(s.out) == 0 {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// fill makes s.out hold the next bytes for the Framer: a frame header
// passed through with its payload following as it is read, or one piece
// of a DATA frame (its own header and the payload bytes at hand).
func (s *dataSplitter) fill() error {
	if s.left > 0 && !s.cutting {
		n, err := s.r.Read(s.buf[:min(s.left, len(s.buf))])
		s.left -= n
		s.out = s.buf[:n]
		if n > 0 {
			return nil
		}
		return eofIsUnexpected(err)
	}
	if s.left == 0 {
		if _, err := io.ReadFull(s.r, s.hdr[:]); err != nil {
			return err
		}
		length := binary.BigEndian.Uint32(s.hdr[0:4]) >> 8
		typ, flags := http2.FrameType(s.hdr[3]), http2.Flags(s.hdr[4])
		s.left = int(length)
		s.cutting = typ == http2.FrameData && length > 0 && length <= s.maxFrame && !flags.Has(http2.FlagDataPadded)
		if !s.cutting {
			s.lastEnded, s.wireLen = true, length
			s.out = append(s.buf[:0], s.hdr[:]...)
			return nil
		}
		s.flags, s.streamID, s.wireLen = flags, binary.BigEndian.Uint32(s.hdr[5:9])&(1<<31-1), length
	}
	n, err := s.r.Read(s.buf[9 : 9+s.left])
	if n == 0 {
		return eofIsUnexpected(err)
	}
	s.left -= n
	s.lastEnded = s.left == 0
	flags := s.flags &^ http2.FlagDataEndStream
	if s.lastEnded {
		flags = s.flags
	}
	binary.BigEndian.PutUint32(s.buf[0:4], uint32(n)<<8|uint32(http2.FrameData))
	s.buf[4] = byte(flags)
	binary.BigEndian.PutUint32(s.buf[5:9], s.streamID)
	s.out = s.buf[:9+n]
	s.cutting = s.left > 0
	return nil
}

// eofIsUnexpected: the connection ending inside a frame is not a clean end.
func eofIsUnexpected(err error) error {
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
