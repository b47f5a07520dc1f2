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
	printHead(w, fs, about)
	shown := map[string]bool{helpAllFlag: true}
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

// printHead prints what every help starts with: the synopsis and
// examples of the command fs belongs to, and about.
func printHead(w io.Writer, fs *flag.FlagSet, about string) {
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
	head, usage := flagHead(f)
	return "  " + head + "\n        " + strings.ReplaceAll(usage, "\n", "\n        ") + "\n"
}

// flagHead is a flag's "--name type" and its usage with its default.
func flagHead(f *flag.Flag) (head, usage string) {
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
	head = dash + f.Name
	if typ != "" {
		head += " " + typ
	}
	if !slices.Contains([]string{"", "0", "false", "0s", "[]"}, f.DefValue) {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	return head, usage
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

// Short help. A command with more flags than a screen holds (load) shows
// on -h what it does in a few lines and its common flags one line each,
// and everything setHelp would show under --help-all. The one-line help
// is generated from the flags' own usage (probe.Fields' help for the
// condition's flags), so it never drifts from the full text.

// helpAllFlag is the flag that prints the full help.
const helpAllFlag = "help-all"

// helpAll is --help-all's value: parseFlags prints the full help when it
// was given.
type helpAll struct {
	print func()
	asked bool
}

func (h *helpAll) String() string   { return "" }
func (h *helpAll) Set(string) error { h.asked = true; return nil }
func (h *helpAll) IsBoolFlag() bool { return true }

// setShortHelp makes fs's -h the short help (printHead with short, then
// the common flags one line each) and defines --help-all, which prints
// setHelp's help of about and groups.
func setShortHelp(fs *flag.FlagSet, short string, common []string, about string, groups ...flagGroup) {
	fs.Var(&helpAll{print: func() { printHelp(fs.Output(), fs, about, groups) }}, helpAllFlag, "print every flag with its full help")
	fs.Usage = func() { printShortHelp(fs.Output(), fs, short, common) }
}

// askedHelpAll tells whether fs was given --help-all, and prints the full
// help if so.
func askedHelpAll(fs *flag.FlagSet) bool {
	f := fs.Lookup(helpAllFlag)
	if f == nil {
		return false
	}
	h, ok := f.Value.(*helpAll)
	if ok && h.asked {
		h.print()
	}
	return ok && h.asked
}

func printShortHelp(w io.Writer, fs *flag.FlagSet, short string, common []string) {
	printHead(w, fs, short)
	var heads, usages []string
	width := 0
	for _, n := range common {
		if f := fs.Lookup(n); f != nil {
			head, usage := flagHead(f)
			heads, usages = append(heads, head), append(usages, usage)
			width = max(width, len(head))
		}
	}
	fmt.Fprintf(w, "\ncommon flags (every flag with its full help: spdylab %s --%s):\n", fs.Name(), helpAllFlag)
	for i, head := range heads {
		fmt.Fprintf(w, "  %-*s  %s\n", width, head, oneLine(usages[i], shortHelpWidth-4-width))
	}
}

// shortHelpWidth is the width the short help's flag lines fit in.
const shortHelpWidth = 110

// oneLine is the start of a flag's usage that fits n columns: its first
// clause (up to a " (", "; ", ". X" or line break, what follows qualifies
// it; a clause of a few words, "downlink (server->client) rate", keeps
// its parenthesis) and its default, cut at a word with "..." when still
// longer.
func oneLine(usage string, n int) string {
	text, def := usage, ""
	if i := strings.LastIndex(usage, " (default "); i >= 0 && strings.HasSuffix(usage, ")") {
		text, def = usage[:i], usage[i:]
	}
	text = text[:clauseEnd(text)]
	if room := n - len(def); len(text) > room {
		cut := strings.LastIndex(text[:max(room-3, 0)], " ")
		text = strings.TrimRight(text[:max(cut, 0)], ",;:") + "..."
	}
	return text + def
}

// minClause is the shortest first clause oneLine ends at.
const minClause = 24

// clauseEnd is where text's first clause of at least minClause bytes ends.
func clauseEnd(text string) int {
	for i := minClause; i < len(text); i++ {
		rest := text[i:]
		switch {
		case strings.HasPrefix(rest, " ("), strings.HasPrefix(rest, "; "), rest[0] == '\n':
			return i
		case len(rest) > 2 && strings.HasPrefix(rest, ". ") && rest[2] >= 'A' && rest[2] <= 'Z':
			return i
		}
	}
	return len(text)
}
