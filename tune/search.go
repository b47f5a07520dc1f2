package tune

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Candidate is one configuration: the knobs it sets away from their
// defaults (empty: the protocol's defaults).
type Candidate struct {
	Settings map[string]string `json:"settings"`
}

// Key is the candidate's identity: its settings, sorted.
func (c Candidate) Key() string {
	keys := slices.Sorted(maps.Keys(c.Settings))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + c.Settings[k]
	}
	return strings.Join(parts, " ")
}

// String names the candidate for people.
func (c Candidate) String() string {
	if len(c.Settings) == 0 {
		return "defaults"
	}
	return c.Key()
}

// Sample draws n distinct candidates from the space, deterministic by
// seed: the defaults first, then each knob at a uniformly drawn value.
// Fewer come back when the space holds fewer.
func Sample(space []Knob, n int, seed int64, valid Valid) []Candidate {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7475_6e65))
	out := []Candidate{{Settings: map[string]string{}}}
	seen := map[string]bool{"": true}
	size := 1
	for _, k := range space {
		size *= len(k.Values)
		if size > 1<<20 {
			break
		}
	}
	for tries := 0; len(out) < n && len(out) < size && tries < 100*n; tries++ {
		c := Candidate{Settings: map[string]string{}}
		for _, k := range space {
			if i := rng.IntN(len(k.Values)); i > 0 { // Values[0] is the default
				c.Settings[k.Name] = k.Values[i]
			}
		}
		if !seen[c.Key()] {
			seen[c.Key()] = true
			if valid == nil || valid(c.Settings) {
				out = append(out, c)
			}
		}
	}
	return out
}

// Round is one round of successive halving: how many candidates run and
// the loads per candidate and cell they reach.
type Round struct {
	Candidates int `json:"candidates"`
	Runs       int `json:"runs"`
}

// Halving is the schedule of successive halving from n candidates: every
// round keeps the best 1/eta (at least one) and multiplies the runs by
// eta, from minRuns up to maxRuns, until one candidate is left: the
// winner, the best of the last round (it is loaded again, with the others,
// in the evaluation).
func Halving(n, eta, minRuns, maxRuns int) []Round {
	var out []Round
	runs := minRuns
	for n > 1 {
		out = append(out, Round{Candidates: n, Runs: runs})
		n = (n + eta - 1) / eta
		runs = min(maxRuns, runs*eta)
	}
	return out
}

// SearchLoads counts the loads a schedule costs on cells training cells:
// every round loads its candidates and the baseline up to its runs; runs
// stored by an earlier round are not loaded again.
func SearchLoads(rounds []Round, cells int) int {
	loads, done := 0, 0
	for _, r := range rounds {
		if r.Runs > done {
			loads += (r.Candidates + 1) * cells * (r.Runs - done)
			done = r.Runs
		}
	}
	return loads
}

// EvalLoads bounds the evaluation's loads: on every cell, the baseline,
// the defaults, the winner, the winner with each knob put back (at most
// knobs) and the baseline with the winner's transport knobs, runs each.
func EvalLoads(cells, knobs, runs int) int { return (4 + knobs) * cells * runs }

// Budget is what a tune may spend and how it is shaped.
type Budget struct {
	Loads      int // the most loads in all
	Eta        int // the fraction kept per round is 1/Eta
	MinRuns    int // loads per candidate and cell in the first round
	MaxRuns    int // the most per candidate and cell in a round, and the evaluation's
	MaxSamples int // the most candidates to draw
}

// Plan picks the most candidates (2..MaxSamples) whose search and
// evaluation fit the budget; a budget too small for two (the defaults and
// one other) is refused with the numbers.
func Plan(b Budget, train, all, knobs int) ([]Round, error) {
	if b.Eta < 2 || b.MinRuns < 1 || b.MaxRuns < b.MinRuns || train < 1 {
		return nil, fmt.Errorf("tune: bad plan: eta %d, runs %d..%d, %d training cells", b.Eta, b.MinRuns, b.MaxRuns, train)
	}
	eval := EvalLoads(all, knobs, b.MaxRuns)
	var best []Round
	for n := 2; n <= max(2, b.MaxSamples); n++ {
		r := Halving(n, b.Eta, b.MinRuns, b.MaxRuns)
		if SearchLoads(r, train)+eval > b.Loads {
			break
		}
		best = r
	}
	if best == nil {
		need := SearchLoads(Halving(2, b.Eta, b.MinRuns, b.MaxRuns), train) + eval
		return nil, fmt.Errorf("budget of %d loads is too small: 2 candidates on %d training cells at %d..%d runs need %d loads for the search and %d for the evaluation on %d cells (%d in all); raise --budget or lower --min-runs/--max-runs or the training share (--train)",
			b.Loads, train, b.MinRuns, b.MaxRuns, need-eval, eval, all, need)
	}
	return best, nil
}

// Split deals the cells into training and held-out ones, deterministic by
// seed: round(frac x cells) of them (at least one) train. terms gives each
// cell's factor values ("page=pageA", "loss=1%"); the training cells are
// picked to cover every value and every pair of values of two factors as
// far as that many cells can (greedy, ties to the seed's shuffle), then
// at random. A tune on a small share then still trains on every page at
// every loss rate, every shard count at every RTT: a purely random tenth
// of study1's 144 cells can miss the corners where a winner loses (iw 32
// x 6 sessions on 4 servers without loss; measured in BENCHMARKS).
func Split(cells []string, terms map[string][]string, frac float64, seed int64) (train, test []string) {
	shuffled := slices.Clone(cells)
	sort.Strings(shuffled)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x73706c74))
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	n := min(len(shuffled), max(1, int(math.Round(frac*float64(len(shuffled))))))
	cellUnits := map[string][]string{}
	for _, c := range cells {
		cellUnits[c] = units(terms[c])
	}
	covered := map[string]bool{}
	for len(train) < n {
		best, gain := 0, -1
		for i, c := range shuffled {
			if g := newUnits(cellUnits[c], covered); g > gain {
				best, gain = i, g
			}
		}
		for _, u := range cellUnits[shuffled[best]] {
			covered[u] = true
		}
		train = append(train, shuffled[best])
		shuffled = slices.Delete(shuffled, best, best+1)
	}
	return train, shuffled
}

// units are what a cell covers: each of its terms and each pair of them.
func units(terms []string) []string {
	out := slices.Clone(terms)
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			out = append(out, a+" & "+b)
		}
	}
	return out
}

func newUnits(us []string, covered map[string]bool) int {
	n := 0
	for _, u := range us {
		if !covered[u] {
			n++
		}
	}
	return n
}

// Valid reports whether a candidate's settings make a condition the
// variant can take (probe.Normalize, probe.CheckApplies); some knobs only mean something
// together (session_policy needs sessions > 1).
type Valid func(settings map[string]string) bool

// Ablation is the winner with each of its knobs put back to its default,
// one at a time, in the winner's key order. When putting a knob back
// leaves settings the variant cannot take (valid), the knobs that only
// mean something with it go back too, and the label names them:
// "sessions+session_policy".
func Ablation(w Candidate, valid Valid) (knobs []string, cands []Candidate) {
	keys := slices.Sorted(maps.Keys(w.Settings))
	for _, k := range keys {
		c := Candidate{Settings: maps.Clone(w.Settings)}
		delete(c.Settings, k)
		label := k
		if valid != nil && !valid(c.Settings) {
			for _, other := range keys {
				if _, still := c.Settings[other]; !still {
					continue
				}
				trial := maps.Clone(c.Settings)
				delete(trial, other)
				if valid(trial) {
					c.Settings, label = trial, k+"+"+other
					break
				}
			}
		}
		knobs = append(knobs, label)
		cands = append(cands, c)
	}
	return knobs, cands
}

// Keep returns the best ceil(n/eta) of scored candidates (at least one),
// best first; ties keep the earlier (the defaults first), so the result
// depends on the scores only.
func Keep(scores []float64, keep int) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return better(scores[idx[a]], scores[idx[b]]) })
	return idx[:min(keep, len(idx))]
}

// better orders objectives, NaN (no loads) last.
func better(a, b float64) bool {
	if math.IsNaN(b) {
		return !math.IsNaN(a)
	}
	return a > b
}
