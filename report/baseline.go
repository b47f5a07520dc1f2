package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// setBaseline judges the study against another baseline (Options.Baseline):
// every factor named must be one of the study's, and at least one
// condition must hold all the values given, or the analysis would have no
// baseline at all. Nil keeps the study's own.
func (a *Analysis) setBaseline(base map[string]string) error {
	if len(base) == 0 {
		return nil
	}
	values := map[string]map[string]bool{}
	for _, c := range a.Study.Conditions {
		for f, v := range c.Values {
			if values[f] == nil {
				values[f] = map[string]bool{}
			}
			values[f][v] = true
		}
	}
	keys := slices.Sorted(maps.Keys(base))
	for _, f := range keys {
		if values[f] == nil {
			return fmt.Errorf("--baseline %s: the study has no factor %q (its factors: %s)", f, f, strings.Join(slices.Sorted(maps.Keys(values)), ", "))
		}
		if !values[f][base[f]] {
			return fmt.Errorf("--baseline %s=%s: the study's %s takes %s", f, base[f], f, strings.Join(slices.Sorted(maps.Keys(values[f])), ", "))
		}
	}
	s := *a.Study // the analysis's copy; the stored study keeps its own
	s.Baseline = maps.Clone(base)
	for _, c := range s.Conditions {
		if s.IsBaseline(c) {
			a.Study = &s
			return nil
		}
	}
	return fmt.Errorf("--baseline %s: no condition of the study holds all of these values", FormatBaseline(base))
}

// ParseBaseline reads --baseline's "FACTOR=VALUE,FACTOR=VALUE".
func ParseBaseline(spec string) (map[string]string, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--baseline %q: want FACTOR=VALUE[,FACTOR=VALUE...], e.g. protocol=https,adaptive_cc=true", part)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--baseline: %s given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// FormatBaseline is a baseline as --baseline spells it, factors sorted.
func FormatBaseline(base map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(base)) {
		parts = append(parts, k+"="+base[k])
	}
	return strings.Join(parts, ",")
}
