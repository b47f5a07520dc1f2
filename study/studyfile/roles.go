package studyfile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/study/spec"
)

// A [[matrix]] block may declare the set its conditions belong to:
// role = "calibration" (what a constant of the lab was fitted on) or
// "validation" (off that set, judging it). The role is no factor: it is
// kept beside each condition (spec.Cond.Role), so declaring it moves no
// condition hash and an existing store keeps its loads.
const roleKey = "role"

// blockRole takes a block's role out of its table and checks it; the rest
// of the table is factors.
func blockRole(m map[string]any, table string, lines lineIndex) (factors map[string]any, role string, err error) {
	raw, ok := m[roleKey]
	if !ok {
		return m, "", nil
	}
	line := lines.line(table + "." + roleKey)
	s, isString := raw.(string)
	if !isString {
		return nil, "", fmt.Errorf("line %d: %s = %v: want a string, one of %q", line, roleKey, raw, spec.Roles)
	}
	if err := spec.CheckRole(s); err != nil {
		return nil, "", fmt.Errorf("line %d: %v", line, err)
	}
	factors = maps.Clone(m)
	delete(factors, roleKey)
	return factors, s, nil
}

// setRole gives the condition at index i the role of the block being
// expanded: a block without one leaves it, and two blocks declaring
// different roles for one condition are an error naming it by the
// factors the file sets (a condition cannot judge the fit it was part of).
func (p *studyParser) setRole(i int, v map[string]string, given func(string) bool) error {
	c := &p.s.Conditions[i]
	switch {
	case p.role == "" || c.Role == p.role:
	case c.Role == "":
		c.Role = p.role
	default:
		var named []string
		for _, n := range slices.Sorted(maps.Keys(v)) {
			if given(n) {
				named = append(named, n+"="+v[n])
			}
		}
		return fmt.Errorf("%s: condition %s is declared %s here and %s in an earlier block: a condition is in one set",
			p.roleWhere, strings.Join(named, " "), p.role, c.Role)
	}
	return nil
}
