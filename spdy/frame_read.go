package spdy

// Reading frames: the frame header, then each control frame's parser.

import (
	"encoding/binary"
	"fmt"
	"io"
)

// ReadFrame reads the next frame. Errors are:
//   - *StreamError: the frame was consumed (and header compression state kept
//     in sync); the session should RST the stream and continue. The frame
//     is returned as well when it could be decoded.
//   - *SessionError: the session must send GOAWAY and close.
//   - anything else: an I/O error from the reader.
func (f *Framer) ReadFrame() (Frame, error) {
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
	if f.stall != nil {
		f.stall.need(length)
	}
	flags := hdr[4]
	control := hdr[0]&0x80 != 0
	if length > f.readCap() {
		// Skip the payload without buffering it, keeping the reader aligned.
		// A stream id is at the start of every stream frame's payload.
		var idb [4]byte
		n := 0
		if length >= 4 {
			if _, err := io.ReadFull(f.r, idb[:]); err != nil {
				return nil, err
			}
			n = 4
		}
		if _, err := io.CopyN(io.Discard, f.r, int64(length-n)); err != nil {
			return nil, err
		}
		if !control {
			id := binary.BigEndian.Uint32(hdr[0:4]) & 0x7fffffff
			return &DataFrame{Stream: id, Flags: flags, skipped: length}, &StreamError{Stream: id, Status: RstFrameTooLarge,
				Reason: fmt.Sprintf("DATA frame of %d bytes exceeds the %d byte limit", length, f.readCap())}
		}
		typ := FrameType(binary.BigEndian.Uint16(hdr[2:4]))
		reason := fmt.Sprintf("%s frame of %d bytes exceeds the %d byte limit", typ, length, f.readCap())
		if typ == TypeSynStream || typ == TypeSynReply || typ == TypeHeaders {
			// The skipped header block is lost to the decompressor, so the
			// compression contexts diverge: FRAME_TOO_LARGE, then the session ends.
			return nil, &SessionError{Status: GoAwayProtocolError, Reason: reason,
				RstStream: binary.BigEndian.Uint32(idb[:]) & 0x7fffffff, RstStatus: RstFrameTooLarge}
		}
		return nil, &SessionError{Status: GoAwayProtocolError, Reason: reason}
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
	if !control {
		id := binary.BigEndian.Uint32(hdr[0:4]) & 0x7fffffff
		if id == 0 {
			return nil, sessionErrorf("DATA frame on stream 0")
		}
		return &DataFrame{Stream: id, Flags: flags, Data: p}, nil
	}
	version := binary.BigEndian.Uint16(hdr[0:2]) & 0x7fff
	typ := FrameType(binary.BigEndian.Uint16(hdr[2:4]))
	if version != f.version {
		if typ == TypeSynStream && length >= 4 {
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
			return &UnknownFrame{FrameType: typ, Flags: flags, Length: length, Version: version}, nil
		}
		return nil, sessionErrorf("%s frame with unsupported version %d", typ, version)
	}
	return f.parseControl(typ, flags, p)
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
