package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/study/spec"
)

// runsFlags are `spdylab run`'s --runs (a number, or auto),
// --runs-target and --runs-max.
type runsFlags struct {
	n      int  // --runs N; 0 = the study's
	auto   bool // --runs auto
	target string
	max    int
}

// register adds the flags to fs.
func (r *runsFlags) register(fs *flag.FlagSet) {
	fs.Var((*runsValue)(r), "runs", "loads per condition: N overrides the study's (smoke tests, CI), auto adds runs to each bench until every gain's 95% interval is within --runs-target, up to --runs-max; both change the study's fingerprint")
	fs.StringVar(&r.target, "runs-target", "", fmt.Sprintf("with runs auto: the interval's half-width as a share of the gain (default %g%%)", 100*spec.DefaultAutoTarget))
	fs.IntVar(&r.max, "runs-max", 0, fmt.Sprintf("with runs auto: the most runs a bench gets (default %d)", spec.DefaultAutoMax))
}

// runsValue is --runs: N (1..10000) or auto.
type runsValue runsFlags

func (v *runsValue) String() string {
	switch {
	case v == nil || v.n == 0 && !v.auto:
		return ""
	case v.auto:
		return "auto"
	}
	return strconv.Itoa(v.n)
}

func (v *runsValue) Set(s string) error {
	if s == "auto" {
		v.auto, v.n = true, 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 10000 {
		return fmt.Errorf("want a number of loads per condition (1..10000) or auto, got %q", s)
	}
	v.n, v.auto = n, false
	return nil
}

// apply sets the study's runs: fixed (--runs N, which also turns off a
// study's runs = "auto"), or automatic (--runs auto or the study's
// setting) with the target and cap given.
func (r runsFlags) apply(s *spec.Study) error {
	if r.n > 0 {
		s.RunsAuto = nil
	}
	if !r.auto && s.RunsAuto == nil {
		if r.target != "" || r.max != 0 {
			return errors.New("--runs-target and --runs-max need --runs auto (or runs = \"auto\" in the study)")
		}
		return nil
	}
	a := spec.DefaultAutoRuns()
	if s.RunsAuto != nil {
		a = *s.RunsAuto
	}
	if r.target != "" {
		pct, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(r.target, "%")), 64)
		if err != nil {
			return fmt.Errorf("--runs-target %q: want a percentage of the gain, e.g. 5%%", r.target)
		}
		a.Target = pct / 100
	}
	if r.max != 0 {
		a.Max = r.max
	}
	return s.SetRunsAuto(a)
}
