package tune

import (
	"context"
	"maps"
	"path/filepath"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// evaluate loads, on every cell at the most runs: the baseline, the
// protocol's defaults, the winner, the winner with each knob put back to
// its default (the ablation) and the baseline given the winner's
// transport knobs; then fills res's evaluation, ablation and transport
// rows.
//
// Every one of these loads is fresh, in a store of its own (evalDir): the
// search's loads chose the winner, so judging it on them again would
// count the luck that made it win (a re-run of a tune judged on its
// search store came out 5-7% lower). The evaluation's store resumes like
// the search's, so a killed tune loads nothing twice.
func (t *Tuner) evaluate(ctx context.Context, winner Candidate, res *Result) error {
	res.Winner = winner
	knobs, ablated := Ablation(winner, t.valid)
	cands := append([]Candidate{{Settings: map[string]string{}}, winner}, ablated...)
	conds, err := t.candidateConds(cands, t.cells)
	if err != nil {
		return err
	}
	transport := t.transportKnobs(winner)
	var tconds []spec.Cond
	for _, cl := range t.cells {
		c, err := configured(cl.Base, ProfileName+"-transport", cl.Base.Proto, transport, t.cfg.Study.Timeout)
		if err != nil {
			return err
		}
		tconds = append(tconds, c)
	}
	all := append(bases(t.cells), flatten(conds)...)
	if len(transport) > 0 {
		all = append(all, tconds...)
	}
	t.logf("evaluation: %d configurations x %d cells x %d runs", len(cands)+1, len(t.cells), t.cfg.Budget.MaxRuns)
	es := t.studyOf(all, t.cfg.Budget.MaxRuns)
	es.Name, es.Description = es.Name+"-evaluation", "fresh loads judging the winner of "+es.Description
	samples, err := t.runStudy(ctx, es, t.evalDir())
	if err != nil {
		return err
	}
	res.Profile = t.Profile(winner).Label()
	res.Evaluation = []Row{t.row("defaults", nil, conds[0], t.cells, samples), t.row("winner", winner.Settings, conds[1], t.cells, samples)}
	for i, k := range knobs {
		r := t.row("without "+k, cands[2+i].Settings, conds[2+i], t.cells, samples)
		r.Knob = k
		res.Ablation = append(res.Ablation, r)
	}
	if len(transport) > 0 {
		r := Row{Name: "winner vs " + res.Baseline + " with " + (Candidate{Settings: transport}).Key(), Settings: transport}
		for i, cl := range t.cells {
			r.Gains = append(r.Gains, gainOf(cl.Label, t.isTrain(cl), samples[tconds[i].Hash], samples[conds[1][i].Hash]))
		}
		r.objectives(t.cfg.Objective)
		res.Transport = &r
	}
	res.LoadsStored = t.stored
	return nil
}

// evalDir is the evaluation's store: OUT/EvalDir.
func (t *Tuner) evalDir() string { return filepath.Join(t.cfg.Out, EvalDir) }

// transportKnobs are the winner's settings that are transport knobs the
// baseline's protocol takes too (probe.TransportFor owns the fact).
func (t *Tuner) transportKnobs(w Candidate) map[string]string {
	out := map[string]string{}
	for k, v := range w.Settings {
		if probe.TransportFor(k, t.cfg.Study.Baseline["protocol"]) {
			out[k] = v
		}
	}
	return out
}

// Profile is candidate c as the profile tune writes.
func (t *Tuner) Profile(c Candidate) *spec.Profile {
	p := &spec.Profile{Name: ProfileName, Protocols: []string{t.variant}, Settings: maps.Clone(c.Settings),
		Description: "spdylab tune of " + t.cfg.Study.Name + " for " + t.variant + " against " + t.cfg.Study.Baseline["protocol"] + " (objective " + t.cfg.Objective + ")"}
	if p.Settings == nil {
		p.Settings = map[string]string{}
	}
	p.SetHash()
	return p
}
