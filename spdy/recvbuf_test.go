package spdy

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestRecvBufferPreservesBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var b recvBuffer
	var want, got []byte
	for i := 0; i < 2000; i++ {
		if rng.Intn(2) == 0 {
			p := randomBytes(rng.Intn(40000), int64(i))
			b.write(p)
			want = append(want, p...)
		} else {
			p := make([]byte, rng.Intn(30000))
			n := b.read(p)
			got = append(got, p[:n]...)
		}
		if b.len() != len(want)-len(got) {
			t.Fatalf("step %d: len %d, want %d", i, b.len(), len(want)-len(got))
		}
	}
	rest := make([]byte, b.len())
	got = append(got, rest[:b.read(rest)]...)
	if !bytes.Equal(got, want) {
		t.Fatal("bytes differ")
	}
	b.write([]byte("x"))
	b.reset()
	if b.len() != 0 || b.read(make([]byte, 1)) != 0 {
		t.Fatal("reset left data")
	}
}
