package sctp

/*
#include "shim.h"
*/
import "C"

import (
	"net"
	"sync"
	"time"
	"unsafe"
)

// peer is one remote UDP address as the stack sees it: an opaque AF_CONN
// address (its handle). Packets the stack sends to the handle go out of pc
// to addr; datagrams from addr enter the stack under the handle. A listener
// rewrites its SCTP port between the wire (its UDP port) and a port unique
// in this process, because one usrsctp stack serves every listener of the
// process, and hosts in different namespaces may all listen on :443.
type peer struct {
	id       uintptr
	pc       net.PacketConn
	addr     net.Addr
	wirePort uint16 // listener side: the SCTP port on the wire
	ownPort  uint16 // listener side: the port the stack knows (0 = no rewrite)
	counters counterSet

	mu       sync.Mutex
	assocs   int       // live associations accepted or dialed over this peer
	lastSeen time.Time // last datagram from addr
}

func newPeer(pc net.PacketConn, addr net.Addr, wirePort, ownPort uint16) *peer {
	p := &peer{id: newHandle(), pc: pc, addr: addr, wirePort: wirePort, ownPort: ownPort, lastSeen: time.Now()}
	stack.peers.Store(p.id, p)
	C.shim_register(C.uintptr_t(p.id))
	return p
}

// release forgets the peer: later packets to its handle are dropped.
func (p *peer) release() {
	stack.peers.Delete(p.id)
	C.shim_deregister(C.uintptr_t(p.id))
}

// output sends one packet the stack produced (called from within the stack).
func (p *peer) output(pkt []byte) error {
	if p.ownPort != 0 && srcPort(pkt) == p.ownPort {
		setSrcPort(pkt, p.wirePort)
	}
	setChecksum(pkt)
	if chunks, err := parsePacket(pkt); err == nil {
		p.counters.sent(len(pkt), chunks)
	}
	_, err := p.pc.WriteTo(pkt, p.addr)
	return err
}

// input hands one datagram from addr to the stack after checking it; bad
// packets are counted and dropped (the stack never sees them).
func (p *peer) input(pkt []byte) {
	chunks, err := parsePacket(pkt)
	if err != nil {
		p.counters.badPacket()
		return
	}
	p.counters.received(len(pkt), chunks)
	p.mu.Lock()
	p.lastSeen = time.Now()
	p.mu.Unlock()
	if p.ownPort != 0 {
		if dstPort(pkt) != p.wirePort {
			p.counters.badPacket() // not for this listener's port
			return
		}
		setDstPort(pkt, p.ownPort)
	}
	C.shim_conninput(C.uintptr_t(p.id), unsafe.Pointer(&pkt[0]), C.size_t(len(pkt)))
}
