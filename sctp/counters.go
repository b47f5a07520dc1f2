package sctp

import (
	"encoding/binary"
	"sync"
)

// Counters are one association's transport counters, read from the packets
// it exchanged (the stack's own statistics are per process, and a lab process
// runs clients and servers side by side).
type Counters struct {
	PacketsSent, PacketsReceived uint64
	BytesSent, BytesReceived     uint64 // SCTP packet bytes (UDP payload)
	DataChunksSent               uint64 // first transmissions and retransmissions
	DataChunksReceived           uint64
	// Retransmissions are DATA chunks sent again (a TSN not above the
	// highest sent). A retransmission is Fast when the peer's SACKs had
	// reported its TSN missing at least fastRetransmitReports times
	// (the fast-retransmit rule, RFC 9260 section 7.2.4), else it is a
	// Timeout one (T3-rtx expiry).
	Retransmissions          uint64
	FastRetransmissions      uint64
	TimeoutRetransmissions   uint64
	SACKsSent, SACKsReceived uint64
	// MessagesOvertaken counts messages delivered after a message that was
	// sent later on another stream: head-of-line blocking SCTP avoided (a
	// single ordered byte stream would have held the later message back).
	MessagesOvertaken uint64
	// BadPackets are datagrams dropped before the stack saw them: too
	// short, bad CRC32c, chunk lengths that do not add up.
	BadPackets uint64
}

// fastRetransmitReports is the number of miss indications after which
// usrsctp (like RFC 9260) retransmits a TSN without waiting for the timer.
const fastRetransmitReports = 3

// maxTrackedMisses bounds the per-TSN miss-report memory against a peer
// sending absurd gap blocks.
const maxTrackedMisses = 1 << 14

type counterSet struct {
	mu      sync.Mutex
	c       Counters
	sentAny bool
	highest uint32           // highest TSN sent
	misses  map[uint32]uint8 // TSN -> times a SACK reported it missing

	deliveredAny bool
	maxDelivered uint32 // highest TSN of a message handed to the application
}

func (cs *counterSet) snapshot() Counters {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.c
}

func (cs *counterSet) badPacket() {
	cs.mu.Lock()
	cs.c.BadPackets++
	cs.mu.Unlock()
}

// sent records an outgoing packet.
func (cs *counterSet) sent(n int, chunks []chunkInfo) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.c.PacketsSent++
	cs.c.BytesSent += uint64(n)
	for _, ch := range chunks {
		switch ch.typ {
		case chunkSACK:
			cs.c.SACKsSent++
		case chunkData:
			tsn, ok := dataTSN(ch)
			if !ok {
				continue
			}
			cs.c.DataChunksSent++
			if !cs.sentAny || tsnLess(cs.highest, tsn) {
				cs.sentAny, cs.highest = true, tsn
				continue
			}
			cs.c.Retransmissions++
			if cs.misses[tsn] >= fastRetransmitReports {
				cs.c.FastRetransmissions++
			} else {
				cs.c.TimeoutRetransmissions++
			}
			delete(cs.misses, tsn) // a retransmitted TSN starts counting again
		}
	}
}

// received records an incoming packet (after its checksum was verified).
func (cs *counterSet) received(n int, chunks []chunkInfo) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.c.PacketsReceived++
	cs.c.BytesReceived += uint64(n)
	for _, ch := range chunks {
		switch ch.typ {
		case chunkData:
			cs.c.DataChunksReceived++
		case chunkSACK:
			cs.c.SACKsReceived++
			cs.sackLocked(ch.value)
		}
	}
}

// sackLocked counts a miss report for every TSN between the cumulative ack
// and the highest gap-acked TSN that no gap block covers.
func (cs *counterSet) sackLocked(v []byte) {
	if len(v) < 12 {
		return
	}
	cum := binary.BigEndian.Uint32(v[0:4])
	gaps := int(binary.BigEndian.Uint16(v[8:10]))
	for tsn := range cs.misses {
		if !tsnLess(cum, tsn) {
			delete(cs.misses, tsn)
		}
	}
	if gaps == 0 || len(v) < 12+4*gaps {
		return
	}
	if cs.misses == nil {
		cs.misses = map[uint32]uint8{}
	}
	next := uint32(1) // offset from cum of the first TSN not yet classified
	for i := 0; i < gaps; i++ {
		start := uint32(binary.BigEndian.Uint16(v[12+4*i:]))
		end := uint32(binary.BigEndian.Uint16(v[14+4*i:]))
		if start < next || end < start {
			return // blocks must be ascending and disjoint; ignore the rest
		}
		for off := next; off < start && len(cs.misses) < maxTrackedMisses; off++ {
			if m := cs.misses[cum+off]; m < 255 {
				cs.misses[cum+off] = m + 1
			}
		}
		next = end + 1
	}
}

// delivered records a message handed to the application (tsn: one of its
// chunks' TSNs; a message's chunks have consecutive TSNs).
func (cs *counterSet) delivered(tsn uint32) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	switch {
	case !cs.deliveredAny || tsnLess(cs.maxDelivered, tsn):
		cs.deliveredAny, cs.maxDelivered = true, tsn
	case tsnLess(tsn, cs.maxDelivered):
		cs.c.MessagesOvertaken++
	}
}
