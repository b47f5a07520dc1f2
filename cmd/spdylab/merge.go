package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/spdylab/spdylab/report"
	"github.com/spdylab/spdylab/study/store"
)

func init() {
	register(command{name: "merge", summary: "merge shard output directories of one study into one", run: mergeCmd,
		synopsis: "spdylab merge [--no-report] [--partial] [--any-revision] OUT SHARD_DIR...",
		examples: []string{
			"spdylab merge out/study1 shard0 shard1 shard2    # dirs of 'spdylab run study1 --shard i/3'",
			"spdylab merge --partial out/first-look shard*   # a first look before every shard is done",
		}})
}

func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, "Copies every load stored in the shard directories (made by 'spdylab run --shard i/N')\ninto OUT, checking that they hold the same study, split one way and run by one\nspdylab build, that no load appears twice and that none is missing, then writes\nOUT/report.html. When shards are incomplete (a task failed or was killed, or a\ndirectory is missing) it names what is missing and the command that completes\neach shard, and merges nothing.")
	noReport := fs.Bool("no-report", false, "do not write the report")
	partial := fs.Bool("partial", false, "merge incomplete shards anyway (a first look; the report lacks the missing loads)")
	anyRevision := fs.Bool("any-revision", false, "merge shards run by different spdylab builds")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) < 2 {
		fs.Usage()
		return 2
	}
	set, err := store.CheckShards(pos[1:])
	switch {
	case errors.Is(err, store.ErrOtherRevision) && *anyRevision:
		fmt.Fprintln(stderr, "spdylab merge: warning:", err)
	case errors.Is(err, store.ErrOtherRevision):
		fmt.Fprintf(stderr, "spdylab merge: %v\nRe-run the odd shards with one build (into new directories), or give --any-revision to merge anyway.\n", err)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "spdylab merge:", err)
		return 1
	}
	if len(set.Missing) > 0 {
		printGaps(stderr, set)
		if !*partial {
			fmt.Fprintln(stderr, "Run those (a shard resumes from its results and repeats nothing), then merge again; --partial merges what there is.")
			return 1
		}
		fmt.Fprintln(stderr, "spdylab merge: --partial: merging what there is")
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

// gapConds is how many missing conditions of a shard merge names.
const gapConds = 5

// printGaps says which shards lack loads, which conditions, and how to
// complete each.
func printGaps(w io.Writer, set *store.ShardSet) {
	s := set.Study
	fmt.Fprintf(w, "spdylab merge: %d of %d loads of %s are missing, in %d of %d shards:\n", set.MissingLoads(), set.Loads, s.Name, len(set.Missing), set.N)
	for _, g := range set.Missing {
		where := "(no directory given)"
		if g.Dir != "" {
			where = "in " + g.Dir
		}
		name := "the study"
		if g.Shard.N > 1 {
			name = "shard " + g.Shard.String()
		}
		fmt.Fprintf(w, "  %s %s: %d loads of %d conditions missing:\n", name, where, g.Loads, len(g.Conds))
		for i, c := range g.Conds {
			if i == gapConds {
				fmt.Fprintf(w, "    and %d more conditions\n", len(g.Conds)-gapConds)
				break
			}
			var vals []string
			for _, f := range s.Varied {
				vals = append(vals, f+"="+c.Values[f])
			}
			if len(vals) == 0 {
				vals = []string{c.Describe(), "protocol=" + c.Proto}
			}
			fmt.Fprintf(w, "    %s (%s): %d of %d loads\n", strings.Join(vals, " "), c.Hash, c.Missing, s.Runs)
		}
		fmt.Fprintf(w, "    run: %s\n", g.Rerun)
	}
	if set.N > 1 {
		var idx []string
		for _, g := range set.Missing {
			idx = append(idx, fmt.Sprint(g.Shard.I))
		}
		fmt.Fprintf(w, "  (with examples/slurm-array.sh: SHARDS=%d sbatch --array=%s slurm-array.sh STUDY [flags], as before)\n", set.N, strings.Join(idx, ","))
	}
}
