package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spdylab/spdylab/harness"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/studyfile"
)

func init() {
	register(command{name: "studies", summary: "list the built-in studies with their size and estimated time", run: studiesCmd,
		synopsis: "spdylab studies [-j N] [-v] [--check] [STUDY|FILE.toml]",
		examples: []string{
			"spdylab studies",
			"spdylab studies --check my.toml --pages ../shared/pages/har    # every condition's page opened and its factors applied",
			"spdylab studies -v -j 4 study1-cablelabs    # its factors and the time with 4 testbeds",
		}})
}

func studiesCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("studies", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, "Lists the built-in studies (or describes one) with conditions, loads and an\nestimated run time: per load the lower bound (handshake RTTs + discovery RTTs +\nbytes / rate) plus the round trips it leaves out (slow start, HTTP/1.1 request\nrounds, lost packets) and a fixed overhead, times the loads, divided by -j.")
	jobs := study.JobsAuto
	fs.Var((*jobsFlag)(&jobs), "j", "parallel testbeds the estimate assumes: N, or auto (the default), the size 'spdylab run' starts a fresh run of the study at on this machine (its -j auto)")
	verbose := fs.Bool("v", false, "also print each study's description and varied factors")
	pages := fs.String("pages", "", "folder of real pages, as for 'spdylab run --pages'")
	check := fs.Bool("check", false, "also open every condition's page and apply its page factors as a load would (hosts, deploy, host_rtt, compute, deps, until, redirects), naming each condition that cannot run")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *pages != "" && len(pos) == 0 {
		fmt.Fprintln(stderr, "spdylab studies: --pages describes one study over real pages: name it (e.g. spdylab studies study4-google --pages DIR)")
		return 2
	}
	names := studyfile.BuiltinNames()
	if len(pos) > 0 {
		names, *verbose = pos, true
	}
	studies, ok := loadStudies(names, *pages, stderr)
	if !ok || !checkHost(studies, stderr) {
		return 1
	}
	if *check && !checkStudies(studies, stderr) {
		return 1
	}
	printStudies(stdout, studies, jobs, *verbose)
	return 0
}

// loadStudies loads every named study, reporting each that fails. All are
// loaded before anything is printed, so a typo gives an error alone rather
// than an error and a table with nothing (or not everything) asked for.
func loadStudies(names []string, pages string, stderr io.Writer) ([]*spec.Study, bool) {
	var studies []*spec.Study
	ok := true
	for _, n := range names {
		s, err := studyfile.LoadPages(n, pages)
		if err != nil {
			fmt.Fprintln(stderr, "spdylab studies:", studyNotFoundHint("studies", err))
			ok = false
			continue
		}
		studies = append(studies, s)
	}
	return studies, ok
}

// checkHost says of every study whether this machine can run it
// (study.CheckHost: a cc the kernel lacks), as run's preflight does.
func checkHost(studies []*spec.Study, stderr io.Writer) bool {
	ok := true
	for _, s := range studies {
		if err := study.CheckHost(s); err != nil {
			fmt.Fprintln(stderr, "spdylab studies:", err)
			ok = false
		}
	}
	return ok
}

// checkStudies validates every condition of every study against its page
// (harness.CheckConditions) and says which cannot run.
func checkStudies(studies []*spec.Study, stderr io.Writer) bool {
	ok := true
	for _, s := range studies {
		conds := make([]probe.Condition, len(s.Conditions))
		for i, c := range s.Conditions {
			conds[i] = c.Condition
		}
		err := harness.CheckConditions(conds, s.Seed, func(i int) string { return shortName(s, s.Conditions[i]) })
		if err != nil {
			fmt.Fprintf(stderr, "spdylab studies: %s: %v\n", s.Name, err)
			ok = false
			continue
		}
		fmt.Fprintf(stderr, "spdylab studies: %s: all %d conditions can run\n", s.Name, len(conds))
	}
	return ok
}

// shortName names a condition by its page, protocol and the study's
// varied factors: what tells it apart from its neighbours.
func shortName(s *spec.Study, c spec.Cond) string {
	parts := []string{"page=" + c.Values["page"], "protocol=" + c.Values["protocol"]}
	for _, f := range s.Varied {
		if f != "page" && f != "protocol" {
			parts = append(parts, f+"="+c.Values[f])
		}
	}
	return strings.Join(parts, " ")
}

// printStudies prints one table row per study; verbose adds each study's
// description, baseline and factor values below its row. jobs is -j:
// study.JobsAuto estimates each study at the size run -j auto starts it
// at (study.AutoJobs), shown beside the estimate.
func printStudies(stdout io.Writer, studies []*spec.Study, jobs int, verbose bool) {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "STUDY\tCONDITIONS\tLOADS\tESTIMATE (-j %s)\tVARIES\n", (*jobsFlag)(&jobs))
	for _, s := range studies {
		pages := page.Cache{}
		n, at := jobs, ""
		if jobs == study.JobsAuto {
			n = study.AutoJobs(s, pages)
			at = fmt.Sprintf(" at %d", n)
		}
		est := "?"
		if e, err := spec.EstimateWith(s, n, pages); err == nil {
			est = fmtDuration(e.Total) + at
		} else {
			est = "? (" + err.Error() + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", s.Name, len(s.Conditions), len(s.Conditions)*s.Runs, est, strings.Join(s.Varied, ", "))
		if verbose {
			tw.Flush()
			describeStudy(stdout, s)
		}
	}
	tw.Flush()
}

// describeStudy is the -v detail of one study.
func describeStudy(stdout io.Writer, s *spec.Study) {
	fmt.Fprintf(stdout, "  %s\n", s.Description)
	if s.Note != "" {
		fmt.Fprintf(stdout, "  note: %s\n", s.Note)
	}
	var base []string
	for _, f := range spec.FactorNames() {
		if v, ok := s.Baseline[f]; ok {
			base = append(base, f+"="+v)
		}
	}
	fmt.Fprintf(stdout, "  %d loads per condition, seed %d, gains against %s\n", s.Runs, s.Seed, strings.Join(base, " "))
	if s.PagesOmitted > 0 {
		fmt.Fprintf(stdout, "  without --pages DIR: %d [[matrix]] block(s) or walk(s) over real pages left out\n", s.PagesOmitted)
	}
	for _, f := range s.Varied {
		seen := map[string]bool{}
		var vals []string
		for _, c := range s.Conditions {
			if v := c.Values[f]; !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		fmt.Fprintf(stdout, "  %-14s %s\n", f, strings.Join(vals, " "))
	}
	for _, p := range s.Presets {
		fmt.Fprintf(stdout, "  preset %s: %d conditions\n", p.Name, len(p.Conds))
	}
	for _, w := range s.Walks {
		var steps []string
		for _, st := range w.Steps[1:] {
			steps = append(steps, fmt.Sprintf("%s %s→%s", st.Factor, st.From, st.To))
		}
		fmt.Fprintf(stdout, "  walk %s: %s\n", w.Name(), strings.Join(steps, ", "))
	}
	fmt.Fprintln(stdout)
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%.1f h", d.Hours())
	case d >= time.Minute:
		return fmt.Sprintf("%.0f min", d.Minutes())
	}
	return d.Round(time.Second).String()
}
