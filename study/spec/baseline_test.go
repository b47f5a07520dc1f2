package spec_test

import (
	"testing"

	"github.com/spdylab/spdylab/study/studyfile"
)

// TestBaselineTwins: every condition is paired with the one holding its
// values and the baseline's; a baseline condition with itself; a factor
// the baseline takes at one value only (iw 3 here) is compared at that
// value, so the variant at iw 10 still has a twin; a variant whose values
// the baseline never took (rtt 300ms measured for spdy/3.1 only) has none.
func TestBaselineTwins(t *testing.T) {
	s, err := studyfile.Parse([]byte(`name = "twins"
runs = 1
[[matrix]]
page = "pageA"
rtt = ["20ms", "100ms"]
iw = [3, 10]
protocol = ["spdy/3.1", "h2"]
[[matrix]]
page = "pageA"
rtt = ["20ms", "100ms"]
iw = 3
protocol = "https"
[[matrix]]
page = "pageA"
rtt = "300ms"
iw = 3
protocol = "spdy/3.1"
[baseline]
protocol = "https"
`), "")
	if err != nil {
		t.Fatal(err)
	}
	twins := s.BaselineTwins()
	if len(twins) != len(s.Conditions) {
		t.Fatalf("%d twins for %d conditions", len(twins), len(s.Conditions))
	}
	var paired, bases, alone int
	for i, c := range s.Conditions {
		j := twins[i]
		switch {
		case c.Proto == "https":
			bases++
			if j != i {
				t.Errorf("baseline %s paired with %d, want itself", c.Describe(), j)
			}
		case c.Values["rtt"] == "300ms":
			alone++
			if j != -1 {
				t.Errorf("%s paired with %s, want no twin", c.Describe(), s.Conditions[j].Describe())
			}
		default:
			paired++
			if j < 0 {
				t.Errorf("%s has no twin", c.Describe())
				continue
			}
			b := s.Conditions[j]
			if b.Proto != "https" || b.Values["iw"] != "3" || b.Values["rtt"] != c.Values["rtt"] || !s.IsBaseline(b) {
				t.Errorf("%s paired with %s", c.Describe(), b.Describe())
			}
		}
	}
	if paired != 8 || bases != 2 || alone != 1 {
		t.Errorf("%d paired, %d baselines, %d alone; want 8, 2, 1", paired, bases, alone)
	}
}
