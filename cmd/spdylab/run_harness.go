package main

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
)

// harnessBench adapts harness.Bench to the runner's Bench interface.
type harnessBench struct{ *harness.Bench }

func (b harnessBench) Manifest() ([]byte, error) { return json.Marshal(b.Bench.Manifest()) }

func init() {
	openBench = func(ctx context.Context, c probe.Condition, seed int64, workDir string) (study.Bench, error) {
		// Pages go to the run's shared work directory (the parent of the
		// bench's own) so benches of the same page reuse the files.
		b, err := harness.Open(ctx, c, harness.Options{WorkDir: filepath.Dir(workDir), Seed: seed})
		if err != nil {
			return nil, err
		}
		return harnessBench{b}, nil
	}
}
