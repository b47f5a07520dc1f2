package loader

import (
	"context"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// Each policy's priorities for a root, a stylesheet it references, an
// image the stylesheet references, a script and what the script loads
// after it ran (a chain deeper than eight levels stops at 7).
func TestPriorityForPolicies(t *testing.T) {
	root := &entry{typ: page.TypeHTML}
	css := &entry{typ: page.TypeCSS, parent: root}
	img := &entry{typ: page.TypeImage, parent: css}
	js := &entry{typ: page.TypeJS, parent: root}
	late := &entry{typ: page.TypeOther, parent: js}
	deep := root
	for range 9 {
		deep = &entry{typ: page.TypeImage, parent: deep}
	}
	entries := []*entry{root, css, img, js, late, deep}
	for _, tc := range []struct {
		policy string
		want   []uint8
	}{
		{"", []uint8{0, 1, 4, 2, 3, 4}},
		{probe.PriorityChrome, []uint8{0, 1, 4, 2, 3, 4}},
		{probe.PriorityNone, []uint8{3, 3, 3, 3, 3, 3}},
		{probe.PriorityDepth, []uint8{0, 1, 2, 1, 2, 7}},
	} {
		l := &load{opt: Options{Priority: tc.policy}}
		for i, e := range entries {
			if got := l.priorityFor(e); got != tc.want[i] {
				t.Errorf("policy %q, entry %d (%s): priority %d, want %d", tc.policy, i, e.typ, got, tc.want[i])
			}
		}
	}
	st := newSite(t, "generic:n=5,mean=2k", 1)
	_, err := Load(context.Background(), Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://127.0.0.1:1"}}, Options{Proto: probe.ProtoH2, Priority: "fair"})
	if err == nil || !strings.Contains(err.Error(), "chrome, none or depth") {
		t.Errorf("priority policy fair: %v, want an error naming the policies", err)
	}
}

// depthOf is a manifest resource's depth in the page tree.
func depthOf(m *page.Manifest, id int) uint8 {
	d := uint8(0)
	for r := m.Resources[id]; r.Parent >= 0 && d < 7; r = m.Resources[r.Parent] {
		d++
	}
	return d
}

// wantPriority is what policy gives manifest resource id (the loader
// discovers each resource of a generated page from its manifest parent).
func wantPriority(m *page.Manifest, id int, policy string) uint8 {
	switch policy {
	case probe.PriorityNone:
		return equalPriority
	case probe.PriorityDepth:
		return depthOf(m, id)
	}
	return priorityOf(m.Resources[id].Type)
}

// The priorities reach the server: SPDY's SYN_STREAM carries each
// policy's value for every resource of a page three levels deep, the HAR records
// it, and the result's condition names the policy (the default empty).
func TestPriorityPolicyOverSPDY(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=3k,depth=2", 1)
	for _, policy := range []string{probe.PriorityChrome, probe.PriorityNone, probe.PriorityDepth} {
		target, stats := spdyServers(t, st, spdy.ProtoSPDY31, 0, false)
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31, Priority: policy})
		if err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		h := checkAgainstManifest(t, st, res)
		if want := storedPolicy(policy); res.Condition.Priority != want {
			t.Errorf("%s: result's condition has priority %q, want %q", policy, res.Condition.Priority, want)
		}
		seen := stats[st.m.Hosts[0]].priority
		levels := map[uint8]bool{}
		for _, e := range h.Log.Entries {
			id := *e.ResourceID
			want := wantPriority(st.m, id, policy)
			levels[want] = true // checkAgainstManifest checked the HAR's
			if got, ok := seen[st.m.Resources[id].Path]; !ok || got != want {
				t.Errorf("%s: %s: the server saw priority %d (%v), want %d", policy, e.Request.URL, got, ok, want)
			}
		}
		if policy != probe.PriorityNone && len(levels) < 3 {
			t.Errorf("%s: only priorities %v on a three-level page", policy, levels)
		}
	}
}

// h3 carries the policy as RFC 9218 urgency; under "none" every request
// says u=3 and none is incremental.
func TestPriorityPolicyOverH3(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=3k,depth=2", 1)
	target := h3LabServer(t, st, server.H3Config{})
	for _, policy := range []string{probe.PriorityNone, probe.PriorityDepth} {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH3, Priority: policy})
		if err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		h := checkAgainstManifest(t, st, res)
		for _, e := range h.Log.Entries {
			id := *e.ResourceID
			want := priorityField(wantPriority(st.m, id, policy), policy != probe.PriorityNone && incremental(st.m.Resources[id].Type))
			if got := harHeader(e.Request.Headers, "Priority"); got != want {
				t.Errorf("%s: %s: Priority %q, want %q", policy, e.Request.URL, got, want)
			}
			if policy == probe.PriorityNone && want != "u=3" {
				t.Errorf("%s: %s: Priority %q, want u=3", policy, e.Request.URL, want)
			}
		}
	}
}
