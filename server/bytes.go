package server

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// The sized-response endpoint serves a byte stream that any peer can
// regenerate from (n, seed) alone, so a client can check a multi-megabyte
// body without a copy of it. The generator is xorshift32 emitting each 32-bit
// state little-endian, chosen because it is four lines in any language
// (interop/node/lab.js carries the same generator for the node-spdy peer).

// seedState turns a user seed into a non-zero xorshift32 state.
func seedState(seed uint32) uint32 {
	x := seed*0x9E3779B1 + 1
	if x == 0 {
		x = 1
	}
	return x
}

// DeterministicReader returns a reader of the first n bytes of the stream
// for seed.
func DeterministicReader(n int64, seed uint32) io.Reader {
	return &detReader{x: seedState(seed), left: n}
}

// DeterministicBytes is DeterministicReader read into memory.
func DeterministicBytes(n int, seed uint32) []byte {
	p := make([]byte, n)
	io.ReadFull(DeterministicReader(int64(n), seed), p)
	return p
}

// DeterministicSHA256 is the hex sha256 of the first n bytes for seed.
func DeterministicSHA256(n int64, seed uint32) string {
	h := sha256.New()
	io.Copy(h, DeterministicReader(n, seed))
	return hex.EncodeToString(h.Sum(nil))
}

type detReader struct {
	x    uint32
	left int64
	// pending holds the unread tail of the last generated word, so that
	// reads of any size see the same stream.
	pending    [4]byte
	npending   int
	pendingOff int
}

func (d *detReader) next() uint32 {
	x := d.x
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	d.x = x
	return x
}

func (d *detReader) Read(p []byte) (int, error) {
	if d.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n := 0
	for n < len(p) && d.npending > 0 {
		p[n] = d.pending[d.pendingOff]
		d.pendingOff++
		d.npending--
		n++
	}
	for len(p)-n >= 4 {
		v := d.next()
		p[n], p[n+1], p[n+2], p[n+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		n += 4
	}
	if n < len(p) {
		v := d.next()
		d.pending = [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
		d.npending, d.pendingOff = 4, 0
		for n < len(p) {
			p[n] = d.pending[d.pendingOff]
			d.pendingOff++
			d.npending--
			n++
		}
	}
	d.left -= int64(n)
	return n, nil
}
