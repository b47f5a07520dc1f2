package spdy

// Reading frames: the frame header, then each control frame's parser.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ReadFrame reads the next frame. Errors are:
//   - *StreamError: the frame was consumed (and header compression state kept
//     in sync); the session should RST the stream and continue. The frame
//     is returned as well when it could be decoded.
//   - *SessionError: the session must send GOAWAY and close.
//   - anything else: an I/O error from the reader.
//
// A frame is refused as soon as its header shows it must be (a length over
// MaxReadFrameSize, a control frame of another version, DATA on stream 0 or
// one the session gate refuses), without waiting for a payload a garbage
// or hostile peer may never send. A refused DATA frame whose stream error
// leaves the session alive has its payload discarded, as it arrives, at the
// start of the next ReadFrame.
func (f *Framer) ReadFrame() (Frame, error) {
	if err := f.skipPending(); err != nil {
		return nil, err
	}
	if f.stall != nil {
		if err := f.stall.begin(); err != nil {
			return nil, err
		}
		defer f.stall.end()
	}
	var hdr [frameHeaderLen]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return nil, err
	}
	length := int(hdr[5])<<16 | int(hdr[6])<<8 | int(hdr[7])
	flags := hdr[4]
	if hdr[0]&0x80 == 0 {
		return f.readData(binary.BigEndian.Uint32(hdr[0:4])&0x7fffffff, flags, length)
	}
	version := binary.BigEndian.Uint16(hdr[0:2]) & 0x7fff
	typ := FrameType(binary.BigEndian.Uint16(hdr[2:4]))
	if version != f.version && f.version != Version2 && typ != TypeSynStream {
		// Known from the header alone; draft 2 ignores such frames and
		// another version's SYN_STREAM is a stream error (below).
		return nil, sessionErrorf("%s frame with unsupported version %d", typ, version)
	}
	if length > f.readCap() {
		return nil, f.refuseOversizeControl(typ, version, length)
	}
	p, err := f.readPayload(length)
	if err != nil {
		return nil, err
	}
	if version != f.version {
		return f.otherVersionControl(typ, version, flags, p)
	}
	return f.parseControl(typ, flags, p)
}

// skipPending discards the payload of a DATA frame refused at its header,
// under the stall deadline: the frame has begun, so its rest must arrive in time.
func (f *Framer) skipPending() error {
	if f.pending == 0 {
		return nil
	}
	n := f.pending
	f.pending = 0
	if f.stall != nil {
		f.stall.need(n)
		defer f.stall.end()
	}
	if _, err := io.CopyN(io.Discard, f.r, int64(n)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// readPayload reads a frame's length bytes into the read buffer.
func (f *Framer) readPayload(length int) ([]byte, error) {
	if f.stall != nil {
		f.stall.need(length)
	}
	if cap(f.rb) < length {
		f.rb = make([]byte, length)
	}
	p := f.rb[:length]
	if _, err := io.ReadFull(f.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return p, nil
}

// readData reads a DATA frame after its header. A frame over the size cap
// on an open stream is a stream error (FRAME_TOO_LARGE; its payload is
// skipped later); on a stream the session does not know it is not SPDY
// framing worth skipping megabytes for (garbage, or a peer that lies about
// lengths): the session ends at once. A frame for a stream the gate says is
// not open is returned without its payload (skipped, Data nil) so that the
// session answers it (INVALID_STREAM) before the payload arrives; so is one
// the gate refuses with a stream error (more than the stream's window).
func (f *Framer) readData(id uint32, flags uint8, length int) (Frame, error) {
	if id == 0 {
		return nil, sessionErrorf("DATA frame on stream 0")
	}
	open := true
	var refused error // the gate's stream error: told after FRAME_TOO_LARGE, the more specific
	if f.dataGate != nil {
		var err error
		if open, err = f.dataGate(id, length); err != nil {
			var se *StreamError
			if !errors.As(err, &se) {
				return nil, err
			}
			refused = err
		}
	}
	if length > f.readCap() {
		if !open {
			return nil, sessionErrorf("DATA frame of %d bytes for stream %d, which is not open, exceeds the %d byte limit", length, id, f.readCap())
		}
		f.pending = length
		return &DataFrame{Stream: id, Flags: flags, skipped: length}, &StreamError{Stream: id, Status: RstFrameTooLarge,
			Reason: fmt.Sprintf("DATA frame of %d bytes exceeds the %d byte limit", length, f.readCap())}
	}
	if !open || refused != nil {
		f.pending = length
		return &DataFrame{Stream: id, Flags: flags, skipped: length}, refused
	}
	p, err := f.readPayload(length)
	if err != nil {
		return nil, err
	}
	return &DataFrame{Stream: id, Flags: flags, Data: p}, nil
}

// refuseOversizeControl is the session error for a control frame over the
// size cap, decided from its header. A header block left unread is lost to
// the decompressor, so the compression contexts diverge: a SYN_STREAM,
// SYN_REPLY or HEADERS of our version gets FRAME_TOO_LARGE for its stream
// (the id is the payload's first 4 bytes, sent with the header), then the
// session ends.
func (f *Framer) refuseOversizeControl(typ FrameType, version uint16, length int) error {
	reason := fmt.Sprintf("%s frame of %d bytes exceeds the %d byte limit", typ, length, f.readCap())
	headerFrame := typ == TypeSynStream || typ == TypeSynReply || typ == TypeHeaders
	if !headerFrame || version != f.version {
		return &SessionError{Status: GoAwayProtocolError, Reason: reason}
	}
	var idb [4]byte
	if _, err := io.ReadFull(f.r, idb[:]); err != nil {
		return err
	}
	return &SessionError{Status: GoAwayProtocolError, Reason: reason,
		RstStream: binary.BigEndian.Uint32(idb[:]) & 0x7fffffff, RstStatus: RstFrameTooLarge}
}

// otherVersionControl answers a control frame of another version whose
// payload was read: only a SYN_STREAM (any framer) or any frame on a
// draft 2 framer reaches here.
func (f *Framer) otherVersionControl(typ FrameType, version uint16, flags uint8, p []byte) (Frame, error) {
	if typ == TypeSynStream && len(p) >= 4 {
		// The header block belongs to the other version's compression
		// context, not to ours, so skipping it leaves our context in
		// sync: refuse the stream with UNSUPPORTED_VERSION (2.6.3) and
		// carry on (2.4.2: a stream error does not close the session).
		id := binary.BigEndian.Uint32(p[0:4]) & 0x7fffffff
		if id == 0 {
			return nil, sessionErrorf("SYN_STREAM with unsupported version %d on stream 0", version)
		}
		return &SynStreamFrame{Stream: id}, &StreamError{Stream: id, Status: RstUnsupportedVersion,
			Reason: fmt.Sprintf("SYN_STREAM with unsupported version %d", version)}
	}
	if f.version == Version2 {
		// Draft 2 ("Protocol versioning"): any other control frame
		// of another version must be ignored.
		return &UnknownFrame{FrameType: typ, Flags: flags, Length: len(p), Version: version}, nil
	}
	return nil, sessionErrorf("%s frame with unsupported version %d", typ, version)
}

func fixedLen(typ FrameType, p []byte, want int) error {
	if len(p) != want {
		return sessionErrorf("%s frame length %d, want %d", typ, len(p), want)
	}
	return nil
}

func (f *Framer) parseControl(typ FrameType, flags uint8, p []byte) (Frame, error) {
	be := binary.BigEndian
	switch typ {
	case TypeSynStream:
		return f.parseSynStream(flags, p)
	case TypeSynReply, TypeHeaders:
		return f.parseReplyOrHeaders(typ, flags, p)
	case TypeRstStream:
		return parseRstStream(p)
	case TypeSettings:
		return f.parseSettings(flags, p)
	case TypePing:
		if err := fixedLen(typ, p, 4); err != nil {
			return nil, err
		}
		return &PingFrame{ID: be.Uint32(p)}, nil
	case TypeGoAway:
		return f.parseGoAway(p)
	case TypeWindowUpdate:
		if err := fixedLen(typ, p, 8); err != nil {
			return nil, err
		}
		fr := &WindowUpdateFrame{Stream: be.Uint32(p[0:4]) & 0x7fffffff, Delta: be.Uint32(p[4:8]) & 0x7fffffff}
		return fr, nil
	case TypeNoop:
		if f.version != Version2 {
			break // not a SPDY/3 frame type: unknown, ignored
		}
		if err := fixedLen(typ, p, 0); err != nil {
			return nil, err
		}
		return &NoopFrame{}, nil
	case TypeCredential:
		if f.version == Version2 {
			break
		}
		return parseCredential(p)
	}
	return &UnknownFrame{FrameType: typ, Flags: flags, Length: len(p)}, nil
}

func (f *Framer) parseSynStream(flags uint8, p []byte) (Frame, error) {
	be := binary.BigEndian
	if len(p) < 10 {
		return nil, sessionErrorf("SYN_STREAM frame length %d, want at least 10", len(p))
	}
	fr := &SynStreamFrame{
		Stream:       be.Uint32(p[0:4]) & 0x7fffffff,
		AssociatedTo: be.Uint32(p[4:8]) & 0x7fffffff,
		Priority:     p[8] >> 5,
		Slot:         p[9],
		Flags:        flags,
	}
	if f.version == Version2 {
		fr.Priority, fr.Slot = p[8]>>6<<1, 0
	}
	h, sz, err := f.dec.decode(p[10:], fr.Stream)
	fr.Headers, fr.Size = h, sz
	if err != nil {
		return fr, err
	}
	return fr, nil
}

func (f *Framer) parseReplyOrHeaders(typ FrameType, flags uint8, p []byte) (Frame, error) {
	start := 4
	if f.version == Version2 {
		start = 6 // two unused bytes after the stream id
	}
	if len(p) < start {
		return nil, sessionErrorf("%s frame length %d, want at least %d", typ, len(p), start)
	}
	id := binary.BigEndian.Uint32(p[0:4]) & 0x7fffffff
	h, sz, err := f.dec.decode(p[start:], id)
	var fr Frame
	if typ == TypeSynReply {
		fr = &SynReplyFrame{Stream: id, Flags: flags, Headers: h, Size: sz}
	} else {
		fr = &HeadersFrame{Stream: id, Flags: flags, Headers: h, Size: sz}
	}
	return fr, err
}

func parseRstStream(p []byte) (Frame, error) {
	be := binary.BigEndian
	if err := fixedLen(TypeRstStream, p, 8); err != nil {
		return nil, err
	}
	fr := &RstStreamFrame{Stream: be.Uint32(p[0:4]) & 0x7fffffff, Status: RstStatus(be.Uint32(p[4:8]))}
	if fr.Stream == 0 {
		return nil, sessionErrorf("RST_STREAM on stream 0")
	}
	// Status 0 is not defined (2.6.3), but the frame still says the
	// stream is over: treat it like any unknown status, a stream reset,
	// rather than ending every other stream's session with it.
	return fr, nil
}

func (f *Framer) parseGoAway(p []byte) (Frame, error) {
	be := binary.BigEndian
	if f.version == Version2 && len(p) != 8 {
		// Draft 2's GOAWAY is the last-good id alone; node-spdy sends
		// SPDY/3's 8 bytes in v2 as well, so both are accepted.
		if err := fixedLen(TypeGoAway, p, 4); err != nil {
			return nil, err
		}
		return &GoAwayFrame{LastGoodStream: be.Uint32(p[0:4]) & 0x7fffffff}, nil
	}
	if err := fixedLen(TypeGoAway, p, 8); err != nil {
		return nil, err
	}
	return &GoAwayFrame{LastGoodStream: be.Uint32(p[0:4]) & 0x7fffffff, Status: GoAwayStatus(be.Uint32(p[4:8]))}, nil
}

// parseSettings reads a SETTINGS payload; draft 2 puts the 24-bit id
// little-endian before the flags byte.
func (f *Framer) parseSettings(flags uint8, p []byte) (Frame, error) {
	be := binary.BigEndian
	if len(p) < 4 {
		return nil, sessionErrorf("SETTINGS frame length %d, want at least 4", len(p))
	}
	n := be.Uint32(p[0:4])
	if uint64(len(p)) != 4+8*uint64(n) {
		return nil, sessionErrorf("SETTINGS frame with %d entries has length %d, want %d", n, len(p), 4+8*uint64(n))
	}
	fr := &SettingsFrame{Flags: flags, Entries: make([]Setting, 0, n)}
	seen := map[SettingID]bool{}
	for i := 0; i < int(n); i++ {
		e := p[4+8*i:]
		s := Setting{Flags: e[0], ID: SettingID(uint32(e[1])<<16 | uint32(e[2])<<8 | uint32(e[3])), Value: be.Uint32(e[4:8])}
		if f.version == Version2 {
			// Draft 2: the id is little-endian and the flags follow it
			// (a bug of the first implementation, kept by all).
			s.Flags, s.ID = e[3], SettingID(uint32(e[0])|uint32(e[1])<<8|uint32(e[2])<<16)
		}
		if seen[s.ID] { // section 2.6.4: only the first value of an id counts
			continue
		}
		seen[s.ID] = true
		fr.Entries = append(fr.Entries, s)
	}
	return fr, nil
}

func parseCredential(p []byte) (Frame, error) {
	be := binary.BigEndian
	fr := &CredentialFrame{}
	if len(p) < 6 {
		return nil, sessionErrorf("CREDENTIAL frame length %d, want at least 6", len(p))
	}
	fr.Slot = be.Uint16(p[0:2])
	plen := be.Uint32(p[2:6])
	rest := p[6:]
	if uint64(plen) > uint64(len(rest)) {
		return nil, sessionErrorf("CREDENTIAL proof length %d exceeds frame", plen)
	}
	fr.Proof = append([]byte(nil), rest[:plen]...)
	rest = rest[plen:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return nil, sessionErrorf("CREDENTIAL certificate length truncated")
		}
		cl := be.Uint32(rest)
		rest = rest[4:]
		if uint64(cl) > uint64(len(rest)) {
			return nil, sessionErrorf("CREDENTIAL certificate length %d exceeds frame", cl)
		}
		fr.Certificates = append(fr.Certificates, append([]byte(nil), rest[:cl]...))
		rest = rest[cl:]
	}
	return fr, nil
}
