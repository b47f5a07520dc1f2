package spec

import "maps"

// BaselineTwins pairs each condition with the one its gain is computed
// against: twins[i] is the index in s.Conditions of condition i's baseline
// twin, i itself for a baseline condition, -1 when it has none. The twin
// holds condition i's values with the baseline's. A factor the baseline is
// measured at one value only (max_streams, say, which means nothing to
// https and is left out for it) is compared at that value, so a variant at
// every value of it still has a twin. The report and tune both pair by
// this, so a tune's gains are the report's.
func (s *Study) BaselineTwins() []int {
	byValues := make(map[string]int, len(s.Conditions))
	for i, c := range s.Conditions {
		byValues[ValuesKey(c.Values)] = i // a repeated set of values: the last one, as everywhere else
	}
	singles := s.baselineSingles()
	twins := make([]int, len(s.Conditions))
	for i, c := range s.Conditions {
		bv := maps.Clone(c.Values)
		if bv == nil {
			bv = map[string]string{}
		}
		maps.Copy(bv, s.Baseline)
		j, ok := byValues[ValuesKey(bv)]
		if !ok {
			maps.Copy(bv, singles)
			j, ok = byValues[ValuesKey(bv)]
		}
		if !ok {
			j = -1
		}
		twins[i] = j
	}
	return twins
}

// IsBaseline reports whether c holds every one of the baseline's values.
func (s *Study) IsBaseline(c Cond) bool {
	for k, v := range s.Baseline {
		if c.Values[k] != v {
			return false
		}
	}
	return true
}

// baselineSingles are the factors that take a single value across the
// baseline's conditions, with that value.
func (s *Study) baselineSingles() map[string]string {
	vals := map[string]map[string]bool{}
	for _, c := range s.Conditions {
		if !s.IsBaseline(c) {
			continue
		}
		for f, v := range c.Values {
			if vals[f] == nil {
				vals[f] = map[string]bool{}
			}
			vals[f][v] = true
		}
	}
	out := map[string]string{}
	for f, vs := range vals {
		if len(vs) == 1 {
			for v := range vs {
				out[f] = v
			}
		}
	}
	return out
}
