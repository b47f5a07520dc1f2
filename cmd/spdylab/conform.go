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
		synopsis: "spdylab conform [--version spdy/3.1|spdy/3|spdy/2] [flags] URL",
		examples: []string{
			"spdylab conform --insecure https://127.0.0.1:8443/",
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
	setHelp(fs, "URL is https://host:port/ (TLS with ALPN) or http://host:port/ (plain TCP).\n"+
		"Cases cite the SPDY/3 draft's sections for spdy/3.1 and spdy/3 and the headings of\n"+
		"\"SPDY Protocol - Draft 2\" for spdy/2; a case the version's draft lacks is skipped,\n"+
		"with the reason. Exits 1 when any case fails.")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rs, err := conform.Run(ctx, conform.Options{URL: fs.Arg(0), Version: *version, Plain: *plain,
		Insecure: *insecure, Timeout: *timeout, Path: *path})
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
