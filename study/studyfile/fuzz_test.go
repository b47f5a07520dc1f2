package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
)

// FuzzParse feeds study files to the parser: any input gets a study or an
// error, never a panic, and a study it accepts is usable (it has
// conditions, each normalised, and a stable fingerprint).
func FuzzParse(f *testing.F) {
	ents, err := builtinFS.ReadDir("builtin")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		src, err := builtinFS.ReadFile("builtin/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("name = \"x\"\nruns = 1\n[factors]\npage = [\"pageA\"]\nprotocol = [\"https\", \"h2\"]\nrtt = [\"10ms\"]\n"))
	f.Add([]byte("name = \"x\"\nruns = 0\n"))
	f.Add([]byte(walkStudy + "[[walk]]\nfrom = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\"]\nalone = true\n[walk.end]\nloss = \"1%\"\n"))
	f.Add([]byte("[[matrix]]\nrtt = [\"1ms\", \"2ms\"]\n[[exclude]]\nrtt = \"1ms\"\n"))
	f.Add([]byte("[[matrix]]\nrole = \"calibration\"\n[[matrix]]\nrole = \"validation\"\nrtt = \"2ms\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse(src, t.TempDir())
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an error with no text")
			}
			return
		}
		if len(s.Conditions) == 0 {
			t.Fatal("accepted a study with no conditions")
		}
		for _, c := range s.Conditions {
			if c.Hash == "" || c.Proto == "" {
				t.Fatalf("condition without hash or protocol: %+v", c)
			}
		}
		known := map[string]bool{}
		for _, c := range s.Conditions {
			known[c.Hash] = true
		}
		for _, w := range s.Walks {
			for _, st := range append(append([]spec.WalkStep(nil), w.Steps...), w.Alone...) {
				for _, h := range st.Conds {
					if !known[h] {
						t.Fatalf("walk %s: step %q holds condition %s the study does not have", w.Name(), st.Factor, h)
					}
				}
			}
		}
		if s.Fingerprint() != s.Fingerprint() {
			t.Fatal("fingerprint is not stable")
		}
	})
}
