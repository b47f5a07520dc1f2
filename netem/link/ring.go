package link

// ring is the delay line's FIFO of packets with their delivery times. Slots
// keep their buffers when freed, so once the ring has grown to the link's
// bandwidth-delay product no packet allocates.
type ring struct {
	slots []slot
	head  int
	n     int
}

type slot struct {
	at  int64 // delivery time
	buf []byte
	len int
}

// slotRef is a packet handed to the delivering thread; pkt aliases a slot's
// buffer, which stays untouched until the slot is popped.
type slotRef struct {
	at   int64
	pkt  []byte
	late int64
}

// minSlotBuf is the smallest buffer a slot gets: one MTU plus headroom, so
// ordinary packets never reallocate.
const minSlotBuf = 2048

func (r *ring) len() int { return r.n }

func (r *ring) headTime() int64 { return r.slots[r.head].at }

func (r *ring) push(at int64, pkt []byte) {
	if r.n == len(r.slots) {
		r.grow()
	}
	s := &r.slots[(r.head+r.n)%len(r.slots)]
	if cap(s.buf) < len(pkt) {
		s.buf = make([]byte, max(len(pkt), minSlotBuf))
	}
	s.buf = s.buf[:cap(s.buf)]
	s.len = copy(s.buf, pkt)
	s.at = at
	r.n++
}

func (r *ring) grow() {
	size := max(2*len(r.slots), 64)
	slots := make([]slot, size)
	for i := 0; i < r.n; i++ {
		slots[i] = r.slots[(r.head+i)%len(r.slots)]
	}
	// Keep the spare buffers of the free slots too.
	for i := r.n; i < len(r.slots); i++ {
		slots[i] = r.slots[(r.head+i)%len(r.slots)]
	}
	r.slots, r.head = slots, 0
}

// due appends the packets due at now (from the head, in order) to batch.
func (r *ring) due(now int64, batch []slotRef) []slotRef {
	for i := 0; i < r.n; i++ {
		s := &r.slots[(r.head+i)%len(r.slots)]
		if s.at > now {
			break
		}
		batch = append(batch, slotRef{at: s.at, pkt: s.buf[:s.len]})
	}
	return batch
}

// pop frees the k oldest slots.
func (r *ring) pop(k int) {
	if k == 0 {
		return
	}
	r.head = (r.head + k) % len(r.slots)
	r.n -= k
}

func (r *ring) clear() { r.head, r.n = 0, 0 }
