package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// ProfileName names the winner's profile and every candidate's, so a study
// with the written profile as its profile factor loads the very
// conditions (the same hashes) the tune stored.
const ProfileName = "tuned"

// search runs the rounds of successive halving and returns the winner.
// Round k's candidates follow from the seed and the stored results of
// rounds 0..k-1, so a resumed tune takes the same path.
func (t *Tuner) search(ctx context.Context, res *Result) (Candidate, error) {
	cands := Sample(t.knobs, t.rounds[0].Candidates, t.cfg.Study.Seed, t.valid)
	for i, r := range t.rounds {
		conds, err := t.candidateConds(cands, t.train)
		if err != nil {
			return Candidate{}, err
		}
		s := t.studyOf(append(bases(t.train), flatten(conds)...), r.Runs)
		t.logf("round %d/%d: %d candidates x %d training cells x %d runs", i+1, len(t.rounds), len(cands), len(t.train), r.Runs)
		samples, err := t.runStudy(ctx, s, t.cfg.Out)
		if err != nil {
			return Candidate{}, err
		}
		rows := make([]Row, len(cands))
		scores := make([]float64, len(cands))
		for ci, c := range cands {
			rows[ci] = t.row(c.String(), c.Settings, conds[ci], t.train, samples)
			scores[ci] = rows[ci].score()
		}
		keep := 1
		if i+1 < len(t.rounds) {
			keep = t.rounds[i+1].Candidates
		}
		order := Keep(scores, len(cands))
		rr := RoundResult{Round: Round{Candidates: len(cands), Runs: r.Runs}}
		var next []Candidate
		for k, ci := range order {
			rr.Scored = append(rr.Scored, rows[ci])
			if k < keep {
				next = append(next, cands[ci])
			}
		}
		res.Rounds = append(res.Rounds, rr)
		t.logf("round %d/%d: best %s (objective %s)", i+1, len(t.rounds), rr.Scored[0].Name, fmtNum(rr.Scored[0].Objective))
		cands = next
	}
	return cands[0], nil
}

// candidateConds is each candidate's condition in each cell.
func (t *Tuner) candidateConds(cands []Candidate, cells []cell) ([][]spec.Cond, error) {
	out := make([][]spec.Cond, len(cands))
	for i, c := range cands {
		for _, cl := range cells {
			cond, err := configured(cl.Variant, ProfileName, t.variant, c.Settings, t.cfg.Study.Timeout)
			if err != nil {
				return nil, fmt.Errorf("candidate %s: %w", c, err)
			}
			out[i] = append(out[i], cond)
		}
	}
	return out, nil
}

// row is one configuration's gains against the cells' baselines.
func (t *Tuner) row(name string, settings map[string]string, conds []spec.Cond, cells []cell, samples map[string][]float64) Row {
	r := Row{Name: name, Settings: settings}
	for i, cl := range cells {
		r.Gains = append(r.Gains, gainOf(cl.Label, t.isTrain(cl), samples[cl.Base.Hash], samples[conds[i].Hash]))
	}
	r.objectives(t.cfg.Objective)
	return r
}

func (t *Tuner) isTrain(c cell) bool {
	for _, x := range t.train {
		if x.Key == c.Key {
			return true
		}
	}
	return false
}

// runStudy runs one step's study into the store in dir (grown to take
// it) through the study runner, and returns every condition's successful
// page load times in that store alone.
func (t *Tuner) runStudy(ctx context.Context, s *spec.Study, dir string) (map[string][]float64, error) {
	s.Conditions = dedupe(s.Conditions)
	if err := store.Regrow(dir, s); err != nil {
		return nil, err
	}
	if t.stored > 0 {
		t.logf("%d loads stored so far; the plan spends at most %d", t.stored, t.planned())
	}
	cfg := study.RunConfig{Study: s, Out: dir, Resume: true, Jobs: t.cfg.Jobs, Open: t.cfg.Open, Tools: t.cfg.Tools,
		Progress: t.cfg.Progress, Log: t.cfg.Log, TTY: t.cfg.TTY, Quiet: true, Args: t.cfg.Args}
	sum, err := study.RunInto(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if sum.Skipped > 0 {
		t.logf("%d loads were already stored and were skipped", sum.Skipped)
	}
	return t.samples(dir)
}

// samples reads every condition's successful loads' values of the metric
// from the store in dir,
// and counts the loads of both stores.
func (t *Tuner) samples(dir string) (map[string][]float64, error) {
	out, n, err := readValues(dir, t.metric())
	if err != nil {
		return nil, err
	}
	other := t.evalDir()
	if dir == other {
		other = t.cfg.Out
	}
	_, m, err := readValues(other, t.metric())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	t.stored = n + m
	return out, nil
}

// readValues is every condition's values of metric (its successful loads
// that have it) in the store in dir and
// the number of loads it holds (failed attempts included);
// os.ErrNotExist when dir holds no store.
func readValues(dir string, metric probe.Metric) (map[string][]float64, int, error) {
	if _, err := os.Stat(filepath.Join(dir, store.DBName)); err != nil {
		return nil, 0, err
	}
	st, err := store.OpenStore(dir)
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	probes, err := st.Probes(false)
	if err != nil {
		return nil, 0, err
	}
	out := map[string][]float64{}
	for _, p := range probes {
		if v, ok := metric.Of(&p.Result); ok {
			out[p.CondHash] = append(out[p.CondHash], v)
		}
	}
	return out, len(probes), nil
}

// planned bounds the loads of the whole tune (search and evaluation).
func (t *Tuner) planned() int {
	return SearchLoads(t.rounds, len(t.train)) + EvalLoads(len(t.cells), len(t.knobs), t.cfg.Budget.MaxRuns)
}

func (t *Tuner) logf(format string, a ...any) {
	if t.cfg.Log != nil {
		fmt.Fprintf(t.cfg.Log, "spdylab tune: "+format+"\n", a...)
	}
}

func bases(cells []cell) []spec.Cond {
	out := make([]spec.Cond, len(cells))
	for i, c := range cells {
		out[i] = c.Base
	}
	return out
}

func flatten(x [][]spec.Cond) []spec.Cond {
	var out []spec.Cond
	for _, c := range x {
		out = append(out, c...)
	}
	return out
}

// dedupe keeps the first condition of each hash (the defaults candidate
// is the study's own variant condition).
func dedupe(cs []spec.Cond) []spec.Cond {
	seen := map[string]bool{}
	var out []spec.Cond
	for _, c := range cs {
		if !seen[c.Hash] {
			seen[c.Hash] = true
			out = append(out, c)
		}
	}
	return out
}

func fmtNum(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *x)
}
