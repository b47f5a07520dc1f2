package tailbuf

import (
	"fmt"
	"testing"
)

func TestBufferKeepsTheTail(t *testing.T) {
	b := New(8)
	if b.Suffix() != "" {
		t.Fatalf("empty buffer suffix %q", b.Suffix())
	}
	for i := range 5 {
		fmt.Fprintf(b, "line%d\n", i)
	}
	if b.String() != "3\nline4\n" {
		t.Fatalf("tail %q: want the last 8 bytes", b.String())
	}
	if b.Suffix() != ": 3\nline4" {
		t.Fatalf("suffix %q", b.Suffix())
	}
}
