package store

import (
	"bytes"
	"strings"
	"testing"
)

func TestHARPackedSmallerAndRoundTrips(t *testing.T) {
	// A HAR-like document with the repetition real ones have.
	var b strings.Builder
	b.WriteString(`{"log":{"version":"1.2","entries":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"request":{"method":"GET","url":"https://s1.spdylab.test/img/`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`.jpg","httpVersion":"spdy/3.1"},"timings":{"blocked":0,"dns":-1,"connect":-1,"ssl":-1,"send":0.1,"wait":20.5,"receive":1.2}}`)
	}
	b.WriteString(`]}}`)
	har := []byte(b.String())

	packed := packHAR(har)
	if len(packed)*4 > len(har) {
		t.Errorf("packed HAR is %d bytes for %d bytes of JSON; expected at least 4x smaller", len(packed), len(har))
	}
	got, err := unpackHAR(packed)
	if err != nil || !bytes.Equal(got, har) {
		t.Fatalf("round trip changed the HAR (err %v)", err)
	}
	// Stores written before HARs were compressed hold plain JSON.
	if got, err := unpackHAR(har); err != nil || !bytes.Equal(got, har) {
		t.Errorf("plain JSON blob not returned as is (err %v)", err)
	}
	if packHAR(nil) != nil {
		t.Error("an absent HAR must stay absent")
	}
	if _, err := unpackHAR([]byte{0x1f, 0x8b, 0, 1, 2}); err == nil {
		t.Error("a corrupt gzip blob must be an error, not an empty HAR")
	}
}
