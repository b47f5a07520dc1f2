package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
)

func init() {
	register(command{
		name:     "har",
		summary:  "check HAR files (spdylab's or imported ones) against HAR 1.2, or print one as a waterfall table",
		synopsis: "spdylab har check FILE.har...\nspdylab har show FILE.har",
		examples: []string{
			"spdylab har check out/har/*.har",
			"spdylab har show page.har",
		},
		run: runHAR,
	})
}

const harAbout = `check  validates each file against HAR 1.2 (required fields, types, dates,
       timings, time = sum of phases); problems name the entry. Exit 1 if any
       file has problems.
show   prints the entries in start order: offset from the page start, the
       phases (ms), status, size, connection, priority (_priority as the
       file wrote it: a number, or a name such as Chrome's "VeryHigh") and URL.
       It reads a file as 'spdylab page import' does (recorders' odd fields
       shown as "-") and notes when the file is not valid HAR 1.2.
`

func runHAR(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("har", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, harAbout)
	if err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	sub, files := fs.Arg(0), fs.Args()[1:]
	switch {
	case sub != "check" && sub != "show":
		return unknownSubcommand(stderr, "har", sub, "check", "show")
	case len(files) == 0:
		return usageError(stderr, "har", "%s needs a FILE.har", sub)
	case sub == "check":
		return harCheck(files, stdout, stderr)
	case len(files) != 1:
		return usageError(stderr, "har show", "give exactly one file")
	}
	if err := showHAR(files[0], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "spdylab har show: %v\n", err)
		return 1
	}
	return 0
}

// harCheck validates each file against HAR 1.2; exit 1 if one fails.
func harCheck(files []string, stdout, stderr io.Writer) int {
	status := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			err = har.Validate(b)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s:\n  %s\n", f, strings.ReplaceAll(err.Error(), "\n", "\n  "))
			status = 1
			continue
		}
		fmt.Fprintf(stdout, "%s: valid HAR 1.2\n", f)
	}
	return status
}

// showHAR prints a HAR's entries as a table. It reads the file as
// `page import` does (page.ParseHAR: a recording that HAR 1.2 would
// refuse over one odd field still shows), and says on stderr when the
// file is not valid HAR 1.2.
func showHAR(file string, w, stderr io.Writer) error {
	b, err := page.ReadHARFile(file)
	if err != nil {
		return err
	}
	log, err := page.ParseHAR(b)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var start time.Time
	if len(log.Pages) > 0 {
		p := log.Pages[0]
		start, _ = time.Parse(time.RFC3339Nano, p.StartedDateTime)
		fmt.Fprintf(w, "%s  onContentLoad %s ms  onLoad %s ms\n", p.Title, harMs(p.PageTimings.OnContentLoad), harMs(p.PageTimings.OnLoad))
	}
	type row struct {
		at time.Time
		e  *har.RecordedEntry
	}
	rows := make([]row, 0, len(log.Entries))
	for i := range log.Entries {
		at, _ := time.Parse(time.RFC3339Nano, log.Entries[i].StartedDateTime)
		rows = append(rows, row{at, &log.Entries[i]})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.Before(rows[j].at) })
	if start.IsZero() && len(rows) > 0 {
		start = rows[0].at
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "start\tblocked\tdns\tconnect\tssl\tsend\twait\treceive\ttotal\tstatus\tbytes\tconn\tprio\t\tURL")
	for _, r := range rows {
		e, t := r.e, r.e.Timings
		fmt.Fprintf(tw, "%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t %s\n",
			float64(r.at.Sub(start))/1e6, harMs(t.Blocked), harMs(t.DNS), harMs(t.Connect), harMs(t.SSL), harMs(t.Send), harMs(t.Wait), harMs(t.Receive),
			harMs(e.Time), harInt(e.Response.Status), harInt(e.Response.Content.Size), e.Connection, harPriority(e), harNote(e), e.Request.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := har.Validate(b); err != nil {
		n := strings.Count(strings.TrimSpace(err.Error()), "\n") + 1
		fmt.Fprintf(stderr, "note: %s is not valid HAR 1.2 (%d problem(s), shown leniently above): 'spdylab har check %s' lists them\n", file, n, file)
	}
	return nil
}

// harMs is a time in milliseconds, "-" when not given (HAR's -1).
func harMs(n har.Number) string {
	if v, ok := n.Positive(); ok {
		return fmt.Sprintf("%.1f", v)
	}
	return "-"
}

// harInt is a status or size as written, "-" when it is not a number.
func harInt(n har.Number) string {
	if !n.OK {
		return "-"
	}
	return fmt.Sprintf("%.0f", n.V)
}

func harPriority(e *har.RecordedEntry) string {
	if p := e.Priority(); p != nil {
		return p.String()
	}
	return "-"
}

// harNote marks a pushed entry and one that failed.
func harNote(e *har.RecordedEntry) string {
	switch {
	case e.Error != "":
		return "ERROR"
	case e.Pushed == "true":
		return "push"
	}
	return ""
}
