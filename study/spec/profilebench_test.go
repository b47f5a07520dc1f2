package spec

import (
	"slices"
	"testing"
)

// TestProfileBench: the profile's protocols get its settings, the others
// load as given; one bench serves both only when every setting the
// profile changes is one the others ignore.
func TestProfileBench(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]string
		shared   bool
	}{
		{map[string]string{"sessions": "3", "scheduler": "roundrobin"}, true}, // https ignores both
		{map[string]string{"sessions": "3", "iw": "32"}, false},               // https takes iw
		{map[string]string{"iw": "10"}, true},                                 // iw 10 is what the flags give
	} {
		p := &Profile{Name: "p", Protocols: []string{"spdy/3.1"}, Settings: tc.settings}
		p.SetHash()
		b, err := p.Bench(map[string]string{"page": "pageA", "iw": "10"}, []string{"https", "spdy/3.1"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(b.Profiled, []string{"spdy/3.1"}) || !slices.Equal(b.Others, []string{"https"}) {
			t.Errorf("%v: profiled %v, others %v", tc.settings, b.Profiled, b.Others)
		}
		if b.Shared != tc.shared {
			t.Errorf("%v: shared %v (apart %v), want %v", tc.settings, b.Shared, b.Apart, tc.shared)
		}
		for k, v := range tc.settings {
			if b.Values[k] != v {
				t.Errorf("%v: profiled %s = %q", tc.settings, k, b.Values[k])
			}
		}
		if b.Values["profile"] != p.Label() {
			t.Errorf("profiled label %q", b.Values["profile"])
		}
	}
	p := &Profile{Name: "p", Protocols: []string{"spdy/3.1"}, Settings: map[string]string{"sessions": "3"}}
	if _, err := p.Bench(map[string]string{}, []string{"https"}); err == nil {
		t.Error("a profile configuring none of the protocols was accepted")
	}
}
