package client

import (
	"encoding/binary"
	"io"
	"sync/atomic"

	"golang.org/x/net/http2"
)

// headerByteCounter follows the frame boundaries of the bytes the server
// sends and counts header-block payload bytes (HEADERS, CONTINUATION,
// PUSH_PROMISE), exactly what HPACK produced: the Framer merges
// CONTINUATION frames and so cannot tell their sizes.
type headerByteCounter struct {
	r     io.Reader
	count *atomic.Int64
	w     frameWalker
}

func (c *headerByteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.count.Add(c.w.walk(p[:n]))
	return n, err
}

// frameWalker parses a byte stream into frames incrementally.
type frameWalker struct {
	hdr     [9]byte
	hdrN    int
	left    int // payload bytes of the current frame still to come
	counted bool
}

// walk consumes p and returns how many header-block payload bytes it held.
func (w *frameWalker) walk(p []byte) int64 {
	var n int64
	for len(p) > 0 {
		if w.left > 0 {
			k := min(w.left, len(p))
			if w.counted {
				n += int64(k)
			}
			w.left -= k
			p = p[k:]
			continue
		}
		k := copy(w.hdr[w.hdrN:], p)
		w.hdrN += k
		p = p[k:]
		if w.hdrN < 9 {
			continue
		}
		w.hdrN = 0
		w.left = int(binary.BigEndian.Uint32(w.hdr[0:4]) >> 8)
		switch http2.FrameType(w.hdr[3]) {
		case http2.FrameHeaders, http2.FrameContinuation, http2.FramePushPromise:
			w.counted = true
		default:
			w.counted = false
		}
	}
	return n
}
