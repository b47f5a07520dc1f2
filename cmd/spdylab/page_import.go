package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spdylab/spdylab/page"
)

const pageImportUsage = `spdylab page import FILE.har [-o DIR] [--page ID]`

// pageImport turns a recorded page load into a site: `page import`.
func pageImport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("page import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory (written atomically; default: the HAR's name without .har)")
	pageID := fs.String("page", "", "the HAR page to import when it has several (log.pages[].id)")
	setHelp(fs, "Turns a recorded page load into a page folder: its files, and DIR/"+page.ManifestFile+
		"\nwith hosts, headers and the discovery tree ('spdylab load --page DIR' replays it).")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "page import", "need exactly one HAR file")
	}
	dir := *out
	if dir == "" {
		dir = strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0]))
	}
	rep, err := page.ImportSite(pos[0], dir, page.ImportOptions{Page: *pageID})
	if err != nil {
		fmt.Fprintf(stderr, "spdylab page import: %v (nothing written)\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s from %s: %d entries recorded, %d replayable, %d hosts, depth %d, %d bytes\n",
		dir, rep.Source, rep.Recorded, rep.Replayable, rep.Hosts, rep.Depth, rep.Bytes)
	for _, n := range rep.Notes() {
		fmt.Fprintf(stdout, "  %s\n", n)
	}
	fmt.Fprintf(stdout, "rules: see \"notes\" in %s\n", filepath.Join(dir, page.ManifestFile))
	return 0
}
