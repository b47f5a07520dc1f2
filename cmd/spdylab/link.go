package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/linkcheck"
)

func init() {
	register(command{
		name:     "link",
		summary:  "check an emulated link: measured RTT, link rate and queue, goodput, loss and DNS beside the configured values",
		synopsis: "spdylab link check [link flags] [--json]",
		examples: []string{
			"spdylab link check --rtt 100ms --down 10mbit --up 1mbit",
			"spdylab link check --rtt 40ms --down 5mbit --queue 50pkt --loss 1% --json",
		},
		run: runLink,
	})
}

const linkAbout = `Builds a testbed, measures the link from the client to s1 and prints each value
beside what the configuration predicts; exits 1 if one is out of tolerance.
rate_* and queue_* come from one UDP burst each way (what 'spdylab load' and
every stored probe check); down and up are TCP goodput.`

func runLink(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printCommandHelp(stderr, "link", linkAbout)
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		printCommandHelp(stderr, "link", linkAbout)
		return 0
	case args[0] != "check":
		return unknownSubcommand(stderr, "link", args[0], "check")
	}
	return runLinkCheck(args[1:], stdout, stderr)
}

func runLinkCheck(args []string, stdout, stderr io.Writer) (status int) {
	defer netem.ClosePanicking()
	fs := flag.NewFlagSet("link check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lf := netem.RegisterFlags(fs)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	pings := fs.Int("pings", 0, "RTT samples (0 = enough for about 3 s)")
	transfer := duration(fs, "transfer", 0, "s", "duration of each bulk transfer (0 = max(3s, 30 RTTs), at most 10s)")
	probes := fs.Int("probes", 400, "UDP probes for the loss estimate")
	setHelp(fs, linkAbout, linkFlagGroup, tcpFlagGroup)
	if err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "spdylab link check: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg, err := lf.Config()
	if err != nil {
		return usageError(stderr, "link check", "%v", err)
	}
	if *probes < 10 {
		fmt.Fprintf(stderr, "spdylab link check: --probes %d: want at least 10\n", *probes)
		return 2
	}
	if !netem.Privileged() {
		// Not root: run this same command line inside an unprivileged user
		// namespace, where building namespaces is allowed.
		code, err := netem.RunInUserNamespace()
		if err != nil {
			fmt.Fprintf(stderr, "spdylab link check: %v\n", err)
			return 1
		}
		return code
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tb, err := netem.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab link check: %v\n", err)
		return 1
	}
	defer func() {
		if err := tb.Close(); err != nil {
			fmt.Fprintf(stderr, "spdylab link check: teardown: %v\n", err)
			status = 1
		}
	}()
	rep, err := linkcheck.Run(ctx, tb, linkcheck.Options{Pings: *pings, Transfer: *transfer, LossProbes: *probes})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "spdylab link check: interrupted")
			return 130
		}
		fmt.Fprintf(stderr, "spdylab link check: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "spdylab link check: %v\n", err)
			return 1
		}
	} else {
		printCheck(stdout, rep)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

func printCheck(stdout io.Writer, rep linkcheck.Report) {
	fmt.Fprintf(stdout, "testbed sl-%s: %s\n", rep.Testbed, rep.Link)
	a := rep.Applied
	fmt.Fprintf(stdout, "applied: cc %s (namespace default %s), initcwnd %v, slow start after idle %v, no_metrics_save %v\n",
		a.CC, a.CCDefault, a.InitCwnd, a.SlowStartAfterIdle, a.NoMetricsSave)
	fmt.Fprintf(stdout, "rtt: mean %.2f ms, p50 %.2f ms, p99 %.2f ms\n\n", rep.RTTMeanms, rep.RTTP50ms, rep.RTTP99ms)
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "what\tconfigured\texpected\tmeasured\taccepted\tverdict\thow")
	for _, m := range rep.Measurements {
		verdict, rng := "PASS", fmt.Sprintf("%.4g..%.4g", m.Low, m.High)
		switch {
		case !m.Checked:
			verdict, rng = "info", "-"
		case !m.Pass:
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "%s\t%.4g %s\t%.4g %s\t%.4g %s\t%s\t%s\t%s\n",
			m.Name, m.Configured, m.Unit, m.Expected, m.Unit, m.Measured, m.Unit, rng, verdict, m.Note)
	}
	w.Flush()
	c := rep.Counters
	fmt.Fprintf(stdout, "\nemulator: down %d pkts offered, %d delivered, %d queue drops, %d lost; up %d offered, %d delivered, %d queue drops, %d lost\n",
		c.Down.PktsOffered, c.Down.PktsDelivered, c.Down.PktsQueueDrop, c.Down.PktsLost,
		c.Up.PktsOffered, c.Up.PktsDelivered, c.Up.PktsQueueDrop, c.Up.PktsLost)
	if rep.OK {
		fmt.Fprintln(stdout, "link check: PASS")
	} else {
		fmt.Fprintln(stdout, "link check: FAIL")
	}
}
