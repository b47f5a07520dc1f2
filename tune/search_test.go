package tune

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/internal/stats"
)

func TestHalvingKeepsAThirdAndRaisesTheRuns(t *testing.T) {
	got := Halving(27, 3, 3, 20)
	want := []Round{{27, 3}, {9, 9}, {3, 20}}
	if !slices.Equal(got, want) {
		t.Fatalf("Halving(27, 3, 3..20) = %v, want %v", got, want)
	}
	if got := Halving(2, 3, 3, 5); !slices.Equal(got, []Round{{2, 3}}) {
		t.Errorf("two candidates: %v, want one round", got)
	}
}

func TestSearchLoadsCountsOnlyNewRuns(t *testing.T) {
	// 27+1 x 2 x 3, then 9+1 x 2 x 6 more, then 3+1 x 2 x 11 more.
	if got, want := SearchLoads([]Round{{27, 3}, {9, 9}, {3, 20}}, 2), 28*2*3+10*2*6+4*2*11; got != want {
		t.Errorf("SearchLoads = %d, want %d", got, want)
	}
}

func TestPlanFitsTheBudgetOrSaysWhatItNeeds(t *testing.T) {
	b := Budget{Loads: 200, Eta: 3, MinRuns: 3, MaxRuns: 5, MaxSamples: 27}
	rounds, err := Plan(b, 2, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	total := SearchLoads(rounds, 2) + EvalLoads(3, 2, 5)
	if total > b.Loads {
		t.Errorf("plan %v costs %d loads, budget %d", rounds, total, b.Loads)
	}
	more := Halving(rounds[0].Candidates+1, 3, 3, 5)
	if SearchLoads(more, 2)+EvalLoads(3, 2, 5) <= b.Loads {
		t.Errorf("plan %v is not the largest that fits", rounds)
	}
	b.Loads = 10
	_, err = Plan(b, 2, 3, 2)
	if err == nil || !strings.Contains(err.Error(), "budget of 10 loads is too small") || !strings.Contains(err.Error(), "in all") {
		t.Errorf("a budget of 10: %v", err)
	}
}

func TestSampleIsDeterministicDistinctAndStartsWithTheDefaults(t *testing.T) {
	space := []Knob{{"cc", []string{"", "reno", "bbr"}}, {"iw", []string{"0", "10", "32"}}}
	a, b := Sample(space, 6, 7, nil), Sample(space, 6, 7, nil)
	if len(a) != 6 || len(a[0].Settings) != 0 {
		t.Fatalf("sample %v: want 6, the defaults first", a)
	}
	seen := map[string]bool{}
	for i := range a {
		if a[i].Key() != b[i].Key() {
			t.Errorf("candidate %d differs between two draws with one seed", i)
		}
		if seen[a[i].Key()] {
			t.Errorf("candidate %s drawn twice", a[i])
		}
		seen[a[i].Key()] = true
	}
	if all := Sample(space, 100, 7, nil); len(all) != 9 {
		t.Errorf("the space has 9 points, sample of 100 gave %d", len(all))
	}
}

func TestSplitIsDeterministicAndPartitions(t *testing.T) {
	cells := []string{"a", "b", "c", "d", "e"}
	tr, te := Split(cells, nil, 0.6, 1)
	rev := slices.Clone(cells)
	slices.Reverse(rev)
	tr2, te2 := Split(rev, nil, 0.6, 1)
	if len(tr) != 3 || len(te) != 2 || !slices.Equal(tr, tr2) || !slices.Equal(te, te2) {
		t.Fatalf("split %v/%v and %v/%v", tr, te, tr2, te2)
	}
	all := append(slices.Clone(tr), te...)
	slices.Sort(all)
	if !slices.Equal(all, cells) {
		t.Errorf("train+test = %v", all)
	}
	if tr, _ := Split([]string{"x"}, nil, 0.1, 1); len(tr) != 1 {
		t.Error("one cell must train")
	}
}

// TestSplitCoversEveryPairOfValues: of 36 cells (3 pages x 2 loss rates
// x 3 shard counts x 2 RTTs), twelve training cells hold every pair of
// values of two factors (every page at every loss rate, every shard count
// at every RTT ...) and three hold every value, whatever the seed; random
// picks miss some for most seeds.
func TestSplitCoversEveryPairOfValues(t *testing.T) {
	var cells []string
	terms := map[string][]string{}
	for _, page := range []string{"pageA", "pageB", "pageC"} {
		for _, loss := range []string{"0%", "1%"} {
			for _, shards := range []string{"1", "2", "4"} {
				for _, rtt := range []string{"20ms", "100ms"} {
					key := page + loss + shards + rtt
					cells = append(cells, key)
					terms[key] = []string{"page=" + page, "loss=" + loss, "shards=" + shards, "rtt=" + rtt}
				}
			}
		}
	}
	all := map[string]bool{}
	for _, c := range cells {
		for _, u := range units(terms[c]) {
			all[u] = true
		}
	}
	for seed := int64(1); seed <= 20; seed++ {
		for _, tc := range []struct {
			n     int
			pairs bool
		}{{3, false}, {12, true}} {
			train, test := Split(cells, terms, float64(tc.n)/36, seed)
			if len(train) != tc.n || len(test) != 36-tc.n {
				t.Fatalf("seed %d: %d train, %d test", seed, len(train), len(test))
			}
			seen := map[string]bool{}
			for _, c := range train {
				for _, u := range units(terms[c]) {
					seen[u] = true
				}
			}
			for u := range all {
				if (tc.pairs || !strings.Contains(u, " & ")) && !seen[u] {
					t.Errorf("seed %d, %d training cells: none with %s", seed, tc.n, u)
				}
			}
			if again, _ := Split(cells, terms, float64(tc.n)/36, seed); !slices.Equal(again, train) {
				t.Errorf("seed %d: not deterministic", seed)
			}
		}
	}
}

func TestAblationPutsBackOneKnobAtATime(t *testing.T) {
	knobs, cands := Ablation(Candidate{Settings: map[string]string{"cc": "bbr", "iw": "16", "push": "manifest"}}, nil)
	if !slices.Equal(knobs, []string{"cc", "iw", "push"}) {
		t.Fatalf("knobs %v", knobs)
	}
	for i, c := range cands {
		if len(c.Settings) != 2 || c.Settings[knobs[i]] != "" {
			t.Errorf("without %s: %v", knobs[i], c.Settings)
		}
	}
}

// TestSuccessiveHalvingFindsTheBestWithAFakeEvaluator: with scores that
// are a candidate's true quality plus noise shrinking with the runs, the
// rounds keep the best candidate to the end.
func TestSuccessiveHalvingFindsTheBestWithAFakeEvaluator(t *testing.T) {
	space := []Knob{{"cc", []string{"", "reno", "bbr", "cubic"}}, {"iw", []string{"0", "10", "16", "32"}}}
	quality := func(c Candidate) float64 {
		q := 1.0
		if c.Settings["cc"] == "bbr" {
			q += 0.3
		}
		if c.Settings["iw"] == "32" {
			q += 0.2
		}
		return q
	}
	rounds := Halving(16, 3, 3, 27)
	cands := Sample(space, 16, 1, nil)
	for i, r := range rounds {
		scores := make([]float64, len(cands))
		for j, c := range cands {
			noise := 0.05 * math.Sin(float64(j*7+i)) * 3 / float64(r.Runs)
			scores[j] = quality(c) + noise
		}
		keep := 1
		if i+1 < len(rounds) {
			keep = rounds[i+1].Candidates
		}
		var next []Candidate
		for _, j := range Keep(scores, keep) {
			next = append(next, cands[j])
		}
		cands = next
	}
	best := quality(Candidate{Settings: map[string]string{"cc": "bbr", "iw": "32"}})
	if len(cands) != 1 || quality(cands[0]) < best-0.21 {
		t.Errorf("winner %v (quality %.2f)", cands, quality(cands[0]))
	}
}

func TestScoreObjectives(t *testing.T) {
	g := []stats.RatioCI{{Ratio: 1.5, Lo: 1.2, Hi: 1.8}, {Ratio: 0.9, Lo: 0.8, Hi: 1.1}, {Ratio: 1.2, TooFew: true}}
	if s := Score("worst", g); s != 0.9 {
		t.Errorf("worst %v", s)
	}
	if s := Score("mean", g); math.Abs(s-1.2) > 1e-9 {
		t.Errorf("mean %v", s)
	}
	if s := Score("won", g); s < 1 || s >= 2 {
		t.Errorf("won %v: one cell's interval is above 1", s)
	}
	if s := Score("never-worse", g[:2]); s != 0.8 {
		t.Errorf("never-worse %v, want the smallest lower bound 0.8", s)
	}
	if !math.IsNaN(Score("never-worse", g)) {
		t.Error("never-worse over a cell without an interval must be NaN")
	}
	if !math.IsNaN(Score("worst", []stats.RatioCI{{Ratio: math.NaN()}})) {
		t.Error("a cell without loads must make the score NaN")
	}
	if got := Keep([]float64{1, math.NaN(), 3, 2}, 2); !slices.Equal(got, []int{2, 3}) {
		t.Errorf("Keep = %v", got)
	}
}

func TestKnobsAreCheckedAgainstTheFields(t *testing.T) {
	if _, err := CheckKnobs(Space); err != nil {
		t.Fatalf("the built-in space: %v", err)
	}
	for spec, want := range map[string]string{
		"nosuch":         `unknown setting "nosuch"`,
		"cc=vegas9":      "cc",
		"iw=lots":        "value \"lots\"",
		"rtt=10ms":       "emulated link",
		"iw=0":           "only its default",
		"cc=bbr,cc=reno": "given twice",
	} {
		k, err := ParseKnobs(spec)
		if err == nil {
			_, err = CheckKnobs(k)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--knobs %s: %v, want %q", spec, err, want)
		}
	}
}

// TestAblationPutsBackWhatOnlyMeansSomethingTogether: putting sessions
// back to 1 leaves session_policy = priority, which needs sessions > 1;
// the ablation then puts the policy back too and says so.
func TestAblationPutsBackWhatOnlyMeansSomethingTogether(t *testing.T) {
	valid := func(s map[string]string) bool {
		_, sessions := s["sessions"]
		_, policy := s["session_policy"]
		return sessions || !policy
	}
	knobs, cands := Ablation(Candidate{Settings: map[string]string{"cc": "bbr", "sessions": "3", "session_policy": "priority"}}, valid)
	want := []string{"cc", "session_policy", "sessions+session_policy"}
	if !slices.Equal(knobs, want) {
		t.Fatalf("ablation knobs = %v, want %v", knobs, want)
	}
	if got := cands[2].Settings; len(got) != 1 || got["cc"] != "bbr" {
		t.Fatalf("without sessions: settings %v, want only cc = bbr", got)
	}
	for i, c := range cands {
		if !valid(c.Settings) {
			t.Errorf("ablated candidate %s is not valid: %v", knobs[i], c.Settings)
		}
	}
}

// TestSampleKeepsOnlyValidCandidates: no sampled candidate sets a policy
// without sessions.
func TestSampleKeepsOnlyValidCandidates(t *testing.T) {
	space := []Knob{{"sessions", []string{"1", "3"}}, {"session_policy", []string{"roundrobin", "priority"}}, {"cc", []string{"", "bbr"}}}
	valid := func(s map[string]string) bool {
		_, sessions := s["sessions"]
		_, policy := s["session_policy"]
		return sessions || !policy
	}
	cands := Sample(space, 100, 3, valid)
	if len(cands) != 6 {
		t.Fatalf("sampled %d candidates, want the 6 valid of 8", len(cands))
	}
	for _, c := range cands {
		if !valid(c.Settings) {
			t.Errorf("invalid candidate sampled: %v", c.Settings)
		}
	}
}
