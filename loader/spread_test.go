package loader

import (
	"slices"
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
			slot, _ := s.assign(r.host, r.typ, r.path, priorityOf(r.typ))
			got = append(got, slot)
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
	if got, _ := s.assign("a", page.TypeHTML, "/", 3); got != 1 {
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

// The demand policy opens a host's next session only when a large
// request finds every open one carrying DemandLargePerSession unfinished
// large responses, up to the ceiling; everything else goes to the
// lightest open session. Headers that give a size replace the guess by
// type, and a finished request stops weighing on its session.
func TestSpreaderDemand(t *testing.T) {
	s, err := newSpreader(3, probe.SessionDemand)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		host, typ, path string
		want            int
	}
	place := func(steps ...step) []bool {
		var counted []bool
		for i, st := range steps {
			slot, large := s.assign(st.host, st.typ, st.path, priorityOf(st.typ))
			if slot != st.want {
				t.Errorf("request %d (%s %s on %s): session %d, want %d", i, st.typ, st.path, st.host, slot, st.want)
			}
			counted = append(counted, large)
		}
		return counted
	}
	counted := place(
		step{"a", page.TypeHTML, "/", 0},
		step{"a", page.TypeImage, "/1.jpg", 0},
		step{"a", page.TypeImage, "/2.jpg", 0},
		step{"a", page.TypeImage, "/3.jpg", 1}, // session 0 carries 2: the next opens
		step{"b", page.TypeImage, "/x.jpg", 0}, // another host: its own sessions
		step{"a", page.TypeOther, "/f.woff2", 1},
		step{"a", page.TypeJS, "/app.js", 0},   // not large: the lightest (0 and 1 tie at 2)
		step{"a", page.TypeImage, "/4.jpg", 2}, // both carry 2: the third opens
		step{"a", page.TypeImage, "/5.jpg", 2},
		step{"a", page.TypeImage, "/6.jpg", 0}, // at the ceiling: the lightest
	)
	if want := []bool{false, true, true, true, true, true, false, true, true, true}; !slices.Equal(counted, want) {
		t.Errorf("counted as large %v, want %v", counted, want)
	}
	// 1.jpg's headers say 2 KB and 2.jpg finishes: session 0 carries only
	// 6.jpg now, so the next image goes there.
	if s.sized("a", 0, true, 2048) {
		t.Error("a 2 KB response still counts as large")
	}
	s.finished("a", 0, true)
	place(step{"a", page.TypeImage, "/7.jpg", 0})
	// A script whose headers say 100 KB weighs as large from then on.
	if !s.sized("a", 0, false, 100<<10) {
		t.Error("a 100 KB script does not count as large")
	}
	place(step{"a", page.TypeJS, "/b.js", 1})
	// An unknown length keeps the guess.
	if !s.sized("a", 1, true, -1) {
		t.Error("an unknown length dropped the guess by type")
	}
	if got, want := *s.demandSum(), (probe.DemandSum{Hosts: 2, Grew: 1, Extra: 2}); got != want {
		t.Errorf("demand sum %+v, want %+v", got, want)
	}
}
