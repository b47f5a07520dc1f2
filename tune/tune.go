package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
)

// Config is one `spdylab tune`.
type Config struct {
	Study     *spec.Study
	Protocol  string // the variant to configure; "" = DefaultProtocol
	Objective string // one of Objectives
	// Metric is the probe.Metrics name the gains are computed on; "" is
	// the study's own (its file's metric key), else PLT. Loads without it are left out of the cells' samples.
	Metric string
	Train  float64 // fraction of the cells to train on (Split)
	Knobs  []Knob  // the space (ParseKnobs), checked by Prepare; nil: Space as far as the variant takes it
	Budget Budget  // Loads 0 with BudgetTime: loads from the estimate
	// BudgetTime, when set, is the budget as wall time, turned into
	// loads by the study's duration estimate.
	BudgetTime time.Duration
	Out        string
	Jobs       int
	Open       study.Opener
	Tools      map[string][]string // programs the benches start, for provenance (study.RunConfig.Tools)
	Progress   io.Writer           // each round's progress (the runner's, with ETA)
	Log        io.Writer           // rounds and notes
	TTY        bool
	Args       string
}

// DefaultBudget is the shape of the search unless told: keep a third per
// round, 3 loads per candidate and cell first, 5 (enough for an interval)
// at most and in the evaluation, up to 27 candidates.
var DefaultBudget = Budget{Eta: 3, MinRuns: 3, MaxRuns: 5, MaxSamples: 27}

// Tuner is a checked Config with its plan; Run spends it.
type Tuner struct {
	cfg         Config
	variant     string
	cells       []cell
	train, test []cell
	// trainPages and testPages are the recorded pages as dealt
	// (SplitPages); none when the study has fewer than two.
	trainPages, testPages []string
	knobs                 []Knob
	leftOut               []string // the default Space's knobs and values the variant cannot take, and why
	rounds                []Round
	stored                int // loads in the store at the last read
}

// Prepare checks everything before any load: the study's baseline, the
// protocol, the knobs (probe.Fields, the kernel, the variant's
// conditions), the objective and the budget (refused with the numbers
// when too small for one round of two candidates).
func Prepare(cfg Config) (*Tuner, error) {
	t := &Tuner{cfg: cfg, variant: cfg.Protocol}
	var err error
	if err = CheckObjective(cfg.Objective); err != nil {
		return nil, err
	}
	if err = checkObjectiveRuns(cfg.Objective, cfg.Budget.MinRuns); err != nil {
		return nil, err
	}
	t.cfg.Metric = cmp.Or(cfg.Metric, cfg.Study.Metric) // the study's own, else PLT
	if err = checkMetric(cfg.Study, t.cfg.Metric); err != nil {
		return nil, err
	}
	if cfg.Train <= 0 || cfg.Train > 1 {
		return nil, fmt.Errorf("--train %g: want a fraction of the cells in (0, 1]", cfg.Train)
	}
	if t.variant == "" {
		if t.variant, err = DefaultProtocol(cfg.Study); err != nil {
			return nil, err
		}
	}
	if t.cells, err = cellsOf(cfg.Study, t.variant); err != nil {
		return nil, err
	}
	if len(cfg.Knobs) == 0 {
		// Named knobs must all apply (a typo or a knob the variant ignores
		// is refused); the default space keeps what applies and says
		// what it left out.
		if t.knobs, t.leftOut = spaceFor(cfg.Study, t.cells); len(t.knobs) == 0 {
			return nil, fmt.Errorf("no knob of the search space applies to %s: %s", t.variant, strings.Join(t.leftOut, "; "))
		}
	} else if t.knobs, err = CheckKnobs(cfg.Knobs); err != nil {
		return nil, err
	} else if err = checkKnobsOn(cfg.Study, t.cells, t.knobs); err != nil {
		return nil, err
	}
	t.splitCells()
	if cfg.BudgetTime > 0 {
		if t.cfg.Budget.Loads, err = t.loadsIn(cfg.BudgetTime); err != nil {
			return nil, err
		}
	}
	t.rounds, err = Plan(t.cfg.Budget, len(t.train), len(t.cells), len(t.knobs))
	return t, err
}

// splitCells deals the cells: the recorded pages first (SplitPages: a
// held-out page's cells are all held out), then the cells of the training
// pages by Split, so that the training share stays --train of all cells
// as far as the training pages hold that many.
func (t *Tuner) splitCells() {
	seed := t.cfg.Study.Seed
	t.trainPages, t.testPages = SplitPages(recordedPages(t.cells), t.cfg.Train, seed)
	var keys []string
	terms := map[string][]string{}
	byKey := map[string]cell{}
	var heldPage []cell
	for _, c := range t.cells {
		if slices.Contains(t.testPages, c.Variant.Page) {
			heldPage = append(heldPage, c)
			continue
		}
		keys, byKey[c.Key] = append(keys, c.Key), c
		terms[c.Key] = cellTerms(t.cfg.Study, c.Variant)
	}
	want := min(len(keys), max(1, int(math.Round(t.cfg.Train*float64(len(t.cells))))))
	train, test := Split(keys, terms, float64(want)/float64(len(keys)), seed)
	for _, k := range train {
		t.train = append(t.train, byKey[k])
	}
	for _, k := range test {
		t.test = append(t.test, byKey[k])
	}
	t.test = append(t.test, heldPage...)
}

// loadsIn turns a wall-time budget into loads by the study's estimate of
// one run of its baseline and variant conditions.
func (t *Tuner) loadsIn(d time.Duration) (int, error) {
	s := t.studyOf(nil, 1)
	for _, c := range t.cells {
		s.Conditions = append(s.Conditions, c.Base, c.Variant)
	}
	s.Conditions = dedupe(s.Conditions)
	e, err := spec.EstimateDuration(s, max(t.cfg.Jobs, 2))
	if err != nil {
		return 0, fmt.Errorf("estimating the time per load for --budget %s: %w", d, err)
	}
	per := e.Total / time.Duration(max(e.Probes, 1))
	if per <= 0 {
		return 0, errors.New("the estimate gives no time per load; give --budget in loads")
	}
	return int(d / per), nil
}

// Plan says what Run will do, for the announcement.
func (t *Tuner) Plan() string {
	plan := fmt.Sprintf("tune %s against %s on %d of %d cells (%d held out), %d knobs; rounds %v; budget %d loads (search %d + fresh evaluation at most %d)",
		t.variant, t.cfg.Study.Baseline["protocol"], len(t.train), len(t.cells), len(t.test), len(t.knobs), t.rounds,
		t.cfg.Budget.Loads, SearchLoads(t.rounds, len(t.train)), t.planned()-SearchLoads(t.rounds, len(t.train)))
	if len(t.testPages) > 0 {
		plan += fmt.Sprintf("; recorded pages: %d to train on, %d held out (never in the search): %s", len(t.trainPages), len(t.testPages), strings.Join(t.testPages, ", "))
	}
	if len(t.leftOut) > 0 {
		plan += "; left out of the search space: " + strings.Join(t.leftOut, "; ")
	}
	return plan
}

// studyOf is the study model of one step of the tune (its conditions added
// by the caller): one name and seed for every step, so one store takes
// them all (store.Regrow).
func (t *Tuner) studyOf(conds []spec.Cond, runs int) *spec.Study {
	s := t.cfg.Study
	step := &spec.Study{Name: "tune-" + s.Name, Description: "spdylab tune of " + s.Name, Runs: runs, Seed: s.Seed,
		Timeout: s.Timeout, Baseline: s.Baseline, Varied: slices.Clone(s.Varied), Conditions: conds, NoLink: s.NoLink, Pages: s.Pages, Dir: s.Dir}
	// The knobs label the candidates in the store's report and in
	// `spdylab why` ("spdy/3.1 sessions=3 iw=32 vs https").
	step.AddVaried("profile")
	for _, k := range t.knobs {
		step.AddVaried(k.Name)
	}
	return step
}

// Run searches, evaluates the winner and writes OUT/profile.toml,
// tune.json and tune.html. A killed Run resumes from the store.
func (t *Tuner) Run(ctx context.Context) (*Result, error) {
	res := &Result{Study: t.cfg.Study.Name, Protocol: t.variant, Baseline: t.cfg.Study.Baseline["protocol"],
		Objective: t.cfg.Objective, Metric: t.metric().Name, Plan: t.rounds, BudgetLoads: t.cfg.Budget.Loads,
		TrainPages: t.trainPages, TestPages: t.testPages, EvalStore: EvalDir}
	for _, c := range t.train {
		res.Train = append(res.Train, c.Label)
	}
	for _, c := range t.test {
		res.Test = append(res.Test, c.Label)
	}
	start := time.Now()
	winner, err := t.search(ctx, res)
	if err != nil {
		return res, err
	}
	if err := t.evaluate(ctx, winner, res); err != nil {
		return res, err
	}
	res.Wall = time.Since(start).Round(time.Second).String()
	return res, t.write(res)
}
