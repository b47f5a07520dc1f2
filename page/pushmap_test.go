package page

import (
	"slices"
	"testing"
)

// pushMapByExplicitStack is the reference PushMap must match, computed
// differently: a depth-first walk over an explicit stack, one parent's
// children ordered at a time (discoveryOrder), keeping what is on the
// parent's host.
func pushMapByExplicitStack(m *Manifest) map[string][]string {
	out := map[string][]string{}
	for parent := range m.Resources {
		host := m.Resources[parent].Host
		var found []string
		stack := slices.Clone(m.discoveryOrder(parent))
		slices.Reverse(stack) // the first child discovered is popped first
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if r := m.Resources[id]; r.Host == host {
				found = append(found, r.Path)
			}
			next := slices.Clone(m.discoveryOrder(id))
			slices.Reverse(next)
			stack = append(stack, next...)
		}
		if found != nil {
			out[m.Resources[parent].Path] = found
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
		got, want := m.PushMap(), pushMapByExplicitStack(m)
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
