package page

import (
	"slices"
	"testing"
)

// pushMapOneParentAtATime is PushMap as it was before it computed every
// parent's discovery order in one pass: the reference it must match.
func pushMapOneParentAtATime(m *Manifest) map[string][]string {
	out := map[string][]string{}
	for id := range m.Resources {
		var list []string
		var walk func(p int)
		walk = func(p int) {
			for _, c := range m.discoveryOrder(p) {
				if m.Resources[c].Host == m.Resources[id].Host {
					list = append(list, m.Resources[c].Path)
				}
				walk(c)
			}
		}
		walk(id)
		if len(list) > 0 {
			out[m.Resources[id].Path] = list
		}
	}
	return out
}

func TestPushMapListsWhatEachParentLeadsToInDiscoveryOrder(t *testing.T) {
	for _, spec := range []string{"pageA", "pageB", "pageC", "generic:n=400,domains=4,depth=2"} {
		m, err := Open(spec, 4, 7, "equal")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		got, want := m.PushMap(), pushMapOneParentAtATime(m)
		if len(want) == 0 {
			t.Fatalf("%s: no resource leads to another; the test checks nothing", spec)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d parents in the push map, want %d", spec, len(got), len(want))
		}
		for parent, list := range want {
			if !slices.Equal(got[parent], list) {
				t.Errorf("%s: push list of %s = %q, want %q", spec, parent, got[parent], list)
			}
		}
	}
}
