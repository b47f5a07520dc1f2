// Command spdylab is the SPDY lab: a SPDY/3.1 stack, an emulated network,
// a browser-faithful page loader and a study runner in one binary.
//
// Each subcommand lives in its own file and registers itself in init(), so
// the packages behind them can grow independently.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spdylab/spdylab/internal/cpuprof"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// command is one `spdylab NAME ...` subcommand.
type command struct {
	name    string
	summary string
	// synopsis is the usage line(s) the command's help starts with, and
	// examples the command lines it shows ("CMD  # what it does"): at
	// least two (help.go prints them).
	synopsis string
	examples []string
	// run receives the arguments after the subcommand name and the writers
	// for its output and its diagnostics (os.Stdout and os.Stderr in the
	// binary, buffers in tests), and returns the process exit status. It
	// prints its own errors to stderr.
	run func(args []string, stdout, stderr io.Writer) int
}

// withoutWriters adapts a command that still prints to os.Stdout and
// os.Stderr itself to the command signature (for commands not yet moved).
func withoutWriters(run func(args []string) int) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, _, _ io.Writer) int { return run(args) }
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("spdylab: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: spdylab COMMAND [flags] [args]")
	fmt.Fprintln(os.Stderr, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'spdylab COMMAND -h' for a command's synopsis, examples and flags.")
}

// Stores written before the study model was stored hold only their study
// file: reading one (report, merge) parses it, once.
func init() { store.UseStudyParser(studyfile.ParsePages) }

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	name := os.Args[1]
	switch name {
	case "-h", "--help", "help":
		usage()
		os.Exit(0)
	case "--version", "-version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "spdylab: unknown command %q\n\n", name)
		usage()
		os.Exit(2)
	}
	stopProfile := cpuprof.FromEnv("") // SPDYLAB_CPUPROFILE=FILE
	status := c.run(os.Args[2:], os.Stdout, os.Stderr)
	stopProfile()
	os.Exit(status)
}
