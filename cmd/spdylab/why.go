package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/spdylab/spdylab/report"
)

func init() {
	register(command{name: "why", summary: "explain each condition's gain: the critical path's categories, variant minus baseline", run: whyCmd,
		synopsis: "spdylab why [--cell FILTER] [--recompute] [--metric plt|tow|fcp|lcp|si] [--baseline FACTOR=VALUE,...] DIR",
		examples: []string{
			"spdylab why out/quick",
			"spdylab why --recompute out/study1-cablelabs",
			"spdylab why --cell page=pageA,rtt=200ms out/study1-cablelabs",
			"spdylab why --metric lcp out/fidelity    # the chains that end at the LCP element's resource",
		}})
}

func whyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("why", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, "For each condition of the study in DIR and its baseline twin: the difference\n"+
		"per critical-path category (median over loads, variant minus baseline, with a\n"+
		"95% bootstrap interval), largest first, and a sentence from the largest terms.\n"+
		"Each load's breakdown is the one stored with it, made by the critical-path rules\n"+
		"of its day; --recompute makes every one again from the stored HAR and counters\n"+
		"with today's rules (the store is only read, never changed). With --metric fcp or\n"+
		"lcp each load's chain ends at that paint's resource (computed from the stored\n"+
		"HAR and manifest); loads without the metric, or whose paint's resource is\n"+
		"unknown, are counted and left out.")
	cell := fs.String("cell", "", "only conditions matching every comma-separated term: factor=value, or a word of the condition's description (e.g. page=pageA,rtt=200ms)")
	metric := fs.String("metric", "", metricHelp)
	baseline := fs.String("baseline", "", "explain against another of the study's conditions: `FACTOR=VALUE,...` replaces the study's baseline (as spdylab report --baseline)")
	recompute := fs.Bool("recompute", false, "compute every load's critical path again from what the store holds, with today's rules, instead of using the stored one; says how many could not be and why")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "why", "need exactly one DIR, the output folder of a study (spdylab run --out DIR)")
	}
	if code := badMetric(stderr, "why", *metric); code >= 0 {
		return code
	}
	base, err := report.ParseBaseline(*baseline)
	if err != nil {
		return usageError(stderr, "why", "%v", err)
	}
	cells, a, err := report.WhyDir(pos[0], *cell, report.Options{Recompute: *recompute, Metric: *metric, Baseline: base})
	if err != nil {
		fmt.Fprintln(stderr, "spdylab why:", err)
		return 1
	}
	if a.Recomputed != nil {
		fmt.Fprintln(stdout, a.Recomputed)
		fmt.Fprintln(stdout)
	}
	if note := a.MetricNote(); note != "" {
		fmt.Fprintln(stdout, note)
		fmt.Fprintln(stdout)
	}
	report.WriteWhy(stdout, cells, a.MetricTitle())
	return 0
}
