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
// (with every other setting at its default, on a built-in page), naming
// the protocol and the reason.
func (p *Profile) Check() error {
	if len(p.Protocols) == 0 {
		return fmt.Errorf("profile %s names no protocols (protocols = [...], of %s)", p.Name, probe.OneOf(probe.ProtocolNames()))
	}
	for _, proto := range p.Protocols {
		if err := probe.CheckProtocol(proto); err != nil {
			return fmt.Errorf("profile %s: protocols: %w", p.Name, err)
		}
		v := p.Apply(map[string]string{"page": "pageA", "protocol": proto})
		if _, err := BuildCondition(v, 0); err != nil {
			return fmt.Errorf("profile %s cannot configure %s: %w", p.Name, proto, err)
		}
	}
	return nil
}
