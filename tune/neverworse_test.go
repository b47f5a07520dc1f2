package tune

import (
	"context"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
)

// spreadBench is a fake evaluator whose loads differ by run: the baseline
// takes 100 ms; the variant's defaults 110; iw 16 about 100 with little
// spread (gain about 1, interval close around it); iw 32 a better median
// (80 ms, gain 1.25) with a wide spread (up to 200 ms, so its interval
// reaches down to about 0.67).
type spreadBench struct {
	c  probe.Condition
	pg *page.Manifest
}

func (b spreadBench) Load(ctx context.Context, proto string, run int) probe.Result {
	plt := 110.0
	switch {
	case proto == probe.ProtoHTTPS:
		plt = 100
	case b.c.TCP.IW == 16:
		plt = []float64{98, 99, 100, 101, 102}[run%5]
	case b.c.TCP.IW == 32:
		plt = []float64{60, 70, 80, 150, 200}[run%5]
	}
	return probe.Result{PLTms: plt, ToWms: plt - 10, Resources: 3, Started: time.Now(), HAR: []byte(`{"log":{}}`)}
}

func (b spreadBench) Check(context.Context) probe.LinkCheck { return probe.LinkCheck{OK: true} }
func (b spreadBench) Manifest() *page.Manifest              { return b.pg }
func (b spreadBench) Close() error                          { return nil }

// TestNeverWorsePicksTheBestLowerBound: "worst" (the smallest point
// estimate) picks iw 32 for its better median; never-worse picks iw 16,
// whose interval stays near 1 where iw 32's reaches far below it.
func TestNeverWorsePicksTheBestLowerBound(t *testing.T) {
	for _, tc := range []struct{ objective, want string }{
		{"worst", "32"},
		{"never-worse", "16"},
	} {
		cfg := fakeTuneConfig(t, oosStudy, &fakeTune{})
		cfg.Objective = tc.objective
		cfg.Budget = Budget{Loads: 100000, Eta: 2, MinRuns: 5, MaxRuns: 5, MaxSamples: 3}
		cfg.Open = func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (study.Bench, error) {
			return spreadBench{c: c, pg: pg}, nil
		}
		tn, err := Prepare(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tn.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Winner.Settings["iw"]; got != tc.want {
			t.Errorf("objective %s: winner %s, want iw %s", tc.objective, res.Winner, tc.want)
		}
	}
	cfg := fakeTuneConfig(t, oosStudy, &fakeTune{})
	cfg.Objective = "never-worse" // at fakeTuneConfig's 2..3 runs no cell has an interval
	if _, err := Prepare(cfg); err == nil {
		t.Error("never-worse with --min-runs 2 was accepted")
	}
}
