package spdy

import "sync"

// recvChunkSize is the unit of receive buffering; it matches the usual DATA
// frame size so a frame is copied once into a chunk and never moved again.
const recvChunkSize = 16 << 10

var recvChunkPool = sync.Pool{New: func() any { b := make([]byte, 0, recvChunkSize); return &b }}

// recvBuffer queues received DATA until the application reads it. Unlike a
// growing []byte it never reallocates and copies what is already buffered,
// and drained chunks are recycled.
type recvBuffer struct {
	chunks []*[]byte // each holds unread bytes from offset off (first chunk only)
	off    int
	n      int
}

func (b *recvBuffer) len() int { return b.n }

func (b *recvBuffer) write(p []byte) {
	b.n += len(p)
	if k := len(b.chunks); k > 0 {
		last := b.chunks[k-1]
		if spare := cap(*last) - len(*last); spare > 0 {
			m := min(spare, len(p))
			*last = append(*last, p[:m]...)
			p = p[m:]
		}
	}
	for len(p) > 0 {
		c := recvChunkPool.Get().(*[]byte)
		m := min(cap(*c), len(p))
		*c = append((*c)[:0], p[:m]...)
		p = p[m:]
		b.chunks = append(b.chunks, c)
	}
}

func (b *recvBuffer) read(p []byte) int {
	total := 0
	for len(p) > 0 && len(b.chunks) > 0 {
		c := b.chunks[0]
		m := copy(p, (*c)[b.off:])
		p = p[m:]
		total += m
		b.off += m
		if b.off == len(*c) {
			b.chunks[0] = nil
			b.chunks = b.chunks[1:]
			b.off = 0
			*c = (*c)[:0]
			recvChunkPool.Put(c)
		}
	}
	b.n -= total
	if len(b.chunks) == 0 {
		b.chunks = nil
	}
	return total
}

// take removes the first chunk's unread bytes and hands the chunk over;
// the caller gives it back with recycleChunk. The buffer must not be empty.
func (b *recvBuffer) take() *[]byte {
	c := b.chunks[0]
	if b.off > 0 {
		*c = (*c)[:copy(*c, (*c)[b.off:])]
	}
	b.chunks[0] = nil
	b.chunks = b.chunks[1:]
	b.off = 0
	b.n -= len(*c)
	if len(b.chunks) == 0 {
		b.chunks = nil
	}
	return c
}

func recycleChunk(c *[]byte) {
	*c = (*c)[:0]
	recvChunkPool.Put(c)
}

// reset drops everything buffered, recycling the chunks.
func (b *recvBuffer) reset() {
	for _, c := range b.chunks {
		*c = (*c)[:0]
		recvChunkPool.Put(c)
	}
	b.chunks, b.off, b.n = nil, 0, 0
}
