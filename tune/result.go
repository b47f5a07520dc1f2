package tune

import (
	"fmt"
	"math"
	"slices"

	"github.com/spdylab/spdylab/internal/stats"
)

// Result is what a tune found, as OUT/tune.json holds it.
type Result struct {
	Study     string   `json:"study"`
	Protocol  string   `json:"protocol"`
	Baseline  string   `json:"baseline"`
	Objective string   `json:"objective"`
	Metric    string   `json:"metric,omitempty"` // what the gains are of (probe.Metrics)
	Train     []string `json:"train_cells"`
	Test      []string `json:"test_cells"`
	// TrainPages and TestPages are the recorded pages as dealt
	// (SplitPages): no held-out page was loaded in the search.
	TrainPages []string `json:"train_pages,omitempty"`
	TestPages  []string `json:"test_pages,omitempty"`
	// EvalStore is the folder in OUT of the evaluation's store (EvalDir):
	// the evaluation's rows come from its fresh loads alone.
	EvalStore   string  `json:"evaluation_store"`
	Plan        []Round `json:"plan"`
	BudgetLoads int     `json:"budget_loads"`
	LoadsStored int     `json:"loads_stored"` // in OUT's store at the end (failed attempts included)
	Wall        string  `json:"wall,omitempty"`

	Rounds  []RoundResult `json:"rounds"`
	Winner  Candidate     `json:"winner"`
	Profile string        `json:"profile"` // the winner's label, NAME@HASH
	// Evaluation: the defaults and the winner against the baseline on
	// every cell, at Plan's most runs.
	Evaluation []Row `json:"evaluation"`
	// Ablation: the winner with each knob put back to its default.
	Ablation []Row `json:"ablation"`
	// Transport: the winner against the baseline given the winner's
	// transport knobs (probe.TransportFor); nil when it sets none.
	Transport *Row `json:"transport,omitempty"`
}

// RoundResult is one round of the search: every candidate's objective on
// the training cells, best first.
type RoundResult struct {
	Round
	Scored []Row `json:"scored"`
}

// Row is one configuration's gains per cell against a baseline, with the
// objective and the verdicts on the training cells and on the held-out
// ones apart; Gains lists the training cells first.
type Row struct {
	Name       string            `json:"name"`
	Settings   map[string]string `json:"settings"`
	Knob       string            `json:"knob,omitempty"` // ablation: the knob put back
	Objective  *float64          `json:"objective"`      // on the training cells
	Test       *float64          `json:"objective_test,omitempty"`
	TrainTally Tally             `json:"train_verdicts"`
	TestTally  *Tally            `json:"test_verdicts,omitempty"`
	Gains      []Gain            `json:"gains"`
}

// Tally counts one set of cells' verdicts (won, lost, undecided, no
// loads).
type Tally struct {
	Cells     int `json:"cells"`
	Won       int `json:"won"`
	Lost      int `json:"lost"`
	Undecided int `json:"undecided"`
	TooFew    int `json:"too_few,omitempty"` // too few loads for an interval
	NoLoads   int `json:"no_loads,omitempty"`
}

func (t *Tally) add(verdict string) {
	t.Cells++
	switch verdict {
	case string(stats.Won):
		t.Won++
	case string(stats.Lost):
		t.Lost++
	case string(stats.Undecided):
		t.Undecided++
	case string(stats.TooFewLoads):
		t.TooFew++
	default:
		t.NoLoads++
	}
}

// String is the tally as the summaries say it: "3 won, 1 lost, 0
// undecided of 4".
func (t Tally) String() string {
	s := fmt.Sprintf("%d won, %d lost, %d undecided of %d", t.Won, t.Lost, t.Undecided, t.Cells)
	if t.TooFew > 0 {
		s += fmt.Sprintf(" (%d with too few loads for an interval)", t.TooFew)
	}
	if t.NoLoads > 0 {
		s += fmt.Sprintf(" (%d without loads)", t.NoLoads)
	}
	return s
}

// The sets a cell belongs to, as tune.json and tune.html label them.
const (
	SetTraining = "training"
	SetHeldOut  = "held-out"
)

// Gain is one cell's gain (baseline median / this median of the tune's metric) with its
// 95% interval and the report's verdict.
type Gain struct {
	Cell    string   `json:"cell"`
	Train   bool     `json:"train"`
	Set     string   `json:"set"` // SetTraining or SetHeldOut
	Gain    *float64 `json:"gain"`
	Lo      *float64 `json:"lo,omitempty"`
	Hi      *float64 `json:"hi,omitempty"`
	Verdict string   `json:"verdict"`
	ci      stats.RatioCI
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// gainOf is one cell's gain from the baseline's and the configuration's
// page load times.
func gainOf(cellLabel string, train bool, base, plt []float64) Gain {
	ci := stats.MedianRatio(base, plt)
	set := SetHeldOut
	if train {
		set = SetTraining
	}
	return Gain{Cell: cellLabel, Train: train, Set: set, Gain: num(ci.Ratio), Lo: num(ci.Lo), Hi: num(ci.Hi), Verdict: Verdict(ci), ci: ci}
}

// objectives scores a row's gains and counts their verdicts on the
// training and the held-out cells apart, and puts the training cells
// first.
func (r *Row) objectives(objective string) {
	slices.SortStableFunc(r.Gains, func(a, b Gain) int {
		switch {
		case a.Train == b.Train:
			return 0
		case a.Train:
			return -1
		}
		return 1
	})
	var train, test []stats.RatioCI
	var tt Tally
	r.TrainTally = Tally{}
	for _, g := range r.Gains {
		if g.Train {
			train = append(train, g.ci)
			r.TrainTally.add(g.Verdict)
		} else {
			test = append(test, g.ci)
			tt.add(g.Verdict)
		}
	}
	r.Objective = num(Score(objective, train))
	if len(test) > 0 {
		r.Test, r.TestTally = num(Score(objective, test)), &tt
	}
}

// Split returns the row's gains on the training cells and on the
// held-out ones.
func (r Row) Split() (train, test []Gain) {
	for _, g := range r.Gains {
		if g.Train {
			train = append(train, g)
		} else {
			test = append(test, g)
		}
	}
	return train, test
}

// score is the row's training objective, NaN when it has none.
func (r *Row) score() float64 {
	if r.Objective == nil {
		return math.NaN()
	}
	return *r.Objective
}
