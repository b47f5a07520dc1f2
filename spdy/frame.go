package spdy

import "fmt"

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

	skipped int // payload length the framer discards unread (oversize, or no stream takes it)
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
