package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/report"
)

func init() {
	register(command{name: "report", summary: "rebuild OUT/report.html, conditions.csv and .json from OUT/results.db", run: reportCmd,
		synopsis: "spdylab report [--metric plt|tow|fcp|lcp|si] [--baseline FACTOR=VALUE,...] [--waterfall PROBE_ID] [--screenshot FILE.png] [--compare REF_DIR] DIR",
		examples: []string{
			"spdylab report out/quick",
			"spdylab report --metric lcp out/fidelity    # gains and verdicts in LCP",
			"spdylab report --baseline protocol=https,adaptive_cc=true out/s1nw    # against HTTPS given the same transport knob",
			"spdylab report --waterfall 12 out/quick    # also out/quick/waterfall-12.html",
			"spdylab report --compare out/quick-j1 out/quick",
		}})
}

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, "Rebuilds DIR/report.html, DIR/conditions.csv and DIR/conditions.json from\nDIR/results.db. Probe ids are in the report's condition table. A study with\npresets and walks (e.g. study6-reconcile) also gets DIR/walks.csv and\nDIR/walks.json, and its presets' gains and walk tables are printed. The report\nopens with its answer (cells won, lost and undecided per variant; the best and\nworst cells and the critical-path terms behind them), also printed, in --metric.")
	metric := fs.String("metric", "", metricHelp)
	baseline := fs.String("baseline", "", "judge the loads against another of the study's conditions: `FACTOR=VALUE,...` replaces the study's baseline (e.g. protocol=https,adaptive_cc=true: HTTPS given the variant's transport knob); the store is not changed")
	waterfall := fs.Int64("waterfall", 0, "also write DIR/waterfall-ID.html for this probe")
	shot := fs.String("screenshot", "", "also render report.html with headless Chromium into this PNG")
	compare := fs.String("compare", "", "compare DIR's per-condition PLT medians with those in this directory (e.g. a -j 1 run) instead of writing the report")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "report", "need exactly one DIR, the output folder of a study (spdylab run --out DIR)")
	}
	if code := badMetric(stderr, "report", *metric); code >= 0 {
		return code
	}
	base, err := report.ParseBaseline(*baseline)
	if err != nil {
		return usageError(stderr, "report", "%v", err)
	}
	if *waterfall < 0 {
		fmt.Fprintln(stderr, "spdylab report: --waterfall wants a probe id (a positive number)")
		return 2
	}
	dir := pos[0]
	if *compare != "" {
		c, err := report.CompareWith(*compare, dir, report.Options{Metric: *metric, Baseline: base})
		if err != nil {
			fmt.Fprintln(stderr, "spdylab report:", err)
			return 1
		}
		fmt.Fprintf(stdout, "A = %s, B = %s\n\n", *compare, dir)
		c.Write(stdout)
		return 0
	}
	a, err := report.BuildWith(dir, report.Options{Metric: *metric, Baseline: base})
	if err != nil {
		fmt.Fprintln(stderr, "spdylab report:", err)
		return 1
	}
	fmt.Fprintf(stderr, "spdylab: %s: %d conditions, %d stored loads -> %s\n", dir, len(a.Conds), a.Stored, filepath.Join(dir, report.HTMLFile))
	fmt.Fprintln(stdout, report.AnswerOf(a).Paragraph()) // the answer report.html opens with
	if note := a.MetricNote(); note != "" {
		fmt.Fprintln(stdout, note)
	}
	report.WritePresets(stdout, report.PresetGains(a)) // a study with presets: their gains
	report.WriteWalks(stdout, a.Walks)                 // and its walk tables
	report.WriteFidelityGoal(stdout, a)                // loader vs Chromium: the goal per set
	if *waterfall > 0 {
		p, err := report.WriteWaterfall(dir, *waterfall)
		if err != nil {
			fmt.Fprintln(stderr, "spdylab report:", err)
			return 1
		}
		fmt.Fprintf(stderr, "spdylab: waterfall -> %s\n", p)
	}
	if *shot != "" {
		if err := browser.Screenshot(filepath.Join(dir, report.HTMLFile), *shot); err != nil {
			fmt.Fprintln(stderr, "spdylab report:", err)
			return 1
		}
		fmt.Fprintf(stderr, "spdylab: screenshot -> %s\n", *shot)
	}
	return 0
}
