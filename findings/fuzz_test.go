package findings

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: a findings file's header and a driver's body never panic the
// reader, and what it accepts has the header's three required lines.
func FuzzParse(f *testing.F) {
	f.Add([]byte(smallFinding))
	f.Add([]byte(driverFinding))
	f.Add([]byte("# question: q\n#   more\n# chosen-on: page=a,b\n# by: rate, loss\n# in-sample: x: y\n"))
	if m, _ := filepath.Glob("*.toml"); len(m) > 0 {
		if b, err := os.ReadFile(m[0]); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := parse("x", "x.toml", src)
		if err != nil {
			return
		}
		if file.Question == "" || file.Loads == "" || file.Sample == "" {
			t.Fatalf("accepted without a required header line: %+v", file)
		}
	})
}
