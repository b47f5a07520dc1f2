package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// Profile is a named configuration of some protocols: condition settings
// (probe.Fields names, canonical values) for the protocols it names, e.g.
// spdylab tune's winner. study/studyfile reads and writes its file.
//
// The rule against a study's own factors: a profile's settings apply to
// the conditions of its protocols only, and there the profile wins for its
// keys over the study's values (or `spdylab load`'s flags), as spdylab
// tune's candidates override the study's settings of the tuned protocol.
// The condition holds the resolved settings (its hash is the load's
// identity), and so do its factor values, with the profile's label; the
// report pairs it with the baseline at the baseline's own values.
type Profile struct {
	Name        string
	Description string
	Protocols   []string
	Settings    map[string]string
	// Hash identifies the content (name, protocols, settings), not the
	// file's spelling; Label shows it.
	Hash string
}

// Label is how a condition names its profile (Condition.Profile).
func (p *Profile) Label() string { return p.Name + "@" + p.Hash }

// AppliesTo reports whether the profile configures protocol proto.
func (p *Profile) AppliesTo(proto string) bool { return slices.Contains(p.Protocols, proto) }

// Keys lists the settings in probe.Fields order.
func (p *Profile) Keys() []string {
	var out []string
	for _, f := range probe.Fields {
		if _, ok := p.Settings[f.Name]; ok {
			out = append(out, f.Name)
		}
	}
	return out
}

// SetHash computes Hash from the content.
func (p *Profile) SetHash() {
	h := sha256.New()
	fmt.Fprintf(h, "name=%s\nprotocols=%s\n", p.Name, strings.Join(p.Protocols, ","))
	keys := make([]string, 0, len(p.Settings))
	for k := range p.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, p.Settings[k])
	}
	p.Hash = hex.EncodeToString(h.Sum(nil)[:6])
}

// Apply returns the matrix point v with the profile in it: for a protocol
// the profile names, its settings and its label; for another protocol v
// unchanged with no profile. The profile wins for its keys (the rule
// above).
func (p *Profile) Apply(v map[string]string) map[string]string {
	out := make(map[string]string, len(v)+len(p.Settings))
	for k, x := range v {
		out[k] = x
	}
	if !p.AppliesTo(v["protocol"]) {
		out["profile"] = ""
		return out
	}
	for _, k := range p.Keys() {
		out[k] = p.Settings[k]
	}
	out["profile"] = p.Label()
	return out
}

// Check refuses a profile that Normalize refuses for one of its protocols
// (with every other setting at its default, on a built-in page over a
// link with a rate), or with
// a setting one of its protocols ignores (probe.CheckApplies: a profile
// configures each protocol it names), naming the protocol and the reason.
func (p *Profile) Check() error {
	if len(p.Protocols) == 0 {
		return fmt.Errorf("profile %s names no protocols (protocols = [...], of %s)", p.Name, probe.OneOf(probe.ProtocolNames()))
	}
	for _, proto := range p.Protocols {
		if err := probe.CheckProtocol(proto); err != nil {
			return fmt.Errorf("profile %s: protocols: %w", p.Name, err)
		}
		// On a link with a rate, so that a setting that needs one (pacing
		// = link) is judged by its own value; every condition the profile
		// joins is normalized again with its own link.
		v := p.Apply(map[string]string{"page": "pageA", "protocol": proto, "rate": "10mbit/1mbit"})
		c, err := BuildCondition(v, 0)
		if err == nil {
			err = probe.CheckApplies(c, []string{proto}) // a profile configures each of its protocols
		}
		if err != nil {
			return fmt.Errorf("profile %s cannot configure %s: %w", p.Name, proto, err)
		}
	}
	return nil
}

// AddProfile puts profile p beside the study's own settings: every
// condition of a protocol p names gets a twin with p applied (its label in
// the profile factor), as a study file's `profile = ["", FILE]` would, so
// the report shows the profile against the baseline and against the
// protocol's defaults in one run (`spdylab run --profile`). Presets and
// walks keep their conditions.
func (s *Study) AddProfile(p *Profile) error {
	defaults := probe.FieldDefaults()
	seen := map[string]bool{}
	for _, c := range s.Conditions {
		seen[c.Hash] = true
	}
	var twins []Cond
	for _, c := range s.Conditions {
		if !p.AppliesTo(c.Values["protocol"]) {
			continue
		}
		v := p.Apply(c.Values)
		// Values hold every factor; a stack piece at its default counts as
		// left to the stack (as Override does), a profile's key as set.
		given := func(f string) bool { _, set := p.Settings[f]; return set || v[f] != defaults[f] }
		cond, err := BuildCondition(probe.OmitUngivenPieces(v, given), s.Timeout)
		if err != nil {
			return fmt.Errorf("profile %s on condition %s: %w", p.Name, c.Describe(), err)
		}
		twin := Cond{Condition: cond, Values: v}
		twin.Hash = HashCondition(twin.Condition)
		if !seen[twin.Hash] {
			seen[twin.Hash] = true
			twins = append(twins, twin)
		}
	}
	if len(twins) == 0 {
		return fmt.Errorf("profile %s configures %s, which study %s does not load", p.Name, strings.Join(p.Protocols, ", "), s.Name)
	}
	// The profile factor is explicit everywhere (its "" is the protocol's
	// own settings), so the report's columns and pairing see it.
	for _, c := range s.Conditions {
		if _, ok := c.Values["profile"]; !ok {
			c.Values["profile"] = ""
		}
	}
	s.Conditions = append(s.Conditions, twins...)
	s.AddVaried(append([]string{"profile"}, p.Keys()...)...)
	return nil
}

// AddVaried adds factors to the study's varied ones (the report's and
// why's labels of a condition), kept in probe.Fields order.
func (s *Study) AddVaried(names ...string) {
	for _, k := range names {
		if !slices.Contains(s.Varied, k) {
			s.Varied = append(s.Varied, k)
		}
	}
	order := map[string]int{}
	for i, f := range probe.Fields {
		order[f.Name] = i
	}
	slices.SortStableFunc(s.Varied, func(a, b string) int { return order[a] - order[b] })
}
