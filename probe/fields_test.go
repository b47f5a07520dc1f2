package probe

import (
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"65536": 65536, "64KiB": 65536, "64 kb": 65536, "1MiB": 1 << 20, "2m": 2 << 20, "100b": 100} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.5kb", "kb", "99999999999999mb"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// FuzzParseSize: any study-file text gives a size or an error, never a
// panic, and a canonical spelling parses back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"65536", "64KiB", "64 kb", "1MiB", "2m", "", "kb", "-1", "99999999999999mb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, n, FormatSize(n), back, err)
		}
	})
}
