package studyfile

import (
	"strings"
	"testing"
)

// walkStudy is a study with two presets over pageA and one walk; the
// tests below vary its walk.
const walkStudy = `name = "w"
runs = 1
[factors]
page = "pageA"
protocol = ["https", "spdy/3.1"]
rtt = "20ms"

[presets.old]
protocol = ["https", "spdy/2"]
down = "10mbit"
up = "1mbit"
iw = 3

[presets.new]
rate = "20mbit/2mbit"
iw = 10
loss = ["0%", "1%"]
`

// The conditions are the union of the presets' and of each step's, not a
// cross product; each step holds its own conditions.
func TestWalkExpandsSteps(t *testing.T) {
	src := walkStudy + `
[[walk]]
from = "old"
to = "new"
steps = ["iw", "protocol", "rate"]
alone = true
[walk.factors]
loss = "0%"
`
	s, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	// old: 2 protocols; new: 2 protocols x 2 losses; walk at 0% loss:
	// old (known), iw (2 new), +protocol (its https is step 1's), +rate
	// (= new at 0%, known); alone: iw (= step 1), protocol alone (its
	// https is old's), rate alone (2 new).
	if got, want := len(s.Conditions), 2+4+2+1+1+2; got != want {
		t.Errorf("%d conditions, want %d", got, want)
	}
	if len(s.Presets) != 2 || s.Presets[0].Name != "old" || len(s.Presets[1].Conds) != 4 {
		t.Errorf("presets %+v", s.Presets)
	}
	if len(s.Walks) != 1 {
		t.Fatalf("walks %+v", s.Walks)
	}
	w := s.Walks[0]
	if len(w.Steps) != 4 || len(w.Alone) != 3 {
		t.Fatalf("steps %+v alone %+v", w.Steps, w.Alone)
	}
	want := []string{"|>|", "iw|3>10|", "protocol|spdy/2>spdy/3.1|", "rate|10mbit/1mbit>20mbit/2mbit|"}
	for i, st := range w.Steps {
		if got := st.Factor + "|" + st.From + ">" + st.To + "|"; got != want[i] {
			t.Errorf("step %d is %s, want %s", i, got, want[i])
		}
		if len(st.Conds) != 2 {
			t.Errorf("step %d has %d conditions, want 2 (variant and baseline)", i, len(st.Conds))
		}
	}
	if strings.Join(w.Steps[0].Conds, ",") != strings.Join(s.Presets[0].Conds, ",") {
		t.Errorf("step 0 is not preset old: %v vs %v", w.Steps[0].Conds, s.Presets[0].Conds)
	}
	if strings.Join(w.Alone[0].Conds, ",") != strings.Join(w.Steps[1].Conds, ",") {
		t.Errorf("the first change alone is not step 1")
	}
	byHash := map[string]map[string]string{}
	for _, c := range s.Conditions {
		byHash[c.Hash] = c.Values
	}
	for _, h := range w.Steps[3].Conds {
		if v := byHash[h]; v["rate"] != "20mbit/2mbit" || v["iw"] != "10" || v["loss"] != "0%" {
			t.Errorf("last step condition %v", v)
		}
	}
}

// Walks that cannot be walked are refused with their line and what to do.
func TestWalkRefusals(t *testing.T) {
	cases := []struct {
		name, walk, want string
	}{
		{"undefined preset", "from = \"old\"\nto = \"newer\"\nsteps = [\"iw\"]", `line 21: walk.to = "newer": no such preset (presets: old, new)`},
		{"agreeing factor", "from = \"old\"\nto = \"new\"\nsteps = [\"rtt\", \"iw\"]\n[walk.factors]\nloss = \"0%\"", `line 22: walk old → new: step "rtt": old and new agree on it (20ms)`},
		{"unknown factor", "from = \"old\"\nto = \"new\"\nsteps = [\"bandwidth\"]", `line 22: walk old → new: step "bandwidth": unknown factor`},
		{"missing factor", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\"]\n[walk.factors]\nloss = \"0%\"", "also differ in rate, which no step changes"},
		{"crossed end", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\", \"loss\"]", `step "loss": preset new gives it 2 values (0%, 1%)`},
		{"down as a step", "from = \"old\"\nto = \"new\"\nsteps = [\"down\"]", `walk the link's rate as "rate"`},
		{"twice", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"iw\"]", `step "iw" is given twice`},
		{"itself", "from = \"old\"\nto = \"old\"\nsteps = [\"iw\"]", "walk from \"old\" to itself"},
		{"no steps", "from = \"old\"\nto = \"new\"\n[walk.factors]\nloss = \"0%\"", "steps is empty"},
		{"two variants", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\"]\n[walk.factors]\nprotocol = [\"https\", \"spdy/2\", \"h2\"]", "preset old compares 2 variants"},
		{"bad override", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\"]\n[walk.factors]\nloss = \"lots\"", "line 24: loss = \"lots\""},
		{"pick outside the preset", "from = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\"]\n[walk.end]\nloss = \"2%\"", `line 24: walk.0.end.loss = "2%" is not a value of preset new (it has 0%, 1%)`},
		{"unknown key", "from = \"old\"\nto = \"new\"\nstep = [\"iw\"]", "unknown key \"walk.step\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(walkStudy+"\n[[walk]]\n"+tc.walk+"\n"), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// [walk.end] picks the cell of a crossed preset the walk ends at.
func TestWalkEndPicksACell(t *testing.T) {
	s, err := Parse([]byte(walkStudy+"\n[[walk]]\nfrom = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\", \"loss\"]\n[walk.end]\nloss = \"1%\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	last := s.Walks[0].Steps[4]
	if last.Factor != "loss" || last.From != "0%" || last.To != "1%" || len(last.Conds) != 2 {
		t.Errorf("last step %+v", last)
	}
}

// A walk over the user's pages is left out without --pages, and kept
// with them.
func TestWalkOverACorpusNeedsPages(t *testing.T) {
	src := walkStudy + "\n[[walk]]\nfrom = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\"]\n[walk.factors]\nloss = \"0%\"\npages = \"dir:$PAGES\"\n"
	s, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Walks) != 0 || s.PagesOmitted != 1 {
		t.Errorf("walks %d, pages omitted %d: want the corpus walk left out", len(s.Walks), s.PagesOmitted)
	}
}

// Presets are refused with their line: an unknown factor, a value of the
// wrong kind.
func TestPresetRefusals(t *testing.T) {
	cases := []struct{ add, want string }{
		{"[presets.x]\nbandwidth = \"1mbit\"\n", `line 20: unknown factor "bandwidth"`},
		{"[presets.x]\niw = \"ten\"\n", "line 20: iw = \"ten\": must be an integer"},
		{"[presets.x]\nprotocol = \"spdy/9\"\n", `line 20: protocol = "spdy/9"`},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(walkStudy+"\n"+tc.add), "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.add, err, tc.want)
		}
	}
}

// Adding presets and walks to the model moves no built-in study's
// identity: their fingerprints are pinned as they were before.
func TestBuiltinFingerprintsHold(t *testing.T) {
	pinned := map[string]string{
		"quick":               "6f1edf672e439b4cdb8b06c3",
		"fidelity":            "74085abc83ccd6431fd4aec9", // with its validation cells; the calibration grid's alone is pinned by TestFidelityStudy
		"study1-cablelabs":    "b1d00674fce20d14502be149",
		"study2-bandwidth":    "574f91de39eff6553a5b66f0",
		"study2-delay":        "b1810545af0550643bdf2c18",
		"study2-iw":           "a64849364a352fbd0151a413",
		"study2-loss":         "6a5f27d6aa9ee9ad24a14b75",
		"study2-shards":       "6b030bcd7aee1cae605a1c7a",
		"study2-streams":      "fdfd323b788800d9be5e6475",
		"study3-sctp":         "cb7ff7a360d4c606c0c1b3c5",
		"study4-google":       "5f94b0c250dc8e877be201ca",
		"study5-multiplexing": "3ad844b493f801cac2cdb794",
	}
	for name, want := range pinned {
		s, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Fingerprint(); got != want {
			t.Errorf("%s: fingerprint %s, want %s (stored runs would no longer resume or merge)", name, got, want)
		}
	}
}

// --no-link moves every condition onto loopback, which changes their
// hashes: the walks follow them.
func TestWalkFollowsNoLink(t *testing.T) {
	s, err := Parse([]byte(walkStudy+"\n[[walk]]\nfrom = \"old\"\nto = \"new\"\nsteps = [\"iw\", \"protocol\", \"rate\"]\n[walk.factors]\nloss = \"0%\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Override(0, true); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, c := range s.Conditions {
		known[c.Hash] = true
	}
	for i, st := range s.Walks[0].Steps {
		if len(st.Conds) == 0 {
			t.Errorf("step %d lost its conditions", i)
		}
		for _, h := range st.Conds {
			if !known[h] {
				t.Errorf("step %d holds %s, not a condition after --no-link", i, h)
			}
		}
	}
	for _, p := range s.Presets {
		for _, h := range p.Conds {
			if !known[h] {
				t.Errorf("preset %s holds %s, not a condition after --no-link", p.Name, h)
			}
		}
	}
}

// study6-reconcile's corpus walks run on every page of --pages DIR and
// are left out without it.
func TestStudy6WalksOverPages(t *testing.T) {
	dir := corpusDir(t)
	plain, err := Builtin("study6-reconcile")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadPages("study6-reconcile", dir)
	if err != nil {
		t.Fatal(err)
	}
	if plain.PagesOmitted != 3 || s.PagesOmitted != 0 || len(s.Walks) != len(plain.Walks)+3 {
		t.Fatalf("omitted %d / %d, walks %d / %d", plain.PagesOmitted, s.PagesOmitted, len(plain.Walks), len(s.Walks))
	}
	byHash := map[string]string{}
	for _, c := range s.Conditions {
		byHash[c.Hash] = c.Values["page"]
	}
	for _, w := range s.Walks[len(plain.Walks):] {
		for i, st := range w.Steps {
			// two recorded pages x (variant, baseline)
			if len(st.Conds) != 4 {
				t.Errorf("walk %s step %d: %d conditions, want 4", w.Name(), i, len(st.Conds))
			}
			for _, h := range st.Conds {
				if !strings.Contains(byHash[h], dir) {
					t.Errorf("walk %s step %d runs page %s, not one of %s", w.Name(), i, byHash[h], dir)
				}
			}
		}
	}
}
