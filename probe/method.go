package probe

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file owns the page methodology settings of a condition: how much of
// the page's recorded computation (compute), which dependencies (deps) and
// how much of a recording (until) a load replays. The NSDI'14 study's "no
// computation" and "no dependencies" conditions are compute none and deps
// flat. The page package applies them to a manifest (page/method.go).

// Compute values: the recorded delays between a parent's arrival and its
// children's requests kept, dropped, or scaled by a factor ("x0.5").
const (
	ComputeRecorded = "recorded"
	ComputeNone     = "none"
	computeScale    = "x"
	// MaxComputeScale bounds xF: a larger factor is a typo, not a study.
	MaxComputeScale = 100
)

// Deps values: the recorded dependency tree, or every resource referenced
// at the top of the document (found as its first bytes arrive).
const (
	DepsRecorded = "recorded"
	DepsFlat     = "flat"
)

// DepsModes are the valid deps values.
var DepsModes = []string{DepsRecorded, DepsFlat}

// Until values: a recorded page's load ends at the recording's onload (the
// resources first requested after it are left out) or replays all of it.
// Only recorded pages have an onload: page.UntilFor (probe cannot tell a
// recording from a generated page) stores a recording's rule explicitly,
// "" meaning onload, and a generated page's empty. An empty until on a
// recording is a condition stored before the field: all, the only rule then.
const (
	UntilOnload = "onload"
	UntilAll    = "all"
)

// UntilModes are the valid until values.
var UntilModes = []string{UntilOnload, UntilAll}

// Redirects values: a recording's http->https upgrades and repeated
// requests replayed (page import keeps them under marked URLs) or left out,
// as imports before the rule did. Resolved per page like until.
const (
	RedirectsReplay = "replay"
	RedirectsDrop   = "drop"
)

// RedirectsModes are the valid redirects values.
var RedirectsModes = []string{RedirectsReplay, RedirectsDrop}

// canonCompute is a compute value's canonical spelling: recorded, none or
// xF with F in Go's shortest float spelling; x1 is recorded and x0 none.
func canonCompute(v string) (string, error) {
	if v == ComputeRecorded || v == ComputeNone {
		return v, nil
	}
	if v == "" {
		return "", fmt.Errorf("compute is empty: want %s, %s or xF (a factor, e.g. x0.5)", ComputeRecorded, ComputeNone)
	}
	f, err := ComputeScale(v)
	if err != nil {
		return "", err
	}
	switch f {
	case 1:
		return ComputeRecorded, nil
	case 0:
		return ComputeNone, nil
	}
	return computeScale + strconv.FormatFloat(f, 'g', -1, 64), nil
}

// ComputeScale is the factor a compute value scales the recorded delays
// by: 1 for recorded (and ""), 0 for none, F for xF.
func ComputeScale(v string) (float64, error) {
	switch v {
	case "", ComputeRecorded:
		return 1, nil
	case ComputeNone:
		return 0, nil
	}
	num, ok := strings.CutPrefix(v, computeScale)
	if !ok {
		return 0, fmt.Errorf("compute %q: want %s, %s or xF (a factor, e.g. x0.5 or x2)", v, ComputeRecorded, ComputeNone)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > MaxComputeScale {
		return 0, fmt.Errorf("compute %q: the factor after x must be a number from 0 to %d (e.g. x0.5)", v, MaxComputeScale)
	}
	return f, nil
}

// normalizeMethod checks the methodology settings and stores their
// defaults empty, so conditions hashed before they existed keep their hash.
// Until keeps its value: page.UntilFor has decided it from the page.
func normalizeMethod(c Condition, cl Client) (Condition, error) {
	if c.Compute != "" {
		v, err := canonCompute(c.Compute)
		if err != nil {
			return c, err
		}
		if v == ComputeRecorded {
			v = ""
		}
		c.Compute = v
	}
	if c.Compute == ComputeNone {
		if cl.Browser {
			return c, fmt.Errorf("compute %s removes all client computation, which only the loader models; client %s computes for itself (use client %s, or scale the page's recorded delays with compute xF)", ComputeNone, cl.Name, ClientLoader)
		}
		if c.RendererCosts != "" && c.RendererCosts != "0s/0s" {
			return c, fmt.Errorf("compute %s removes the loader's renderer costs too, but renderer_costs is %s (leave it at %s)", ComputeNone, c.RendererCosts, RendererFromProfile)
		}
	}
	if c.Deps == DepsRecorded {
		c.Deps = ""
	}
	if c.Deps != "" && !member(c.Deps, DepsModes) {
		return c, fmt.Errorf("unknown deps %q (want %s)", c.Deps, OneOf(DepsModes))
	}
	if c.Until != "" && !member(c.Until, UntilModes) {
		return c, fmt.Errorf("unknown until %q (want %s)", c.Until, OneOf(UntilModes))
	}
	if c.Redirects != "" && !member(c.Redirects, RedirectsModes) {
		return c, fmt.Errorf("unknown redirects %q (want %s)", c.Redirects, OneOf(RedirectsModes))
	}
	return c, nil
}

// RendererCostsSetting is the renderer costs the loader runs with: none
// under compute none (NSDI'14's "no computation" removes all client
// computation, the browser's included), else the condition's.
func (c Condition) RendererCostsSetting() string {
	if c.Compute == ComputeNone {
		return "0s/0s"
	}
	return c.RendererCosts
}
