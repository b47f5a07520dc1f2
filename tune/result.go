package tune

import (
	"math"

	"github.com/spdylab/spdylab/internal/stats"
)

// Result is what a tune found, as OUT/tune.json holds it.
type Result struct {
	Study       string   `json:"study"`
	Protocol    string   `json:"protocol"`
	Baseline    string   `json:"baseline"`
	Objective   string   `json:"objective"`
	Train       []string `json:"train_cells"`
	Test        []string `json:"test_cells"`
	Plan        []Round  `json:"plan"`
	BudgetLoads int      `json:"budget_loads"`
	LoadsStored int      `json:"loads_stored"` // in OUT's store at the end (failed attempts included)
	Wall        string   `json:"wall,omitempty"`

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
// objective on the training cells and on the held-out ones.
type Row struct {
	Name      string            `json:"name"`
	Settings  map[string]string `json:"settings"`
	Knob      string            `json:"knob,omitempty"` // ablation: the knob put back
	Objective *float64          `json:"objective"`
	Test      *float64          `json:"objective_test,omitempty"`
	Gains     []Gain            `json:"gains"`
}

// Gain is one cell's gain (baseline PLT median / this PLT median) with its
// 95% interval and the report's verdict.
type Gain struct {
	Cell    string   `json:"cell"`
	Train   bool     `json:"train"`
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
	return Gain{Cell: cellLabel, Train: train, Gain: num(ci.Ratio), Lo: num(ci.Lo), Hi: num(ci.Hi), Verdict: Verdict(ci), ci: ci}
}

// objectives scores a row's gains on the training and the held-out cells.
func (r *Row) objectives(objective string) {
	var train, test []stats.RatioCI
	for _, g := range r.Gains {
		if g.Train {
			train = append(train, g.ci)
		} else {
			test = append(test, g.ci)
		}
	}
	r.Objective = num(Score(objective, train))
	if len(test) > 0 {
		r.Test = num(Score(objective, test))
	}
}

// score is the row's training objective, NaN when it has none.
func (r *Row) score() float64 {
	if r.Objective == nil {
		return math.NaN()
	}
	return *r.Objective
}
