package tune

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/spdylab/spdylab/page"
)

// A tune over recorded pages (a --pages folder, har: recordings, page
// manifests) would otherwise train on a few cells of every page and judge
// on other cells of the same pages: the winner is then chosen for those
// pages, and the held-out score says nothing of a page it never saw. So
// the recorded pages are dealt first: a held-out page's every cell is held
// out and none of its loads is in the search. Generated pages (study
// pages) are the study's design, not a sample of the web, and stay
// covered by Split.

// recordedPages are the distinct recorded pages of the cells, sorted
// (page.HasOwnHosts: a recording or a manifest, not a generated page).
func recordedPages(cells []cell) []string {
	var out []string
	for _, c := range cells {
		if p := c.Variant.Page; page.HasOwnHosts(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// SplitPages deals pages into training and held-out ones, deterministic
// by seed: round(frac x pages) train, at least one, and at least one is
// held out unless frac is 1 (train on everything). Fewer than two pages
// cannot be split: all train.
func SplitPages(pages []string, frac float64, seed int64) (train, test []string) {
	shuffled := slices.Clone(pages)
	slices.Sort(shuffled)
	if len(shuffled) < 2 || frac >= 1 {
		return shuffled, nil
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x70616765))
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	n := min(len(shuffled)-1, max(1, int(math.Round(frac*float64(len(shuffled))))))
	train, test = shuffled[:n], shuffled[n:]
	slices.Sort(train)
	slices.Sort(test)
	return train, test
}
