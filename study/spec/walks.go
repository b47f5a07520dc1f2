package spec

// Walks: a study built from presets (named sets of factor values over a
// common base, each reproducing one published setup) can walk from one
// preset to another, changing one factor per step, so the difference
// between the two setups' gains is split into each factor's share. The
// study file (study/studyfile) expands the steps into conditions; the
// model keeps, per step, which conditions it holds, so the report needs
// no study file to draw the walk.

// Preset is one preset of a study and the hashes of its conditions.
type Preset struct {
	Name  string   `json:"name"`
	Conds []string `json:"conds"`
}

// Walk is one walk from preset From to preset To.
type Walk struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Steps are the walk in order: step 0 is From itself, step k From
	// with the first k changes of To applied; the last step is To.
	Steps []WalkStep `json:"steps"`
	// Alone, when asked for, is each change applied alone to From (in
	// Steps' order, From itself left out): the order-free effect of each
	// factor, to set beside its share along the walk.
	Alone []WalkStep `json:"alone,omitempty"`
}

// WalkStep is one point of a walk.
type WalkStep struct {
	// Factor is the factor this step changes ("" for step 0), from From
	// to To (canonical values; a factor compared by the baseline, such as
	// protocol, names the variant's value).
	Factor string `json:"factor,omitempty"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	// Conds are the hashes of the step's conditions: variants and their
	// baselines, every page and crossed value.
	Conds []string `json:"conds"`
}

// Name is how reports call the walk: "from → to".
func (w Walk) Name() string { return w.From + " → " + w.To }

// remapWalks points the walks at new condition hashes (Override moves
// conditions onto loopback, which changes their hashes); a condition
// with no new hash is left out.
func (s *Study) remapWalks(newHash map[string]string) {
	remap := func(hashes []string) []string {
		var conds []string
		seen := map[string]bool{}
		for _, h := range hashes {
			if n, ok := newHash[h]; ok && !seen[n] {
				seen[n] = true
				conds = append(conds, n)
			}
		}
		return conds
	}
	for i := range s.Presets {
		s.Presets[i].Conds = remap(s.Presets[i].Conds)
	}
	for i := range s.Walks {
		for _, steps := range [][]WalkStep{s.Walks[i].Steps, s.Walks[i].Alone} {
			for j := range steps {
				steps[j].Conds = remap(steps[j].Conds)
			}
		}
	}
}
