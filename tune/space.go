// Package tune is `spdylab tune`: a budgeted search (successive halving)
// over condition settings for the configuration of a variant protocol
// that gains most against a study's baseline, on a training subset of the
// study's cells, checked on the held-out cells, with an ablation (what
// each knob buys) and a second baseline given the same transport knobs.
// Every load runs through the study runner into one store, so a killed
// tune resumes without repeating loads. tune/README.md has the details.
package tune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
)

// Knob is one dimension of the search: a probe.Fields setting and the
// values the search tries. The field's default is always a value too.
type Knob struct {
	Name   string
	Values []string
}

// Space is the search space. A new condition setting becomes searchable
// by adding its entry here (probe.Fields checks name and values).
var Space = []Knob{
	{"cc", []string{"cubic", "reno", "bbr"}},
	{"iw", []string{"10", "16", "32"}},
	{"initrwnd", []string{"64", "256"}},
	{"initial_window", []string{"1048576", "6291456", "16777216"}},
	{"max_streams", []string{"16", "1000"}},
	{"priority", []string{"chrome", "depth", "none"}},
	{"scheduler", []string{"priority", "roundrobin", "priority-fifo"}},
	{"push", []string{"none", "manifest", "preload", "deps"}},
	{"tls_resume", []string{"false", "true"}},
	{"sessions", []string{"2", "3", "6"}},
	{"session_policy", probe.SessionPolicies},
	{"pacing", []string{"on", "link"}},
	{"notsent_lowat", []string{"16384", "65536"}},
	{"adaptive_cc", []string{"true"}},
	{"adaptive_regrow", []string{"true"}},
	{"adaptive_lowat", []string{"true"}},
	{"adaptive_pacing", []string{"true"}},
	{"frame_size", []string{"4096", "65536"}},
	{"frame_ramp", []string{"true"}},
	{"session_window", []string{"1048576", "16777216"}},
	{"adaptive_window", []string{"true"}},
	{"hints", []string{"deps"}},
}

// ParseKnobs reads --knobs: comma-separated knob names of Space, each
// optionally with its own values, "cc=bbr|cubic,iw=16|32,push". "" is
// nil: the whole Space, which Prepare narrows to what the variant takes.
func ParseKnobs(s string) ([]Knob, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Knob
	for _, part := range strings.Split(s, ",") {
		name, vals, given := strings.Cut(strings.TrimSpace(part), "=")
		k := Knob{Name: name}
		if given {
			k.Values = strings.Split(vals, "|")
		} else if i := slices.IndexFunc(Space, func(x Knob) bool { return x.Name == name }); i >= 0 {
			k.Values = Space[i].Values
		}
		if slices.ContainsFunc(out, func(x Knob) bool { return x.Name == name }) {
			return nil, fmt.Errorf("--knobs: %s given twice", name)
		}
		out = append(out, k)
	}
	return out, nil
}

// CheckKnobs validates knobs against probe.Fields: a known configuration
// field (probe.ProfileField), values in its canonical spelling with the
// default first and no repeats, congestion controls this kernel offers.
// It returns the knobs in that form.
func CheckKnobs(knobs []Knob) ([]Knob, error) {
	var out []Knob
	for _, k := range knobs {
		if err := probe.ProfileField(k.Name); err != nil {
			return nil, fmt.Errorf("knob %s: %w", k.Name, err)
		}
		f, _ := probe.LookupField(k.Name)
		if len(k.Values) == 0 {
			return nil, fmt.Errorf("knob %s: no values to try (give them: %s=V1|V2)", k.Name, k.Name)
		}
		vals := []string{f.Default}
		for _, raw := range k.Values {
			v, err := canonValue(f, raw)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) < 2 {
			return nil, fmt.Errorf("knob %s: only its default %q to try; give another value", k.Name, f.Default)
		}
		out = append(out, Knob{Name: k.Name, Values: vals})
	}
	return out, nil
}

// canonValue is raw in the field's canonical spelling, refused when the
// field does not take it or, for cc, this kernel does not offer it.
func canonValue(f probe.Field, raw string) (string, error) {
	v, err := f.Canon(raw)
	if err != nil {
		return "", fmt.Errorf("knob %s: value %q: %w", f.Name, raw, err)
	}
	if f.Name == "cc" {
		if err := netem.CheckCongestionControl(v); err != nil {
			return "", fmt.Errorf("knob cc: %w", err)
		}
	}
	return v, nil
}
