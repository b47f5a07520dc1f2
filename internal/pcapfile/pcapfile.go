// Package pcapfile writes and reads classic libpcap capture files (the
// format tcpdump -w writes and every packet tool reads): a 24-byte file
// header, then per packet a 16-byte record header and the captured bytes.
// The lab's captures come from TUN devices, whose packets are raw IP with
// no link-layer header, so they use LINKTYPE_RAW. Writing is appending to a
// byte slice, so the emulator can record packets on its real-time threads
// without a system call; reading exists for tests and tools and accepts
// both byte orders and nanosecond files, as libpcap does.
package pcapfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// File format constants (https://www.tcpdump.org/manpages/pcap-savefile.5.html).
const (
	MagicMicros    = 0xa1b2c3d4 // timestamps in microseconds
	MagicNanos     = 0xa1b23c4d // timestamps in nanoseconds
	VersionMajor   = 2
	VersionMinor   = 4
	LinkTypeRaw    = 101    // LINKTYPE_RAW: the packet starts with its IPv4 or IPv6 header
	DefaultSnapLen = 262144 // tcpdump's default: every packet whole
	FileHeaderLen  = 24
	RecordHeadLen  = 16
)

// maxSnapLen bounds the snapshot length a reader accepts, so that a
// corrupt record length cannot make it allocate gigabytes.
const maxSnapLen = 1 << 20

// AppendFileHeader appends the file header for micro-second timestamps in
// little-endian order (readers detect the order from the magic number).
func AppendFileHeader(dst []byte, snapLen, linkType uint32) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, MagicMicros)
	dst = le.AppendUint16(dst, VersionMajor)
	dst = le.AppendUint16(dst, VersionMinor)
	dst = le.AppendUint32(dst, 0) // thiszone: timestamps are UTC
	dst = le.AppendUint32(dst, 0) // sigfigs
	dst = le.AppendUint32(dst, snapLen)
	return le.AppendUint32(dst, linkType)
}

// AppendRecord appends one packet captured at ts, cut to snapLen bytes
// (the record keeps the packet's original length).
func AppendRecord(dst []byte, ts time.Time, pkt []byte, snapLen int) []byte {
	captured := pkt
	if snapLen > 0 && len(captured) > snapLen {
		captured = captured[:snapLen]
	}
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(ts.Unix()))
	dst = le.AppendUint32(dst, uint32(ts.Nanosecond()/1000))
	dst = le.AppendUint32(dst, uint32(len(captured)))
	dst = le.AppendUint32(dst, uint32(len(pkt)))
	return append(dst, captured...)
}

// Header is a file's header as read.
type Header struct {
	Order        binary.ByteOrder
	Nanos        bool // timestamps in nanoseconds (else microseconds)
	VersionMajor uint16
	VersionMinor uint16
	SnapLen      uint32
	LinkType     uint32
}

// Packet is one record.
type Packet struct {
	Time    time.Time
	Data    []byte // the captured bytes (valid until the next call to Next)
	OrigLen int    // the packet's length on the wire
}

// Reader reads a capture file record by record.
type Reader struct {
	r   *bufio.Reader
	hdr Header
	buf []byte
}

// ErrNotPcap says the input does not start with a pcap magic number.
var ErrNotPcap = errors.New("pcapfile: not a pcap file (unknown magic number)")

// NewReader reads and checks the file header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReader(r)
	var h [FileHeaderLen]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil, fmt.Errorf("pcapfile: file header: %w", noEOF(err))
	}
	var hdr Header
	switch {
	case binary.LittleEndian.Uint32(h[:]) == MagicMicros:
		hdr.Order = binary.LittleEndian
	case binary.BigEndian.Uint32(h[:]) == MagicMicros:
		hdr.Order = binary.BigEndian
	case binary.LittleEndian.Uint32(h[:]) == MagicNanos:
		hdr.Order, hdr.Nanos = binary.LittleEndian, true
	case binary.BigEndian.Uint32(h[:]) == MagicNanos:
		hdr.Order, hdr.Nanos = binary.BigEndian, true
	default:
		return nil, ErrNotPcap
	}
	o := hdr.Order
	hdr.VersionMajor, hdr.VersionMinor = o.Uint16(h[4:]), o.Uint16(h[6:])
	hdr.SnapLen, hdr.LinkType = o.Uint32(h[16:]), o.Uint32(h[20:])
	if hdr.VersionMajor != VersionMajor {
		return nil, fmt.Errorf("pcapfile: version %d.%d (want %d.x)", hdr.VersionMajor, hdr.VersionMinor, VersionMajor)
	}
	return &Reader{r: br, hdr: hdr}, nil
}

// Header is the file header.
func (r *Reader) Header() Header { return r.hdr }

// Next returns the next packet, io.EOF after the last one, or an error for
// a record cut short or longer than the file's snapshot length.
func (r *Reader) Next() (Packet, error) {
	var h [RecordHeadLen]byte
	if _, err := io.ReadFull(r.r, h[:]); err != nil {
		if err == io.EOF {
			return Packet{}, io.EOF
		}
		return Packet{}, fmt.Errorf("pcapfile: record header: %w", noEOF(err))
	}
	o := r.hdr.Order
	sec, frac := o.Uint32(h[0:]), o.Uint32(h[4:])
	capLen, origLen := o.Uint32(h[8:]), o.Uint32(h[12:])
	limit := min(max(r.hdr.SnapLen, 1), maxSnapLen)
	if capLen > limit {
		return Packet{}, fmt.Errorf("pcapfile: record of %d bytes exceeds the snapshot length %d", capLen, limit)
	}
	if origLen < capLen {
		return Packet{}, fmt.Errorf("pcapfile: record captures %d bytes of a %d-byte packet", capLen, origLen)
	}
	if cap(r.buf) < int(capLen) {
		r.buf = make([]byte, capLen)
	}
	data := r.buf[:capLen]
	if _, err := io.ReadFull(r.r, data); err != nil {
		return Packet{}, fmt.Errorf("pcapfile: record data: %w", noEOF(err))
	}
	nsec := int64(frac) * 1000
	if r.hdr.Nanos {
		nsec = int64(frac)
	}
	return Packet{Time: time.Unix(int64(sec), nsec), Data: data, OrigLen: int(origLen)}, nil
}

// noEOF turns a clean EOF inside a structure into ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
