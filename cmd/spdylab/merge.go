package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/store"
)

func init() {
	register(command{name: "merge", summary: "merge shard output directories of one study into one", run: mergeCmd})
}

func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: spdylab merge [--no-report] OUT SHARD_DIR...\n\nCopies every load stored in the shard directories (made by 'spdylab run --shard i/N')\ninto OUT, checking that they hold the same study and that no load appears twice,\nthen writes OUT/report.html.\n\nflags:\n")
		fs.PrintDefaults()
	}
	noReport := fs.Bool("no-report", false, "do not write the report")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) < 2 {
		fs.Usage()
		return 2
	}
	n, err := store.Merge(pos[0], pos[1:])
	if err != nil {
		fmt.Fprintln(stderr, "spdylab merge:", err)
		return 1
	}
	fmt.Fprintf(stderr, "spdylab: merged %d loads from %d shards into %s\n", n, len(pos)-1, pos[0])
	if !*noReport {
		if _, err := report.Build(pos[0]); err != nil {
			fmt.Fprintln(stderr, "spdylab merge: report:", err)
			return 1
		}
	}
	return 0
}
