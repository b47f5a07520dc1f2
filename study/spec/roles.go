package spec

import (
	"fmt"
	"strings"
)

// A number fitted on some conditions says little about those same
// conditions: a study that fits a constant (the loader's renderer costs,
// a time model) declares which of its conditions it was fitted on and
// which it is judged on, and the report gives the two apart. The role is
// the study's, beside each condition (Cond.Role): a condition measures the
// same whichever set it is in, so its hash and its stored loads do not
// depend on it.
const (
	// RoleCalibration: the conditions a constant of the lab was fitted on.
	RoleCalibration = "calibration"
	// RoleValidation: conditions off the calibration set, which judge it.
	RoleValidation = "validation"
)

// Roles are the roles a study file may declare.
var Roles = []string{RoleCalibration, RoleValidation}

// CheckRole refuses a role not in Roles.
func CheckRole(r string) error {
	for _, x := range Roles {
		if x == r {
			return nil
		}
	}
	return fmt.Errorf("role %q: want one of %s", r, strings.Join(Roles, ", "))
}

// HasRoles reports whether any condition of s declares a role.
func (s *Study) HasRoles() bool {
	for _, c := range s.Conditions {
		if c.Role != "" {
			return true
		}
	}
	return false
}
