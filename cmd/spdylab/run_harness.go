package main

import (
	"context"
	"path/filepath"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
)

// harnessOpener is the runner's Opener: the real bench (the harness), with
// one capture per load in pcapDir when it is set.
func harnessOpener(pcapDir string) study.Opener {
	return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, workDir string) (study.Bench, error) {
		// Pages go to the run's shared work directory (the parent of the
		// bench's own) so benches of the same page reuse the files.
		opt := harness.Options{WorkDir: filepath.Dir(workDir), Seed: seed, Page: pg}
		if pcapDir != "" {
			opt.PcapDir, opt.PcapName = pcapDir, storeKeyName(c)
		}
		b, err := harness.Open(ctx, c, opt)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}

// benchTools are the programs beside the Go code that a run's benches may
// start, whose versions the run's provenance records.
func benchTools() map[string][]string {
	tools := map[string][]string{"node": {"node", "--version"}}
	if bin, err := browser.FindBinary(""); err == nil {
		tools["chromium"] = []string{bin, "--version"}
	}
	return tools
}

// storeKeyName names a load's capture after its key in the store: the
// hash of the condition with the load's protocol (the bench's conditions
// differ in nothing else) and the run.
func storeKeyName(c probe.Condition) func(proto string, run int) string {
	return func(proto string, run int) string {
		load := c
		load.Proto = proto
		return harness.LoadFileName(spec.HashCondition(load), proto, run, ".pcap")
	}
}
