package spec

import (
	"sort"
	"strings"
)

// Sweep is one factor stepped through its values while every other factor
// stays put: the points one line of a sweep figure may join. Page and the
// baseline's factors (the variants compared) are the figure's lines, so
// they are not held; everything else is. study4-google has one sweep each
// of rate (at 60 ms), RTT (at 5 Mbit/s) and initcwnd (at 100 Mbit/s, 200
// ms, 1000 packets of queue); a full cross of factors has one sweep of
// each factor per combination of the others. A point where two sweeps of
// different factors cross (5 Mbit/s at 60 ms) lies on both.
type Sweep struct {
	Factor string
	// Held is every other factor's value along the sweep, page and the
	// baseline's factors excepted.
	Held map[string]string
}

// Has reports whether c lies on the sweep: every held factor at its value.
func (sw Sweep) Has(c Cond) bool {
	for f, v := range sw.Held {
		if c.Values[f] != v {
			return false
		}
	}
	return true
}

// Sweeps lists the sweeps of factor f in study order: the conditions
// grouped by the values of every factor but f, the page and the
// baseline's, keeping the groups in which f takes two values or more. A
// condition lies on at most one sweep of f. A baseline factor has none:
// its values are the variants every sweep compares.
func Sweeps(s *Study, f string) []Sweep {
	if _, variant := s.Baseline[f]; variant {
		return nil
	}
	var sweeps []Sweep
	values := map[string]map[string]bool{} // held key -> values of f seen
	at := map[string]int{}                 // held key -> index in sweeps
	for _, c := range s.Conditions {
		held := map[string]string{}
		for k, v := range c.Values {
			if _, variant := s.Baseline[k]; k != f && k != "page" && !variant {
				held[k] = v
			}
		}
		key := ValuesKey(held)
		if _, ok := at[key]; !ok {
			at[key] = len(sweeps)
			sweeps = append(sweeps, Sweep{Factor: f, Held: held})
			values[key] = map[string]bool{}
		}
		values[key][c.Values[f]] = true
	}
	var out []Sweep
	for _, sw := range sweeps {
		if len(values[ValuesKey(sw.Held)]) > 1 {
			out = append(out, sw)
		}
	}
	return out
}

// ValuesKey is a canonical string of factor values (a map's keys sorted),
// for grouping conditions by the values they share.
func ValuesKey(held map[string]string) string {
	keys := make([]string, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + held[k] + "\x00")
	}
	return b.String()
}
