package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

func init() {
	register(command{
		name:     "page",
		summary:  "generate, import, list and inspect test pages (gen, import, list, show)",
		synopsis: pageSynopsis,
		examples: []string{
			"spdylab page gen pageA --shards 4 -o site",
			"spdylab page import page.har -o pages/example    # then: spdylab load --page pages/example",
			"spdylab page show --tree pages/example",
		},
		run: runPage,
	})
}

const pageSynopsis = `spdylab page list
spdylab page gen NAME [--shards N] [--seed S] [--shard-mode equal|roundrobin] [--preload-links] -o DIR
spdylab page show [--json] [--tree] [--shards N] [--seed S] [--shard-mode M] PAGE
` + pageImportUsage

// pageAbout is what `spdylab page -h` says besides the synopsis.
func pageAbout() string {
	return "list   the built-in pages and the keys of generic: pages\n" +
		"gen    writes a generated page as files any server can serve\n" +
		"show   summarises a page (sizes by type and host; --tree: how each resource is found)\n" +
		"import turns a HAR recording into a page folder\n\n" +
		"pages (PAGE):\n" + page.SpecHelp()
}

func runPage(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printCommandHelp(stderr, "page", pageAbout())
		return 2
	}
	switch args[0] {
	case "list":
		for _, n := range page.Names() {
			fmt.Fprintf(stdout, "%-10s %s\n", n, page.Describe(n))
		}
		fmt.Fprintf(stdout, "\n%s\n", page.GenericHelp)
		return 0
	case "gen":
		return pageGen(args[1:], stdout, stderr)
	case "show":
		return pageShow(args[1:], stdout, stderr)
	case "import":
		return pageImport(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		printCommandHelp(stdout, "page", pageAbout())
		return 0
	}
	return unknownSubcommand(stderr, "page", args[0], "list", "gen", "show", "import")
}

// pageFlags are the generator flags gen and show share.
type pageFlags struct {
	shards *int
	seed   *int64
	mode   *string
}

func addPageFlags(fs *flag.FlagSet) pageFlags {
	return pageFlags{
		shards: fs.Int("shards", 0, fmt.Sprintf("shard hosts 1..%d (0 = the page's default: 1, or its domain count up to %d)", probe.MaxShards, probe.MaxShards)),
		seed:   fs.Int64("seed", 1, "generator seed; the same seed gives a byte-identical site"),
		mode:   fs.String("shard-mode", probe.ShardEqual, "how resources are spread over hosts: "+probe.OneOf(probe.ShardModes)),
	}
}

func pageGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("page gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pf := addPageFlags(fs)
	setHelp(fs, "Writes the page NAME (a built-in page or generic:KEY=VALUE,...) into DIR.")
	out := fs.String("o", "", "output directory (written atomically; an existing site there is replaced)")
	preload := fs.Bool("preload-links", false, "give documents Link: rel=preload headers for their same-host resources (drives a server's preload push policy)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 || *out == "" {
		return usageError(stderr, "page gen", "need exactly one page NAME and -o DIR")
	}
	m, err := page.Generate(pos[0], *pf.shards, *pf.seed, *pf.mode)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab page gen: %v\n", err)
		return 2
	}
	if *preload {
		m.AddPreloadLinks()
	}
	// Writing takes well under a second; holding Ctrl-C until it is done
	// lets WriteSite either finish or remove its temporary directory.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := m.WriteSite(*out); err != nil {
		fmt.Fprintf(stderr, "spdylab page gen: %v\n", err)
		return 1
	}
	select {
	case s := <-sig:
		fmt.Fprintf(stderr, "spdylab page gen: %v received after the site was complete\n", s)
		return 1
	default:
	}
	fmt.Fprintf(stdout, "wrote %s: %d resources, %d bytes, hosts %s\n", *out, len(m.Resources), m.TotalBytes(), strings.Join(m.Hosts, " "))
	return 0
}

func pageShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("page show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pf := addPageFlags(fs)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	tree := fs.Bool("tree", false, "print the dependency tree (how each resource is discovered) after the summary")
	setHelp(fs, "Summarises PAGE, any page --page takes:\n"+page.SpecHelp())
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "page show", "need exactly one PAGE (a name, generic:..., har:FILE.har, a page folder or a manifest)")
	}
	m, err := page.Open(pos[0], *pf.shards, *pf.seed, *pf.mode)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab page show: %v\n", err)
		return 2
	}
	s := m.Summarize()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(s)
		return 0
	}
	kb := func(x float64) string { return fmt.Sprintf("%.2f", x/page.KiB) }
	fmt.Fprintf(stdout, "page %s: %d resources, %s KB total, depth %d, %d pushable with the root\n",
		m.Name, s.Resources.Count, kb(float64(s.Resources.Total)), s.Depth, s.Pushable)
	fmt.Fprintf(stdout, "\n%-8s %6s %12s %10s %10s %10s %10s   (KB)\n", "type", "count", "total", "min", "mean", "max", "sd")
	row := func(label string, st page.SizeStats) {
		fmt.Fprintf(stdout, "%-8s %6d %12s %10s %10s %10s %10s\n", label, st.Count, kb(float64(st.Total)),
			kb(float64(st.Min)), kb(st.Mean), kb(float64(st.Max)), kb(st.SD))
	}
	var types []string
	for t := range s.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		row(t, s.ByType[t])
	}
	row("all", s.Resources)
	printHostTable(stdout, m.Hosts, s.ByHost, kb)
	for _, n := range m.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	if *tree {
		fmt.Fprintf(stdout, "\ndependency tree (depth %d):\n", s.Depth)
		m.WriteTree(stdout)
	}
	return 0
}

// printHostTable is page show's table of hosts: its first column as wide
// as the longest host name (at least 20), so the numbers line up.
func printHostTable(w io.Writer, hosts []string, by map[string]page.SizeStats, kb func(float64) string) {
	width := 20
	for _, h := range hosts {
		width = max(width, len(h))
	}
	fmt.Fprintf(w, "\n%-*s %6s %12s\n", width, "host", "count", "total KB")
	for _, h := range hosts {
		fmt.Fprintf(w, "%-*s %6d %12s\n", width, h, by[h].Count, kb(float64(by[h].Total)))
	}
}
