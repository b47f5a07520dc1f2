package studyfile

// Presets and walks. A preset is a named set of factor values over the
// study's [factors] (one published setup: its link, TCP, TLS, client);
// it may cross a few factors (a bandwidth sweep). A walk goes from one
// preset to another changing one factor per step:
//
//	[presets.cablelabs2012]
//	protocol = ["https", "spdy/2"]
//	rate = "10mbit/1mbit"
//
//	[[walk]]
//	from = "cablelabs2012"
//	to = "nsdi14"
//	steps = ["protocol", "rate", "rtt"]   # every factor the two differ in, in walk order
//	alone = true                          # also each change alone from "from"
//	[walk.factors]                        # optional: values both ends take for this walk
//	pages = "dir:$PAGES"
//	[walk.end]                            # optional: the cell of a crossed end to walk to
//	loss = "0%"
//
// The study's conditions are the union of the presets' and of every
// step's (deduplicated by hash), not a cross product of them.

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
)

// walkSpec is one [[walk]] table.
type walkSpec struct {
	From    string         `toml:"from"`
	To      string         `toml:"to"`
	Steps   []string       `toml:"steps"`
	Alone   bool           `toml:"alone"`
	Factors map[string]any `toml:"factors"`
	// Start and End pick a cell of a preset that crosses a factor: the
	// value (among the preset's) the walk starts or ends at.
	Start map[string]any `toml:"start"`
	End   map[string]any `toml:"end"`
}

var rePresetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// expandPresets adds every preset's conditions and every walk's steps to
// the study; it returns how many presets and walks it kept (a walk that
// needs --pages is left out without it).
func (p *studyParser) expandPresets(base map[string][]string) (int, error) {
	names := p.presetNames()
	tables := map[string]map[string][]string{}
	for _, name := range names {
		key := "presets." + name
		if !rePresetName.MatchString(name) {
			return 0, fmt.Errorf("line %d: preset name %q must be 1-64 letters, digits, '.', '_' or '-'", p.lines.table(key), name)
		}
		over, err := parseFactorTable(p.fs.Presets[name], key, p.lines, p.values)
		if errors.Is(err, page.ErrNoCorpus) {
			return 0, fmt.Errorf("line %d: preset %s needs --pages: a preset runs on the study's pages; give the corpus in a walk's [walk.factors] instead", p.lines.table(key), name)
		}
		if err != nil {
			return 0, err
		}
		tables[name] = overlay(base, over)
		b := copyBlock(tables[name])
		hashes, err := p.expandBlock("preset "+name, b)
		if err != nil {
			return 0, err
		}
		p.s.Presets = append(p.s.Presets, spec.Preset{Name: name, Conds: hashes})
	}
	kept := len(names)
	for i, w := range p.fs.Walk {
		ok, err := p.expandWalk(i, w, tables, names)
		if err != nil {
			return 0, err
		}
		if ok {
			kept++
		}
	}
	return kept, nil
}

// presetNames lists the presets in file order.
func (p *studyParser) presetNames() []string {
	names := make([]string, 0, len(p.fs.Presets))
	for n := range p.fs.Presets {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := p.lines.table("presets."+names[i]), p.lines.table("presets."+names[j])
		if li != lj {
			return li < lj
		}
		return names[i] < names[j]
	})
	return names
}

// overlay is base with over's factors replacing base's; a rate given on
// one side replaces down/up given on the other, and the other way round.
func overlay(base, over map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range base {
		out[k] = v
	}
	if over["rate"] != nil {
		delete(out, "down")
		delete(out, "up")
	}
	if over["down"] != nil || over["up"] != nil {
		delete(out, "rate")
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func copyBlock(b map[string][]string) map[string][]string {
	out := make(map[string][]string, len(b))
	for k, v := range b {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// expandWalk checks one [[walk]] and adds its steps; false when it needs
// --pages and has none.
func (p *studyParser) expandWalk(i int, w walkSpec, tables map[string]map[string][]string, names []string) (bool, error) {
	key := fmt.Sprintf("walk.%d", i)
	line := p.lines.table(key)
	for _, end := range []struct{ k, name string }{{"from", w.From}, {"to", w.To}} {
		if _, ok := tables[end.name]; !ok {
			return false, fmt.Errorf("line %d: walk.%s = %q: no such preset (presets: %s)", p.lines.line(key+"."+end.k), end.k, end.name, strings.Join(names, ", "))
		}
	}
	if w.From == w.To {
		return false, fmt.Errorf("line %d: walk from %q to itself: name two different presets", line, w.From)
	}
	over, err := parseFactorTable(w.Factors, key+".factors", p.lines, p.values)
	if errors.Is(err, page.ErrNoCorpus) {
		p.s.PagesOmitted++
		return false, nil
	}
	if err != nil {
		return false, err
	}
	x, y := copyBlock(overlay(tables[w.From], over)), copyBlock(overlay(tables[w.To], over))
	where := fmt.Sprintf("walk %s → %s", w.From, w.To)
	if err := p.pickCell(key+".start", w.Start, w.From, x); err != nil {
		return false, err
	}
	if err := p.pickCell(key+".end", w.End, w.To, y); err != nil {
		return false, err
	}
	for _, b := range []map[string][]string{x, y} {
		if err := p.checkBlock(where, b); err != nil {
			return false, err
		}
		// Folded into rate: the steps' blocks give rate alone.
		delete(b, "down")
		delete(b, "up")
	}
	changes, err := p.walkChanges(w, x, y)
	if err != nil {
		return false, fmt.Errorf("line %d: %s: %w", p.lines.line(key+".steps"), where, err)
	}
	walk := spec.Walk{From: w.From, To: w.To}
	for k := 0; k <= len(changes); k++ {
		b := copyBlock(x)
		for _, c := range changes[:k] {
			b[c.Factor] = y[c.Factor]
		}
		st := spec.WalkStep{}
		if k > 0 {
			st = changes[k-1]
		}
		if st.Conds, err = p.expandBlock(where, b); err != nil {
			return false, err
		}
		walk.Steps = append(walk.Steps, st)
	}
	if w.Alone {
		for _, c := range changes {
			b := copyBlock(x)
			b[c.Factor] = y[c.Factor]
			st := c
			if st.Conds, err = p.expandBlock(where, b); err != nil {
				return false, err
			}
			walk.Alone = append(walk.Alone, st)
		}
	}
	p.s.Walks = append(p.s.Walks, walk)
	return true, nil
}

// pickCell narrows a crossed preset's block b to the values a walk's
// [walk.start] or [walk.end] picks; each must be one of the preset's.
func (p *studyParser) pickCell(key string, t map[string]any, preset string, b map[string][]string) error {
	picks, err := parseFactorTable(t, key, p.lines, p.values)
	if err != nil {
		return err
	}
	for f, vals := range picks {
		fac, _ := factorByName(f)
		have := valuesOf(b, fac)
		for _, v := range vals {
			if !contains(have, v) {
				return fmt.Errorf("line %d: %s.%s = %q is not a value of preset %s (it has %s); [walk.factors] sets a value for both ends instead", p.lines.line(key+"."+f), key, f, v, preset, strings.Join(have, ", "))
			}
		}
		b[f] = vals
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// walkChanges checks a walk's steps against its two ends (x and y, their
// blocks with down/up folded into rate) and returns each step's change.
func (p *studyParser) walkChanges(w walkSpec, x, y map[string][]string) ([]spec.WalkStep, error) {
	for _, end := range []struct {
		name string
		b    map[string][]string
	}{{w.From, x}, {w.To, y}} {
		if n := p.variantCount(end.b); n != 1 {
			return nil, fmt.Errorf("preset %s compares %d variants with the baseline; a walk follows one (give it one value besides the baseline's of %s)", end.name, n, strings.Join(p.baselineFactors(), ", "))
		}
	}
	if len(w.Steps) == 0 {
		return nil, fmt.Errorf("steps is empty: list the factors to change, one per step (%s and %s differ in %s)", w.From, w.To, strings.Join(differing(x, y), ", "))
	}
	var out []spec.WalkStep
	done := map[string]bool{}
	for _, f := range w.Steps {
		fac, ok := factorByName(f)
		switch {
		case f == "down" || f == "up":
			return nil, fmt.Errorf("step %q: walk the link's rate as \"rate\" (down and up are one factor there)", f)
		case !ok:
			return nil, fmt.Errorf("step %q: unknown factor (factors: %s)", f, factorNames())
		case done[f]:
			return nil, fmt.Errorf("step %q is given twice", f)
		}
		done[f] = true
		from, to := valuesOf(x, fac), valuesOf(y, fac)
		if strings.Join(from, ",") == strings.Join(to, ",") {
			return nil, fmt.Errorf("step %q: %s and %s agree on it (%s): a step must change something", f, w.From, w.To, strings.Join(from, ", "))
		}
		a, err := p.stepValue(w.From, fac, from)
		if err != nil {
			return nil, err
		}
		b, err := p.stepValue(w.To, fac, to)
		if err != nil {
			return nil, err
		}
		out = append(out, spec.WalkStep{Factor: f, From: a, To: b})
	}
	for _, f := range differing(x, y) {
		if !done[f] {
			return nil, fmt.Errorf("%s and %s also differ in %s, which no step changes: add it to steps", w.From, w.To, f)
		}
	}
	return out, nil
}

// stepValue is the one value a walked factor takes at an end of the walk:
// a factor the baseline compares (protocol) names the variant's value.
func (p *studyParser) stepValue(preset string, f *factor, vals []string) (string, error) {
	if bv, ok := p.s.Baseline[f.name]; ok {
		var rest []string
		for _, v := range vals {
			if v != bv {
				rest = append(rest, v)
			}
		}
		vals = rest
	}
	if len(vals) != 1 {
		return "", fmt.Errorf("step %q: preset %s gives it %d values (%s); a walked factor takes one value at each end (fix it for this walk in [walk.factors])", f.name, preset, len(vals), strings.Join(vals, ", "))
	}
	return vals[0], nil
}

// variantCount is how many variants a block compares with the baseline:
// the combinations of the baseline factors' values, the baseline's own
// left out.
func (p *studyParser) variantCount(b map[string][]string) int {
	n := 1
	for _, f := range p.baselineFactors() {
		fac, _ := factorByName(f)
		n *= len(valuesOf(b, fac))
	}
	return n - 1
}

func (p *studyParser) baselineFactors() []string {
	var out []string
	for f := range p.s.Baseline {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// valuesOf is a factor's values in a block, its default when the block
// does not give it (as blockDims expands it).
func valuesOf(b map[string][]string, f *factor) []string {
	if v := b[f.name]; len(v) > 0 {
		return v
	}
	if f.name == "rate" {
		return []string{"unlimited/unlimited"}
	}
	return []string{f.def}
}

// differing lists, in matrix order, the factors two blocks give different
// values (down and up are folded into rate).
func differing(x, y map[string][]string) []string {
	var out []string
	for i := range factors {
		f := &factors[i]
		if f.name == "down" || f.name == "up" {
			continue
		}
		if strings.Join(valuesOf(x, f), ",") != strings.Join(valuesOf(y, f), ",") {
			out = append(out, f.name)
		}
	}
	return out
}
