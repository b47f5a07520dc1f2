package loader

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Each policy's assignment of a host's requests, in discovery order, to
// its sessions (0-based).
func TestSpreaderPolicies(t *testing.T) {
	type req struct {
		host, typ, path string
	}
	html := req{"a", page.TypeHTML, "/"}
	css := req{"a", page.TypeCSS, "/s.css"}
	js := req{"a", page.TypeJS, "/app.js"}
	img := req{"a", page.TypeImage, "/i.png"}
	font := req{"a", page.TypeOther, "/f.WOFF2"}
	data := req{"a", page.TypeOther, "/data.json"}
	imgB := req{"b", page.TypeImage, "/j.png"}
	order := []req{html, css, img, js, img, font, data, imgB, img, imgB}
	for _, c := range []struct {
		policy string
		n      int
		want   []int
	}{
		{probe.SessionRoundRobin, 1, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{probe.SessionLargeApart, 1, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		// in turn per host: a's 0 1 2 0 1 2 0, b's own turns
		{probe.SessionRoundRobin, 3, []int{0, 1, 2, 0, 1, 2, 0, 0, 1, 1}},
		{"", 2, []int{0, 1, 0, 1, 0, 1, 0, 0, 1, 1}},
		// html, css, js (priority 0-2) on 0; images, the font and data
		// (priority 3-4) in turn over 1 and 2
		{probe.SessionPriority, 3, []int{0, 0, 1, 0, 2, 1, 2, 1, 1, 2}},
		{probe.SessionPriority, 2, []int{0, 0, 1, 0, 1, 1, 1, 1, 1, 1}},
		// images and the font in turn over 1 and 2; data stays on 0
		{probe.SessionLargeApart, 3, []int{0, 0, 1, 0, 2, 1, 0, 1, 2, 2}},
		{probe.SessionLargeApart, 6, []int{0, 0, 1, 0, 2, 3, 0, 1, 4, 2}},
	} {
		s, err := newSpreader(c.n, c.policy)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range order {
			got = append(got, s.assign(r.host, r.typ, r.path, priorityOf(r.typ)))
		}
		if !equalInts(got, c.want) {
			t.Errorf("%s over %d sessions: %v, want %v", c.policy, c.n, got, c.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The priority policy follows the priority a request carries, so under
// the none policy (every request 3) nothing is urgent.
func TestSpreaderPriorityFollowsThePriorityPolicy(t *testing.T) {
	s, _ := newSpreader(3, probe.SessionPriority)
	if got := s.assign("a", page.TypeHTML, "/", 3); got != 1 {
		t.Errorf("a document at priority 3 went to session %d, want 1 (not urgent)", got)
	}
}

func TestSessionOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Proto: probe.ProtoSPDY31, Sessions: 7, MaxConnsPerHost: 6}, "out of range"},
		{Options{Proto: probe.ProtoH2, Sessions: 4, MaxConnsPerHost: 3}, "out of range"},
		{Options{Proto: probe.ProtoH3, Sessions: 2, MaxConnsPerHost: 6}, "h3 opens one connection per host"},
		{Options{Proto: probe.ProtoSPDY31SCTP, Sessions: 2, MaxConnsPerHost: 6}, "one connection per host"},
		{Options{Proto: probe.ProtoH2, Sessions: 2, SessionPolicy: "random", MaxConnsPerHost: 6}, `unknown session policy "random"`},
	} {
		_, err := sessionSpreader(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.o, err, c.want)
		}
	}
	if s, err := sessionSpreader(Options{Proto: probe.ProtoHTTPS, Sessions: 3, MaxConnsPerHost: 6}); err != nil || s.n != 1 {
		t.Errorf("https with sessions 3: %v, %+v; want accepted and ignored (its own pool)", err, s)
	}
}
