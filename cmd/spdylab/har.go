package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spdylab/spdylab/har"
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
`

func runHAR(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("har", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, harAbout)
	if err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return 2
	}
	files := fs.Args()[1:]
	switch fs.Arg(0) {
	case "check":
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
	case "show":
		if len(files) != 1 {
			fmt.Fprintln(stderr, "spdylab har show: give exactly one file")
			return 2
		}
		if err := showHAR(files[0], stdout); err != nil {
			fmt.Fprintf(stderr, "spdylab har show: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "spdylab har: unknown subcommand %q\n", fs.Arg(0))
	fs.Usage()
	return 2
}

func showHAR(file string, w io.Writer) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := har.Validate(b); err != nil {
		return fmt.Errorf("%s is not a valid HAR 1.2 file:\n%w", file, err)
	}
	var h har.Document
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	entries := h.Log.Entries
	var start time.Time
	if len(h.Log.Pages) > 0 {
		start, _ = time.Parse(time.RFC3339Nano, h.Log.Pages[0].StartedDateTime)
		p := h.Log.Pages[0]
		fmt.Fprintf(w, "%s  onContentLoad %.1f ms  onLoad %.1f ms\n", p.Title, p.PageTimings.OnContentLoad, p.PageTimings.OnLoad)
	}
	type row struct {
		at time.Time
		e  har.Entry
	}
	rows := make([]row, 0, len(entries))
	for _, e := range entries {
		at, _ := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		rows = append(rows, row{at, e})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.Before(rows[j].at) })
	if start.IsZero() && len(rows) > 0 {
		start = rows[0].at
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "start\tblocked\tdns\tconnect\tssl\tsend\twait\treceive\ttotal\tstatus\tbytes\tconn\tprio\t\tURL")
	f := func(v float64) string {
		if v < 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, r := range rows {
		t := r.e.Timings
		note := ""
		if r.e.Pushed {
			note = "push"
		}
		if r.e.Error != "" {
			note = "ERROR"
		}
		prio := "-"
		if r.e.Priority != nil {
			prio = r.e.Priority.String()
		}
		fmt.Fprintf(tw, "%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%d\t%d\t%s\t%s\t%s\t %s\n",
			float64(r.at.Sub(start))/1e6, f(t.Blocked), f(t.DNS), f(t.Connect), f(t.SSL), f(t.Send), f(t.Wait), f(t.Receive),
			r.e.Time, r.e.Response.Status, r.e.Response.Content.Size, r.e.Connection, prio, note, r.e.Request.URL)
	}
	return tw.Flush()
}
