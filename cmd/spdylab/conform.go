package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spdylab/spdylab/conform"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

func init() {
	register(command{
		name:     "conform",
		summary:  "check a SPDY/3.1, SPDY/3 or SPDY/2 server against its draft's MUSTs and known attacks (like h2spec)",
		synopsis: "spdylab conform [--version spdy/3.1|spdy/3|spdy/2] [flags] URL | spdylab conform --list [--version V]",
		examples: []string{
			"spdylab conform --insecure https://127.0.0.1:8443/",
			"spdylab conform --list --version spdy/2",
			"spdylab conform --server-pid $(pidof node) --case ping-flood,slow-reader http://127.0.0.1:8080/",
			"spdylab conform --version spdy/2 --json http://127.0.0.1:8080/    # plain-TCP SPDY/2",
		},
		run: runConform,
	})
}

func runConform(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", spdy.ProtoSPDY31, "SPDY version to speak: "+probe.OneOf(spdy.VersionNames())+" (draft 2)")
	plain := fs.Bool("plain", false, "plain TCP (no TLS) even for an https URL")
	insecure := fs.Bool("insecure", false, "accept any TLS certificate (self-signed servers)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	path := fs.String("path", "/", "a path the server answers (used by cases that need a reply)")
	timeout := duration(fs, "timeout", 5*time.Second, "s", "how long each case waits for the server")
	list := fs.Bool("list", false, "list the cases with their sections under --version, run none (no URL)")
	pid := fs.Int("server-pid", 0, "the server's process id: DoS cases then measure its memory (/proc/PID/status); without it memory is reported as not measured")
	memLimit := fs.Int64("memory-limit", conform.DefaultMemoryLimit>>20, "MiB a DoS case may grow the server's resident memory (when measured)")
	flood := fs.Int("flood", conform.DefaultFlood, "frames each flood case sends")
	only := fs.String("case", "", "run only these cases (comma-separated ids; --list shows them)")
	setHelp(fs, "URL is https://host:port/ (TLS with ALPN) or http://host:port/ (plain TCP).\n"+
		"Cases cite the SPDY/3 draft's sections for spdy/3.1 and spdy/3 and the headings of\n"+
		"\"SPDY Protocol - Draft 2\" for spdy/2; a case the version's draft lacks is skipped,\n"+
		"with the reason. A DoS case (a class in --list) passes only if the server meets the\n"+
		"attack, its memory stays within --memory-limit (measured with --server-pid only) and a\n"+
		"fresh connection is still served. Exits 1 when any case fails.")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *list {
		return listConform(*version, *asJSON, stdout, stderr)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if *pid < 0 || *memLimit <= 0 || *flood <= 0 {
		fmt.Fprintf(stderr, "spdylab conform: --server-pid must be >= 0, --memory-limit and --flood > 0 (got %d, %d, %d)\n", *pid, *memLimit, *flood)
		return 2
	}
	var ids []string
	if *only != "" {
		ids = strings.Split(*only, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rs, err := conform.Run(ctx, conform.Options{URL: fs.Arg(0), Version: *version, Plain: *plain,
		Insecure: *insecure, Timeout: *timeout, Path: *path, ServerPID: *pid, MemoryLimit: *memLimit << 20, Flood: *flood, Only: ids})
	if err != nil && len(rs) == 0 {
		fmt.Fprintf(stderr, "spdylab conform: %v\n", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rs)
	} else {
		printConform(stdout, rs)
	}
	if conform.Failed(rs) > 0 || err != nil {
		return 1
	}
	return 0
}

func printConform(w io.Writer, rs []conform.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rs {
		verdict := "pass"
		switch {
		case r.Skipped:
			fmt.Fprintf(tw, "skip\t-\t%s\t%s\n", r.ID, r.Skip)
			continue
		case !r.Pass:
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", verdict, r.Section, r.ID, r.Title)
		if r.Class != "" {
			fmt.Fprintf(tw, "\t\treaction:\t%s\n\t\tmemory:\t%s\n\t\tfresh:\t%s\n", r.Reaction, memoryLine(r.Memory), r.Fresh)
		}
		if !r.Pass {
			fmt.Fprintf(tw, "\t\texpected:\t%s\n\t\treceived:\t%s\n", r.Expected, r.Received)
			if r.Error != "" {
				fmt.Fprintf(tw, "\t\terror:\t%s\n", r.Error)
			}
		}
	}
	tw.Flush()
	failed, skipped := conform.Failed(rs), conform.Skipped(rs)
	fmt.Fprintf(w, "%d cases, %d passed, %d failed, %d skipped\n", len(rs), len(rs)-failed-skipped, failed, skipped)
}

// memoryLine is a DoS case's memory, or why it was not measured.
func memoryLine(m *conform.Memory) string {
	switch {
	case m == nil:
		return "-"
	case !m.Measured:
		return "not measured: " + m.NotMeasured
	case m.Error != "":
		return "unreadable: " + m.Error
	}
	return fmt.Sprintf("grew %.1f MiB (RSS %.1f -> peak %.1f MiB, VmHWM +%.1f MiB; limit %d MiB)", kib(m.GrowthKiB),
		kib(m.RSSBeforeKiB), kib(m.PeakRSSKiB), kib(m.HWMGrowthKiB), m.LimitKiB>>10)
}

func kib(n int64) float64 { return float64(n) / 1024 }

// listConform prints the cases under version with their sections.
func listConform(version string, asJSON bool, stdout, stderr io.Writer) int {
	ls, err := conform.List(version)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab conform: %v\n", err)
		return 2
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(ls)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tSECTION\tCLASS\tTITLE\n")
	for _, l := range ls {
		class := l.Class
		if class == "" {
			class = "-"
		}
		if l.Skip != "" {
			fmt.Fprintf(tw, "%s\tskip\t%s\t%s\n", l.ID, class, l.Skip)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.ID, l.Section, class, l.Title)
	}
	tw.Flush()
	return 0
}
