package tune

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// cell is one point of the study's matrix apart from the protocol: the
// baseline's condition and the variant protocol's, which tune configures.
type cell struct {
	Key     string // the bench group's key
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

// cellsOf pairs each bench group's baseline with its variant condition.
// The baseline must differ from the variant by protocol only, so both run
// on one bench.
func cellsOf(s *spec.Study, variant string) ([]cell, error) {
	baseProto := s.Baseline["protocol"]
	if len(s.Baseline) == 0 || baseProto == "" {
		return nil, errors.New("the study has no baseline protocol to gain against ([baseline] protocol = ...)")
	}
	for k := range s.Baseline {
		if k != "protocol" {
			return nil, fmt.Errorf("the study's baseline sets %s too; tune compares protocols on one bench, so its baseline may set the protocol only", k)
		}
	}
	if variant == baseProto {
		return nil, fmt.Errorf("--protocol %s is the study's baseline; name a variant to tune", variant)
	}
	var out []cell
	seen := false
	for _, g := range spec.Groups(s) {
		var c cell
		for _, x := range g.Conds {
			switch x.Proto {
			case baseProto:
				c.Base = x
			case variant:
				c.Variant = x
				seen = true
			}
		}
		if c.Base.Hash != "" && c.Variant.Hash != "" {
			c.Key, c.Label = g.Key, c.Variant.Describe()
			out = append(out, c)
		}
	}
	switch {
	case !seen:
		return nil, fmt.Errorf("protocol %s is not in study %s (its protocols: %s)", variant, s.Name, studyProtocols(s))
	case len(out) == 0:
		return nil, fmt.Errorf("no cell of study %s has both %s and the baseline %s", s.Name, variant, baseProto)
	}
	return out, nil
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
	v, err := p.Apply(cond.Values, nil)
	if err != nil {
		return spec.Cond{}, err
	}
	c, err := spec.BuildCondition(v, timeout)
	if err != nil {
		return spec.Cond{}, err
	}
	values := maps.Clone(cond.Values)
	values["profile"] = p.Label()
	out := spec.Cond{Condition: c, Values: values}
	out.Hash = spec.HashCondition(out.Condition)
	return out, nil
}

// checkKnobsOn refuses a knob the study itself sets for the variant (the
// profile rule: one place per setting) and a knob value the variant's
// conditions cannot take (probe.Normalize), before any load.
func checkKnobsOn(s *spec.Study, cells []cell, knobs []Knob) error {
	for _, k := range knobs {
		f, _ := probe.LookupField(k.Name)
		for _, c := range cells {
			if v, ok := c.Variant.Values[k.Name]; ok && v != f.Default {
				return fmt.Errorf("knob %s: the study sets it (%s = %s); tune it in a study that leaves it at its default, or leave it out of --knobs", k.Name, k.Name, v)
			}
		}
		for _, v := range k.Values[1:] {
			if _, err := configured(cells[0].Variant, "check", cells[0].Variant.Proto, map[string]string{k.Name: v}, s.Timeout); err != nil {
				return fmt.Errorf("knob %s = %s: %w", k.Name, v, err)
			}
		}
	}
	return nil
}
