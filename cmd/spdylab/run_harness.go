package main

import (
	"context"
	"path/filepath"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
)

// openHarnessBench is the runner's Opener: the real bench (the harness).
func openHarnessBench(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, workDir string) (study.Bench, error) {
	// Pages go to the run's shared work directory (the parent of the
	// bench's own) so benches of the same page reuse the files.
	b, err := harness.Open(ctx, c, harness.Options{WorkDir: filepath.Dir(workDir), Seed: seed, Page: pg})
	if err != nil {
		return nil, err
	}
	return b, nil
}
