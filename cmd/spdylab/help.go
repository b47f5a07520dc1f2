package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// Help texts. Every command's -h prints the same parts in the same order:
// its synopsis and examples (declared with the command: command.synopsis,
// command.examples), what it does, then its flags, in titled groups where
// a command has many. A bad flag prints only the error and where the help
// is (parseFlags), not the whole help.

// flagGroup is a titled set of flags in a help text, in the order shown.
type flagGroup struct {
	title string
	names []string
}

// setHelp makes fs's usage the command's help: the synopsis and examples
// of the command fs belongs to (fs.Name()'s first word: "link check" is
// link's), about, and the flags. Flags that no group names come last under
// "flags" (or "other flags" after groups), so a flag added later still
// shows; deprecated ones (usage starting "deprecated") do not.
func setHelp(fs *flag.FlagSet, about string, groups ...flagGroup) {
	fs.Usage = func() { printHelp(fs.Output(), fs, about, groups) }
}

func printHelp(w io.Writer, fs *flag.FlagSet, about string, groups []flagGroup) {
	name, _, _ := strings.Cut(fs.Name(), " ")
	c := commands[name]
	printSynopsis(w, c)
	fmt.Fprintln(w, "\nexamples:")
	for _, ex := range c.examples {
		fmt.Fprintf(w, "  %s\n", ex)
	}
	if about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(about, "\n"))
	}
	shown := map[string]bool{}
	for _, g := range groups {
		printFlagGroup(w, fs, g.title, g.names, shown)
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !shown[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	title := "flags"
	if len(groups) > 0 {
		title = "other flags"
	}
	printFlagGroup(w, fs, title, rest, shown)
}

// printSynopsis prints the usage line(s) a help text starts with.
func printSynopsis(w io.Writer, c command) {
	for i, line := range strings.Split(strings.TrimSpace(c.synopsis), "\n") {
		prefix := "usage: "
		if i > 0 {
			prefix = "       "
		}
		fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimSpace(line))
	}
}

// printFlagGroup prints the flags named (those fs defines, not yet shown
// and not deprecated) under title, as flag.PrintDefaults would but with
// "--" for long names, the spelling the README and errors use.
func printFlagGroup(w io.Writer, fs *flag.FlagSet, title string, names []string, shown map[string]bool) {
	var lines []string
	for _, n := range names {
		f := fs.Lookup(n)
		if f == nil || shown[n] {
			continue
		}
		shown[n] = true
		if strings.HasPrefix(f.Usage, "deprecated") {
			continue
		}
		lines = append(lines, flagHelp(f))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n%s", title, strings.Join(lines, ""))
}

// flagHelp is one flag's entry: "  --name type" and its usage below.
func flagHelp(f *flag.Flag) string {
	typ, usage := flag.UnquoteUsage(f)
	if _, ok := f.Value.(*durationValue); ok && typ == "value" {
		typ = "duration"
	}
	if k, ok := f.Value.(interface{ Kind() string }); ok && typ == "value" {
		typ = k.Kind() // a study factor's flag: its factor's type
	}
	dash := "--"
	if len(f.Name) == 1 {
		dash = "-"
	}
	head := "  " + dash + f.Name
	if typ != "" {
		head += " " + typ
	}
	if !slices.Contains([]string{"", "0", "false", "0s", "[]"}, f.DefValue) {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	return head + "\n        " + strings.ReplaceAll(usage, "\n", "\n        ") + "\n"
}

// printCommandHelp is the help of a command whose flags belong to its
// subcommands (page, link, har): synopsis, examples and about.
func printCommandHelp(w io.Writer, name, about string) {
	printHelp(w, flag.NewFlagSet(name, flag.ContinueOnError), about, nil)
}

// unknownSubcommand is the usage error of a word that is not one of the
// subcommands of command name: it names the word and the subcommands.
func unknownSubcommand(stderr io.Writer, name, word string, subs ...string) int {
	return usageError(stderr, name, "unknown subcommand %q (want %s)", word, probe.OneOf(subs))
}
