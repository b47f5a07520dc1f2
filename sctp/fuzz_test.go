package sctp

import "testing"

func FuzzParsePacket(f *testing.F) {
	f.Add(initPacket(1, 2, 3))
	bad, nonsense := malformed(9899)
	for _, p := range append(bad, nonsense...) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		chunks, err := parsePacket(b)
		if err != nil {
			return
		}
		total := commonHeaderLen
		for _, c := range chunks {
			total += chunkHeaderLen + len(c.value)
		}
		if total > len(b) {
			t.Fatalf("chunks claim %d bytes of a %d-byte packet", total, len(b))
		}
		var cs counterSet
		cs.received(len(b), chunks)
		cs.sent(len(b), chunks)
	})
}
