package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spdylab/spdylab/netem"
)

func init() {
	register(command{
		name:     "clean",
		summary:  "remove testbeds (sl- namespaces, helper processes) left behind by killed runs",
		synopsis: "spdylab clean [-n] [--all]",
		examples: []string{
			"sudo spdylab clean -n    # list what would be removed",
			"sudo spdylab clean       # remove the testbeds of killed runs",
		},
		run: runClean,
	})
}

func runClean(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "also remove testbeds whose owning spdylab process is still running")
	dry := fs.Bool("n", false, "dry run: list what would be removed")
	setHelp(fs, "Removes the sl- network namespaces, the processes running in them and the\n"+
		"state under /run/spdylab of testbeds whose owner process is gone.")
	if err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "spdylab clean: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(stderr, cleanNeedsRoot(args))
		return 1
	}
	rep, err := netem.Clean(*all, *dry)
	verb := "removed"
	if *dry {
		verb = "would remove"
	}
	for _, pid := range rep.Killed {
		fmt.Fprintf(stdout, "%s process %d\n", map[bool]string{true: "would kill", false: "killed"}[*dry], pid)
	}
	for _, n := range rep.Namespaces {
		fmt.Fprintf(stdout, "%s namespace %s\n", verb, n)
	}
	for _, d := range rep.StateDirs {
		fmt.Fprintf(stdout, "%s %s\n", verb, d)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(stdout, "kept %s\n", s)
	}
	for _, s := range rep.Stuck {
		fmt.Fprintf(stdout, "cannot remove %s\n", s)
	}
	if len(rep.Namespaces)+len(rep.StateDirs) == 0 {
		fmt.Fprintln(stdout, "nothing to clean")
	}
	if err != nil {
		fmt.Fprintf(stderr, "spdylab clean: %v\n", err)
		return 1
	}
	return 0
}

// cleanNeedsRoot is what clean tells a user who is not root: why, and the
// same command line under sudo.
func cleanNeedsRoot(args []string) string {
	return "spdylab clean: needs root (it deletes network namespaces under /run/netns and the processes in them): run " +
		strings.Join(append([]string{"sudo", "spdylab", "clean"}, args...), " ")
}
