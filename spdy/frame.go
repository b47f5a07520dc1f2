package spdy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Version is the SPDY version carried in every control frame. SPDY/3.1 keeps
// version 3 on the wire; only ALPN/NPN tells the two apart.
const Version = 3

// Version2 is the wire version of SPDY/2 ("SPDY Protocol - Draft 2"). A
// Framer made with NewFramerVersion(Version2, ...) speaks it: 16-bit header
// block fields, its own zlib dictionary, 2-bit priorities, two unused bytes
// after the stream id of SYN_REPLY and HEADERS, a GOAWAY without status,
// little-endian SETTINGS ids, and NOOP.
const Version2 = 2

// FrameType identifies a frame. Control frames use their wire type (1..10);
// DATA frames, which have no type field, are TypeData.
type FrameType uint16

const (
	TypeData         FrameType = 0
	TypeSynStream    FrameType = 1
	TypeSynReply     FrameType = 2
	TypeRstStream    FrameType = 3
	TypeSettings     FrameType = 4
	TypeNoop         FrameType = 5 // SPDY/2 only
	TypePing         FrameType = 6
	TypeGoAway       FrameType = 7
	TypeHeaders      FrameType = 8
	TypeWindowUpdate FrameType = 9
	TypeCredential   FrameType = 10 // SPDY/3 only; removed in 3.1
)

var frameTypeNames = map[FrameType]string{
	TypeData: "DATA", TypeSynStream: "SYN_STREAM", TypeSynReply: "SYN_REPLY",
	TypeRstStream: "RST_STREAM", TypeSettings: "SETTINGS", TypePing: "PING",
	TypeGoAway: "GOAWAY", TypeHeaders: "HEADERS", TypeWindowUpdate: "WINDOW_UPDATE",
	TypeCredential: "CREDENTIAL", TypeNoop: "NOOP",
}

func (t FrameType) String() string {
	if s, ok := frameTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("UNKNOWN(%d)", uint16(t))
}

// Frame flags. FIN is shared by DATA, SYN_STREAM, SYN_REPLY and HEADERS.
const (
	FlagFin              uint8 = 0x01
	FlagUnidirectional   uint8 = 0x02 // SYN_STREAM
	FlagDataCompress     uint8 = 0x02 // DATA (per-stream zlib; never sent by this package)
	FlagSettingsClear    uint8 = 0x01 // SETTINGS frame flag
	FlagSettingPersist   uint8 = 0x01 // per-entry flag, server -> client
	FlagSettingPersisted uint8 = 0x02 // per-entry flag, client -> server
)

// RstStatus is the status code of a RST_STREAM frame.
type RstStatus uint32

const (
	RstProtocolError       RstStatus = 1
	RstInvalidStream       RstStatus = 2
	RstRefusedStream       RstStatus = 3
	RstUnsupportedVersion  RstStatus = 4
	RstCancel              RstStatus = 5
	RstInternalError       RstStatus = 6
	RstFlowControlError    RstStatus = 7
	RstStreamInUse         RstStatus = 8
	RstStreamAlreadyClosed RstStatus = 9
	RstInvalidCredentials  RstStatus = 10
	RstFrameTooLarge       RstStatus = 11
)

var rstNames = []string{"", "PROTOCOL_ERROR", "INVALID_STREAM", "REFUSED_STREAM", "UNSUPPORTED_VERSION",
	"CANCEL", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "STREAM_IN_USE", "STREAM_ALREADY_CLOSED",
	"INVALID_CREDENTIALS", "FRAME_TOO_LARGE"}

func (s RstStatus) String() string {
	if s > 0 && int(s) < len(rstNames) {
		return rstNames[s]
	}
	return fmt.Sprintf("RST_STATUS(%d)", uint32(s))
}

// GoAwayStatus is the status code of a GOAWAY frame. SPDY/3.1 defines 0, 1
// and 2; the SPDY/3 draft numbered INTERNAL_ERROR 11, which the session uses
// when it speaks spdy/3.
type GoAwayStatus uint32

const (
	GoAwayOK              GoAwayStatus = 0
	GoAwayProtocolError   GoAwayStatus = 1
	GoAwayInternalError   GoAwayStatus = 2
	GoAwayInternalErrorV3 GoAwayStatus = 11
)

func (s GoAwayStatus) String() string {
	switch s {
	case GoAwayOK:
		return "OK"
	case GoAwayProtocolError:
		return "PROTOCOL_ERROR"
	case GoAwayInternalError, GoAwayInternalErrorV3:
		return "INTERNAL_ERROR"
	}
	return fmt.Sprintf("GOAWAY_STATUS(%d)", uint32(s))
}

// SettingID names a SETTINGS entry (24-bit id on the wire).
type SettingID uint32

const (
	SettingUploadBandwidth      SettingID = 1
	SettingDownloadBandwidth    SettingID = 2
	SettingRoundTripTime        SettingID = 3
	SettingMaxConcurrentStreams SettingID = 4
	SettingCurrentCwnd          SettingID = 5
	SettingDownloadRetransRate  SettingID = 6
	SettingInitialWindowSize    SettingID = 7
	SettingClientCertVectorSize SettingID = 8
)

var settingNames = []string{"", "UPLOAD_BANDWIDTH", "DOWNLOAD_BANDWIDTH", "ROUND_TRIP_TIME",
	"MAX_CONCURRENT_STREAMS", "CURRENT_CWND", "DOWNLOAD_RETRANS_RATE", "INITIAL_WINDOW_SIZE",
	"CLIENT_CERTIFICATE_VECTOR_SIZE"}

func (id SettingID) String() string {
	if id > 0 && int(id) < len(settingNames) {
		return settingNames[id]
	}
	return fmt.Sprintf("SETTING(%d)", uint32(id))
}

// Setting is one SETTINGS entry.
type Setting struct {
	ID    SettingID
	Flags uint8 // FlagSettingPersist / FlagSettingPersisted
	Value uint32
}

// Frame is one decoded or to-be-encoded SPDY frame.
type Frame interface {
	Type() FrameType
	// StreamID is the stream the frame belongs to; 0 for session frames.
	StreamID() uint32
	// String is a one-line human-readable rendering (type, stream, flags,
	// lengths, header names) used by frame traces.
	String() string
}

// BlockSize records the two sizes of one name/value header block: Raw is the
// uncompressed SPDY encoding, Compressed what crossed the wire.
type BlockSize struct {
	Raw        int
	Compressed int
}

// DataFrame carries stream payload. On read, Data aliases the framer's
// buffer and is valid only until the next ReadFrame.
type DataFrame struct {
	Stream uint32
	Flags  uint8
	Data   []byte

	skipped int // payload length of an oversize frame the framer discarded
}

// SynStreamFrame opens a stream.
type SynStreamFrame struct {
	Stream       uint32
	AssociatedTo uint32
	// Priority is 0 (highest) .. 7. SPDY/2 has two bits: the wire carries
	// Priority>>1 and a received v2 priority p reads as 2p, the way
	// node-spdy maps its 3-bit priorities onto SPDY/2.
	Priority uint8
	Slot     uint8 // SPDY/3 credential slot; unused (0) in SPDY/2
	Flags    uint8
	Headers  Header
	Size     BlockSize // filled by the framer
}

// SynReplyFrame accepts a stream.
type SynReplyFrame struct {
	Stream  uint32
	Flags   uint8
	Headers Header
	Size    BlockSize
}

// RstStreamFrame aborts a stream.
type RstStreamFrame struct {
	Stream uint32
	Status RstStatus
}

// SettingsFrame carries configuration.
type SettingsFrame struct {
	Flags   uint8
	Entries []Setting
}

// PingFrame measures round trips.
type PingFrame struct{ ID uint32 }

// NoopFrame is SPDY/2's no-operation frame (type 5), read and ignored.
type NoopFrame struct{}

// GoAwayFrame stops new streams. SPDY/2's GOAWAY has no status (it reads
// as GoAwayOK and is not sent).
type GoAwayFrame struct {
	LastGoodStream uint32
	Status         GoAwayStatus
}

// HeadersFrame adds headers to an open stream.
type HeadersFrame struct {
	Stream  uint32
	Flags   uint8
	Headers Header
	Size    BlockSize
}

// WindowUpdateFrame opens a flow-control window; Stream 0 is the session
// window (SPDY/3.1).
type WindowUpdateFrame struct {
	Stream uint32
	Delta  uint32
}

// CredentialFrame is SPDY/3's client-certificate frame. It is parsed so it
// can be traced and ignored; this package never sends it.
type CredentialFrame struct {
	Slot         uint16
	Proof        []byte
	Certificates [][]byte
}

// UnknownFrame is a control frame of a type this package does not know. The
// spec requires such frames to be read and ignored. A SPDY/2 framer also
// reads a control frame of another version, other than SYN_STREAM, as an
// UnknownFrame with that Version (draft 2: such frames are ignored).
type UnknownFrame struct {
	FrameType FrameType
	Flags     uint8
	Length    int
	Version   uint16 // non-zero: the frame's version, not the session's
}

func (f *DataFrame) Type() FrameType         { return TypeData }
func (f *SynStreamFrame) Type() FrameType    { return TypeSynStream }
func (f *SynReplyFrame) Type() FrameType     { return TypeSynReply }
func (f *RstStreamFrame) Type() FrameType    { return TypeRstStream }
func (f *SettingsFrame) Type() FrameType     { return TypeSettings }
func (f *PingFrame) Type() FrameType         { return TypePing }
func (f *GoAwayFrame) Type() FrameType       { return TypeGoAway }
func (f *HeadersFrame) Type() FrameType      { return TypeHeaders }
func (f *WindowUpdateFrame) Type() FrameType { return TypeWindowUpdate }
func (f *CredentialFrame) Type() FrameType   { return TypeCredential }
func (f *UnknownFrame) Type() FrameType      { return f.FrameType }
func (f *NoopFrame) Type() FrameType         { return TypeNoop }
func (f *NoopFrame) StreamID() uint32        { return 0 }
func (f *NoopFrame) String() string          { return "NOOP" }

func (f *DataFrame) StreamID() uint32         { return f.Stream }
func (f *SynStreamFrame) StreamID() uint32    { return f.Stream }
func (f *SynReplyFrame) StreamID() uint32     { return f.Stream }
func (f *RstStreamFrame) StreamID() uint32    { return f.Stream }
func (f *SettingsFrame) StreamID() uint32     { return 0 }
func (f *PingFrame) StreamID() uint32         { return 0 }
func (f *GoAwayFrame) StreamID() uint32       { return 0 }
func (f *HeadersFrame) StreamID() uint32      { return f.Stream }
func (f *WindowUpdateFrame) StreamID() uint32 { return f.Stream }
func (f *CredentialFrame) StreamID() uint32   { return 0 }
func (f *UnknownFrame) StreamID() uint32      { return 0 }

func flagString(flags uint8, names ...string) string {
	var parts []string
	for i, n := range names {
		if n != "" && flags&(1<<i) != 0 {
			parts = append(parts, n)
			flags &^= 1 << i
		}
	}
	if flags != 0 {
		parts = append(parts, fmt.Sprintf("0x%02x", flags))
	}
	if len(parts) == 0 {
		return ""
	}
	return " flags=" + strings.Join(parts, "|")
}

func (f *DataFrame) String() string {
	return fmt.Sprintf("DATA stream=%d len=%d%s", f.Stream, len(f.Data), flagString(f.Flags, "FIN", "COMPRESS"))
}

func headerSummary(h Header, sz BlockSize) string {
	return fmt.Sprintf(" headers=%d/%dB [%s]", sz.Compressed, sz.Raw, strings.Join(h.names(), " "))
}

func (f *SynStreamFrame) String() string {
	s := fmt.Sprintf("SYN_STREAM stream=%d", f.Stream)
	if f.AssociatedTo != 0 {
		s += fmt.Sprintf(" assoc=%d", f.AssociatedTo)
	}
	return s + fmt.Sprintf(" pri=%d%s", f.Priority, flagString(f.Flags, "FIN", "UNIDIRECTIONAL")) + headerSummary(f.Headers, f.Size)
}

func (f *SynReplyFrame) String() string {
	return fmt.Sprintf("SYN_REPLY stream=%d%s", f.Stream, flagString(f.Flags, "FIN")) + headerSummary(f.Headers, f.Size)
}

func (f *HeadersFrame) String() string {
	return fmt.Sprintf("HEADERS stream=%d%s", f.Stream, flagString(f.Flags, "FIN")) + headerSummary(f.Headers, f.Size)
}

func (f *RstStreamFrame) String() string {
	return fmt.Sprintf("RST_STREAM stream=%d status=%s", f.Stream, f.Status)
}

func (f *SettingsFrame) String() string {
	var b strings.Builder
	b.WriteString("SETTINGS")
	b.WriteString(flagString(f.Flags, "CLEAR_SETTINGS"))
	for _, e := range f.Entries {
		fmt.Fprintf(&b, " %s=%d", e.ID, e.Value)
		if e.Flags&FlagSettingPersist != 0 {
			b.WriteString("(persist)")
		}
		if e.Flags&FlagSettingPersisted != 0 {
			b.WriteString("(persisted)")
		}
	}
	return b.String()
}

func (f *PingFrame) String() string { return fmt.Sprintf("PING id=%d", f.ID) }

func (f *GoAwayFrame) String() string {
	return fmt.Sprintf("GOAWAY last_good_stream=%d status=%s", f.LastGoodStream, f.Status)
}

func (f *WindowUpdateFrame) String() string {
	return fmt.Sprintf("WINDOW_UPDATE stream=%d delta=%d", f.Stream, f.Delta)
}

func (f *CredentialFrame) String() string {
	return fmt.Sprintf("CREDENTIAL slot=%d proof=%dB certs=%d", f.Slot, len(f.Proof), len(f.Certificates))
}

func (f *UnknownFrame) String() string {
	if f.Version != 0 {
		return fmt.Sprintf("IGNORED %s version=%d len=%d%s", f.FrameType, f.Version, f.Length, flagString(f.Flags))
	}
	return fmt.Sprintf("UNKNOWN type=%d len=%d%s", uint16(f.FrameType), f.Length, flagString(f.Flags))
}

// StreamError is a problem confined to one stream: the session answers it
// with RST_STREAM(Status) and carries on.
type StreamError struct {
	Stream uint32
	Status RstStatus
	Reason string
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("spdy: stream %d: %s: %s", e.Stream, e.Status, e.Reason)
}

// SessionError is a problem that ends the session: the session answers it
// with GOAWAY(Status) and closes the connection. When RstStream is non-zero a
// RST_STREAM(RstStatus) for that stream precedes the GOAWAY (for example
// FRAME_TOO_LARGE for a header frame the framer could not decompress).
type SessionError struct {
	Status    GoAwayStatus
	Reason    string
	RstStream uint32
	RstStatus RstStatus
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("spdy: session error %s: %s", e.Status, e.Reason)
}

func sessionErrorf(format string, args ...any) *SessionError {
	return &SessionError{Status: GoAwayProtocolError, Reason: fmt.Sprintf(format, args...)}
}

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

	// MaxReadFrameSize caps the length of a received frame; longer frames
	// are skipped without being buffered and reported as FRAME_TOO_LARGE.
	MaxReadFrameSize int

	enc *headerEncoder
	dec *headerDecoder

	stall *stallGuard // set by sessions: a deadline for frames cut short

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

// ErrInvalidStreamID is returned when asked to write a frame with a stream id
// that does not fit in 31 bits or is 0 where a stream is required.
var ErrInvalidStreamID = errors.New("spdy: invalid stream id")

// WriteFrame encodes f into the write buffer. Header blocks are compressed
// with the session's send context, so frames must be written in wire order.
// Header frames have their Size filled in.
func (f *Framer) WriteFrame(fr Frame) error {
	switch fr := fr.(type) {
	case *DataFrame:
		if fr.Stream == 0 || fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		if len(fr.Data) > MaxFrameLength {
			return fmt.Errorf("spdy: DATA payload of %d bytes exceeds the 24-bit length field", len(fr.Data))
		}
		var hdr [frameHeaderLen]byte
		binary.BigEndian.PutUint32(hdr[0:4], fr.Stream)
		hdr[4] = fr.Flags
		n := len(fr.Data)
		hdr[5], hdr[6], hdr[7] = byte(n>>16), byte(n>>8), byte(n)
		if _, err := f.w.Write(hdr[:]); err != nil {
			return err
		}
		_, err := f.w.Write(fr.Data)
		return err
	case *SynStreamFrame:
		return f.writeSynStream(fr)
	case *SynReplyFrame:
		return f.writeHeaderFrame(TypeSynReply, fr.Stream, fr.Flags, fr.Headers, &fr.Size)
	case *HeadersFrame:
		return f.writeHeaderFrame(TypeHeaders, fr.Stream, fr.Flags, fr.Headers, &fr.Size)
	case *RstStreamFrame:
		if fr.Stream == 0 || fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		f.startControl(TypeRstStream, 0)
		f.putU32(fr.Stream)
		status := fr.Status
		if f.version == Version2 && status > RstFlowControlError {
			// Draft 2 defines codes 1-7 only; the later ones are all
			// protocol errors to a v2 peer.
			status = RstProtocolError
		}
		f.putU32(uint32(status))
		return f.finish()
	case *SettingsFrame:
		return f.writeSettings(fr)
	case *PingFrame:
		f.startControl(TypePing, 0)
		f.putU32(fr.ID)
		return f.finish()
	case *GoAwayFrame:
		f.startControl(TypeGoAway, 0)
		f.putU32(fr.LastGoodStream & 0x7fffffff)
		if f.version != Version2 {
			f.putU32(uint32(fr.Status))
		}
		return f.finish()
	case *NoopFrame:
		if f.version != Version2 {
			return errors.New("spdy: NOOP is a SPDY/2 frame")
		}
		f.startControl(TypeNoop, 0)
		return f.finish()
	case *WindowUpdateFrame:
		// Draft 2 dropped WINDOW_UPDATE, but node-spdy sends it with
		// version 2, so a v2 framer writes it too (sessions decide).
		if fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		if fr.Delta == 0 || fr.Delta > 0x7fffffff {
			return fmt.Errorf("spdy: WINDOW_UPDATE delta %d outside 1..2^31-1", fr.Delta)
		}
		f.startControl(TypeWindowUpdate, 0)
		f.putU32(fr.Stream)
		f.putU32(fr.Delta)
		return f.finish()
	case *CredentialFrame:
		if f.version == Version2 {
			return errors.New("spdy: CREDENTIAL is not a SPDY/2 frame")
		}
		f.startControl(TypeCredential, 0)
		f.wb = binary.BigEndian.AppendUint16(f.wb, fr.Slot)
		f.putU32(uint32(len(fr.Proof)))
		f.wb = append(f.wb, fr.Proof...)
		for _, c := range fr.Certificates {
			f.putU32(uint32(len(c)))
			f.wb = append(f.wb, c...)
		}
		return f.finish()
	}
	return fmt.Errorf("spdy: cannot write frame of type %T", fr)
}

func (f *Framer) writeSynStream(fr *SynStreamFrame) error {
	if fr.Stream == 0 || fr.Stream > 0x7fffffff || fr.AssociatedTo > 0x7fffffff {
		return ErrInvalidStreamID
	}
	if fr.Priority > 7 {
		return fmt.Errorf("spdy: priority %d out of range 0-7", fr.Priority)
	}
	f.startControl(TypeSynStream, fr.Flags)
	f.putU32(fr.Stream)
	f.putU32(fr.AssociatedTo)
	if f.version == Version2 {
		f.wb = append(f.wb, fr.Priority>>1<<6, 0)
	} else {
		f.wb = append(f.wb, fr.Priority<<5, fr.Slot)
	}
	var err error
	if f.wb, fr.Size, err = f.enc.encode(f.wb, fr.Headers); err != nil {
		return err
	}
	return f.finish()
}

// writeSettings writes entries lowest id first; draft 2 puts the 24-bit id
// little-endian before the flags byte.
func (f *Framer) writeSettings(fr *SettingsFrame) error {
	f.startControl(TypeSettings, fr.Flags)
	f.putU32(uint32(len(fr.Entries)))
	entries := append([]Setting(nil), fr.Entries...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID }) // spec: lowest id first
	for _, e := range entries {
		if e.ID > 0xffffff {
			return fmt.Errorf("spdy: setting id %d does not fit in 24 bits", e.ID)
		}
		if f.version == Version2 {
			f.wb = binary.LittleEndian.AppendUint32(f.wb, uint32(e.Flags)<<24|uint32(e.ID))
		} else {
			f.putU32(uint32(e.Flags)<<24 | uint32(e.ID))
		}
		f.putU32(e.Value)
	}
	return f.finish()
}

func (f *Framer) writeHeaderFrame(typ FrameType, id uint32, flags uint8, h Header, size *BlockSize) error {
	if id == 0 || id > 0x7fffffff {
		return ErrInvalidStreamID
	}
	f.startControl(typ, flags)
	f.putU32(id)
	if f.version == Version2 {
		f.wb = append(f.wb, 0, 0) // unused
	}
	var err error
	if f.wb, *size, err = f.enc.encode(f.wb, h); err != nil {
		return err
	}
	return f.finish()
}
