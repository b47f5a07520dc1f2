package sctp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Wire format (RFC 9260 section 3): a 12-byte common header (source port,
// destination port, verification tag, CRC32c), then chunks of
// type(1) flags(1) length(2) value, each padded to 4 bytes. Over UDP
// (RFC 6951) one SCTP packet is one datagram.

const (
	commonHeaderLen = 12
	chunkHeaderLen  = 4

	chunkData       = 0
	chunkInit       = 1
	chunkSACK       = 3
	chunkAbort      = 6
	chunkCookieEcho = 10
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunkInfo is what the counters need from one chunk.
type chunkInfo struct {
	typ   uint8
	value []byte // without the chunk header or padding
}

// errBadPacket wraps every reason a datagram is not a well-formed SCTP packet.
var errBadPacket = errors.New("sctp: malformed packet")

// parsePacket checks a datagram's framing and checksum and returns its
// chunks. It never trusts a length field further than the buffer.
func parsePacket(b []byte) ([]chunkInfo, error) {
	if len(b) < commonHeaderLen+chunkHeaderLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than a header and one chunk", errBadPacket, len(b))
	}
	if want, got := checksum(b), binary.LittleEndian.Uint32(b[8:12]); want != got {
		return nil, fmt.Errorf("%w: CRC32c %08x, computed %08x", errBadPacket, got, want)
	}
	var chunks []chunkInfo
	for off := commonHeaderLen; off < len(b); {
		if len(b)-off < chunkHeaderLen {
			return nil, fmt.Errorf("%w: %d stray bytes after the last chunk", errBadPacket, len(b)-off)
		}
		n := int(binary.BigEndian.Uint16(b[off+2 : off+4]))
		if n < chunkHeaderLen || n > len(b)-off {
			return nil, fmt.Errorf("%w: chunk type %d at offset %d has length %d (%d bytes left)", errBadPacket, b[off], off, n, len(b)-off)
		}
		chunks = append(chunks, chunkInfo{typ: b[off], value: b[off+chunkHeaderLen : off+n]})
		off += (n + 3) &^ 3 // the last chunk's padding may be cut short
	}
	return chunks, nil
}

// checksum is the packet's CRC32c computed with the checksum field as zero.
func checksum(b []byte) uint32 {
	var zero [4]byte
	c := crc32.Update(0, castagnoli, b[:8])
	c = crc32.Update(c, castagnoli, zero[:])
	return crc32.Update(c, castagnoli, b[12:])
}

func setChecksum(b []byte) { binary.LittleEndian.PutUint32(b[8:12], checksum(b)) }

func srcPort(b []byte) uint16       { return binary.BigEndian.Uint16(b[0:2]) }
func dstPort(b []byte) uint16       { return binary.BigEndian.Uint16(b[2:4]) }
func setSrcPort(b []byte, p uint16) { binary.BigEndian.PutUint16(b[0:2], p) }
func setDstPort(b []byte, p uint16) { binary.BigEndian.PutUint16(b[2:4], p) }
func dataTSN(c chunkInfo) (uint32, bool) {
	if c.typ != chunkData || len(c.value) < 12 {
		return 0, false
	}
	return binary.BigEndian.Uint32(c.value[0:4]), true
}

// tsnLess is serial-number arithmetic on 32-bit TSNs (RFC 1982).
func tsnLess(a, b uint32) bool { return a != b && b-a < 1<<31 }
