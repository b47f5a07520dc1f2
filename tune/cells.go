package tune

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// cell is one point of the study's matrix apart from the protocol: the
// variant protocol's condition, which tune configures, and its baseline
// twin (spec.Study.BaselineTwins, the report's pairing).
type cell struct {
	Key     string // the variant condition's hash
	Label   string // its factor values
	Base    spec.Cond
	Variant spec.Cond
}

// DefaultProtocol is the study's first SPDY protocol other than the
// baseline's: the variant tune configures unless told.
func DefaultProtocol(s *spec.Study) (string, error) {
	for _, c := range s.Conditions {
		p, _ := probe.LookupProtocol(c.Proto)
		if p.SPDYVersion != "" && c.Proto != s.Baseline["protocol"] {
			return c.Proto, nil
		}
	}
	return "", fmt.Errorf("study %s has no SPDY protocol besides its baseline: name the one to tune with --protocol", s.Name)
}

// cellsOf pairs each condition of the variant with its baseline twin.
func cellsOf(s *spec.Study, variant string) ([]cell, error) {
	baseProto := s.Baseline["protocol"]
	if len(s.Baseline) == 0 || baseProto == "" {
		return nil, errors.New("the study has no baseline protocol to gain against ([baseline] protocol = ...)")
	}
	if variant == baseProto {
		return nil, fmt.Errorf("--protocol %s is the study's baseline; name a variant to tune", variant)
	}
	if err := probe.CheckProtocol(variant); err != nil {
		return nil, fmt.Errorf("--protocol: %w", err)
	}
	twins := s.BaselineTwins()
	var out []cell
	seen := false
	for i, c := range s.Conditions {
		if c.Proto != variant {
			continue
		}
		seen = true
		if j := twins[i]; j >= 0 {
			out = append(out, cell{Key: c.Hash, Label: cellLabel(s, c), Base: s.Conditions[j], Variant: c})
		}
	}
	switch {
	case !seen:
		return nil, fmt.Errorf("protocol %s is not in study %s (its protocols: %s)", variant, s.Name, studyProtocols(s))
	case len(out) == 0:
		return nil, fmt.Errorf("no condition of %s in study %s has a baseline twin (%v)", variant, s.Name, s.Baseline)
	}
	return out, nil
}

// cellLabel names a cell by the factors the study varies (protocol
// aside), or by all its values when it varies none.
func cellLabel(s *spec.Study, c spec.Cond) string {
	if terms := cellTerms(s, c); len(terms) > 0 {
		return strings.Join(terms, " ")
	}
	return c.Describe()
}

// cellTerms are the cell's values of the factors the study varies
// ("page=pageA"), protocol and profile aside: what tells cells apart.
func cellTerms(s *spec.Study, c spec.Cond) []string {
	var terms []string
	for _, f := range s.Varied {
		if f != "protocol" && f != "profile" {
			terms = append(terms, f+"="+c.Values[f])
		}
	}
	return terms
}

func studyProtocols(s *spec.Study) string {
	var ps []string
	for _, c := range s.Conditions {
		if !slices.Contains(ps, c.Proto) {
			ps = append(ps, c.Proto)
		}
	}
	return fmt.Sprint(ps)
}

// configured is cond with settings applied as a profile of protocol
// proto named name (Condition.Profile carries its label); no settings:
// cond itself.
func configured(cond spec.Cond, name, proto string, settings map[string]string, timeout time.Duration) (spec.Cond, error) {
	if len(settings) == 0 {
		return cond, nil
	}
	p := &spec.Profile{Name: name, Protocols: []string{proto}, Settings: settings}
	p.SetHash()
	values := p.Apply(cond.Values)
	c, err := spec.BuildCondition(values, timeout)
	if err == nil {
		err = probe.CheckApplies(c, []string{proto}) // a knob the variant ignores tunes nothing
	}
	if err != nil {
		return spec.Cond{}, err
	}
	out := spec.Cond{Condition: c, Values: values}
	out.Hash = spec.HashCondition(out.Condition)
	return out, nil
}

// checkKnobsOn refuses a knob value the variant's conditions cannot take
// (probe.Normalize) or ignore (probe.CheckApplies), before any load. A knob overrides the study's own
// value of it for the variant (a profile wins for its keys). A value that
// only means something with another knob's (session_policy = priority
// needs sessions > 1) passes when some value of another knob makes it
// valid; the search then samples only valid combinations.
func checkKnobsOn(s *spec.Study, cells []cell, knobs []Knob) error {
	for _, k := range knobs {
		for _, v := range k.Values[1:] {
			if err := valueOn(s, cells, knobs, k.Name, v); err != nil {
				return fmt.Errorf("knob %s = %s: %w", k.Name, v, err)
			}
		}
	}
	return nil
}

// valueOn is why the variant's conditions cannot take name = value, alone
// or together with one value of another knob of knobs; nil when they can.
func valueOn(s *spec.Study, cells []cell, knobs []Knob, name, value string) error {
	valid := func(settings map[string]string) error {
		_, err := configured(cells[0].Variant, "check", cells[0].Variant.Proto, settings, s.Timeout)
		return err
	}
	err := valid(map[string]string{name: value})
	if err == nil || validWithAnother(valid, knobs, name, value) {
		return nil
	}
	return err
}

// spaceFor is the whole Space narrowed to what the variant takes, for a
// tune that names no knobs: the values this kernel offers and the
// variant's conditions take (spdy/2 has no session window, h2 no SPDY
// scheduler). leftOut names each value or knob dropped, with the reason.
func spaceFor(s *spec.Study, cells []cell) (knobs []Knob, leftOut []string) {
	var offered []Knob
	for _, k := range Space {
		f, _ := probe.LookupField(k.Name)
		var vals []string
		for _, raw := range k.Values {
			v, err := canonValue(f, raw)
			switch {
			case err != nil:
				leftOut = append(leftOut, err.Error())
			case v != f.Default && !slices.Contains(vals, v):
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			offered = append(offered, Knob{Name: k.Name, Values: vals})
		}
	}
	for _, k := range offered {
		f, _ := probe.LookupField(k.Name)
		vals := []string{f.Default}
		var dropped []string
		var why error
		for _, v := range k.Values {
			if err := valueOn(s, cells, offered, k.Name, v); err != nil {
				dropped, why = append(dropped, v), cmp.Or(why, err)
				continue
			}
			vals = append(vals, v)
		}
		switch {
		case len(vals) > 1:
			knobs = append(knobs, Knob{Name: k.Name, Values: vals})
			if why != nil {
				leftOut = append(leftOut, fmt.Sprintf("%s = %s (%s)", k.Name, strings.Join(dropped, "|"), reason(why)))
			}
		case why != nil:
			r := reason(why)
			if rest, ok := strings.CutPrefix(r, k.Name+" "); ok {
				r = rest // "session_window has no effect ..." reads "session_window: has no effect ..."
			}
			leftOut = append(leftOut, fmt.Sprintf("%s: %s", k.Name, r))
		}
	}
	return knobs, leftOut
}

// reason is why a value was left out, short enough for the tune's
// announcement: the innermost error (not the condition it was tried on),
// up to its advice.
func reason(err error) string {
	for inner := errors.Unwrap(err); inner != nil; inner = errors.Unwrap(err) {
		err = inner
	}
	msg := err.Error()
	if i := strings.Index(msg, ". "); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// validWithAnother reports whether name = value becomes valid together
// with one value of another knob.
func validWithAnother(valid func(map[string]string) error, knobs []Knob, name, value string) bool {
	for _, o := range knobs {
		if o.Name == name {
			continue
		}
		for _, ov := range o.Values[1:] {
			if valid(map[string]string{name: value, o.Name: ov}) == nil {
				return true
			}
		}
	}
	return false
}

// valid reports whether the variant's conditions can take a candidate's
// settings (every cell: a knob may apply to one page and not another).
func (t *Tuner) valid(settings map[string]string) bool {
	for _, cl := range t.cells {
		if _, err := configured(cl.Variant, "check", cl.Variant.Proto, settings, t.cfg.Study.Timeout); err != nil {
			return false
		}
	}
	return true
}
