package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study"
)

func init() {
	register(command{name: "merge", summary: "merge shard output directories of one study into one", run: mergeCmd})
}

func mergeCmd(args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: spdylab merge [--no-report] OUT SHARD_DIR...\n\nCopies every load stored in the shard directories (made by 'spdylab run --shard i/N')\ninto OUT, checking that they hold the same study and that no load appears twice,\nthen writes OUT/report.html.\n\nflags:\n")
		fs.PrintDefaults()
	}
	noReport := fs.Bool("no-report", false, "do not write the report")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(pos) < 2 {
		fs.Usage()
		return 2
	}
	n, err := study.Merge(pos[0], pos[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "spdylab merge:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "spdylab: merged %d loads from %d shards into %s\n", n, len(pos)-1, pos[0])
	if !*noReport {
		if _, err := report.Build(pos[0]); err != nil {
			fmt.Fprintln(os.Stderr, "spdylab merge: report:", err)
			return 1
		}
	}
	return 0
}
