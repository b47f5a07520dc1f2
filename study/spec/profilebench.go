package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// ProfileBench is how the protocols of one bench (`spdylab load`'s --proto
// list) load with a profile: the profile's own protocols (Profiled) with
// its settings applied, the others (Others) as they are, so the profile is
// compared with an unprofiled baseline in one interleaved run.
type ProfileBench struct {
	Profiled, Others []string
	// Values is the matrix point of the profiled protocols; the others load
	// the point they were given.
	Values map[string]string
	// Shared tells whether one bench serves both: every setting the profile
	// changes is one the others ignore (probe.Field.Scope), so loading them
	// on the profiled bench is loading them as they are. Otherwise Apart
	// names the settings the others would take too (transport knobs such as
	// iw or cc), and each side needs a bench of its own.
	Shared bool
	Apart  []string
}

// Bench splits protos for a bench loaded with the profile; v is the point
// the flags give (without a protocol). A profile that configures none of
// protos is refused: it would change nothing.
func (p *Profile) Bench(v map[string]string, protos []string) (ProfileBench, error) {
	var b ProfileBench
	for _, proto := range protos {
		if p.AppliesTo(proto) {
			b.Profiled = append(b.Profiled, proto)
		} else {
			b.Others = append(b.Others, proto)
		}
	}
	if len(b.Profiled) == 0 {
		return b, fmt.Errorf("profile %s configures %s, none of --proto %s", p.Name, strings.Join(p.Protocols, ", "), strings.Join(protos, ","))
	}
	pv := make(map[string]string, len(v)+1)
	for k, x := range v {
		pv[k] = x
	}
	pv["protocol"] = b.Profiled[0]
	b.Values = p.Apply(pv)
	delete(b.Values, "protocol")
	b.Shared = true
	defaults := probe.FieldDefaults()
	for _, k := range p.Keys() {
		was, ok := v[k]
		if !ok {
			was = defaults[k]
		}
		if b.Values[k] == was {
			continue
		}
		f, _ := probe.LookupField(k)
		if slices.ContainsFunc(b.Others, func(o string) bool { return takes(f, o) }) {
			b.Shared = false
			b.Apart = append(b.Apart, k)
		}
	}
	return b, nil
}

// takes tells whether protocol proto is configured by setting f.
func takes(f probe.Field, proto string) bool {
	if f.Scope == nil {
		return true
	}
	pr, ok := probe.LookupProtocol(proto)
	return !ok || f.Scope.Applies(pr)
}
