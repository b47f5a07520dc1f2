package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/probe"
)

// Flag helpers every command shares.

// parseInterspersed parses flags that may come before or after the
// positional arguments, as users type `run quick -j 2` and `run -j 2 quick`,
// and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// stringList is a repeatable string flag (--server A --server B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// flagExit is the exit status for a flag parse error: 0 after -h (the
// usage was asked for), 2 for bad flags (parseFlags printed why).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// parseFlags is fs.Parse with the commands' help conventions: -h prints
// the help (fs.Usage); a bad flag prints only what is wrong, in the flags'
// spelling (`--timeout "5": a duration needs a unit: did you mean 5s?`),
// and where the help is, rather than the whole help, in which the error
// would scroll out of sight.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	var buf bytes.Buffer // what the flag package and flag values print
	fs.SetOutput(&buf)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		out.Write(buf.Bytes())
		if usage != nil {
			usage()
		} else {
			fs.PrintDefaults()
		}
	case err != nil:
		// The flag package printed the error last; the rest are notes
		// (a deprecated flag's).
		io.WriteString(out, strings.TrimSuffix(buf.String(), err.Error()+"\n"))
		fmt.Fprintf(out, "spdylab %s: %s\nrun 'spdylab %s -h' for help\n", fs.Name(), flagErrorText(fs, err), fs.Name())
	default:
		out.Write(buf.Bytes())
		if askedHelpAll(fs) { // setShortHelp's full help, printed
			return flag.ErrHelp
		}
	}
	return err
}

// flagErrorText rewrites the flag package's errors in the spelling the
// commands' own errors use: `--name "value": why`, with what the flag
// wants instead of the number parsers' "parse error".
func flagErrorText(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			if name, why, ok := strings.Cut(strings.TrimPrefix(rest[len(q):], " for flag -"), ": "); ok {
				if f := fs.Lookup(name); f != nil && why == "parse error" {
					why = parseErrorText(f, q)
				}
				return fmt.Sprintf("%s %s: %s", dashed(name), q, why)
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + dashed(name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs a value"
	}
	return msg
}

// parseErrorText says what a number or duration flag wants instead of
// the flag package's "parse error"; quoted is the value as given, quoted.
func parseErrorText(f *flag.Flag, quoted string) string {
	switch typ, _ := flag.UnquoteUsage(f); typ {
	case "int", "uint":
		return "not a whole number"
	case "float":
		return "not a number"
	case "duration": // flag.Duration flags of packages (server limits)
		v, _ := strconv.Unquote(quoted)
		if _, err := units.ParseDurationIn(v, 0, maxFlagDuration, "s"); err != nil {
			return err.Error()
		}
	}
	return "parse error"
}

// dashed is a flag's name as help texts spell it: -j, --timeout.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// durationValue is a duration flag parsed as a study's durations are
// (units.ParseDurationIn), so "--timeout 5" is refused with "did you mean
// 5s?" instead of flag.Duration's bare "parse error".
type durationValue struct {
	d    *time.Duration
	unit string
}

func (v *durationValue) String() string {
	if v == nil || v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v *durationValue) Set(s string) error {
	d, err := units.ParseDurationIn(s, 0, maxFlagDuration, v.unit)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// maxFlagDuration bounds the commands' timeouts: more is a typo.
const maxFlagDuration = 24 * time.Hour

// durationVar defines a duration flag; unit is what a bare number
// probably meant ("s" for timeouts, "ms" for delays).
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, unit, usage string) {
	*p = value
	fs.Var(&durationValue{d: p, unit: unit}, name, usage)
}

// duration is durationVar returning the variable.
func duration(fs *flag.FlagSet, name string, value time.Duration, unit, usage string) *time.Duration {
	p := new(time.Duration)
	durationVar(fs, p, name, value, unit, usage)
	return p
}

// usageError prints a command-line mistake found after parsing (a bad
// value, a flag that needs another) as parseFlags prints a bad flag: what
// is wrong, then where the help is. It returns the exit status, 2.
func usageError(stderr io.Writer, name, format string, a ...any) int {
	fmt.Fprintf(stderr, "spdylab %s: %s\nrun 'spdylab %s -h' for help\n", name, fmt.Sprintf(format, a...), name)
	return 2
}

// metricHelp is --metric's help in report, why and tune (probe.Metrics).
var metricHelp = "what gains, verdicts and critical paths are computed on: " + strings.Join(probe.MetricNames(), ", ") +
	" (fcp, lcp: paint metrics, the loader's are estimates; si: Speed Index, Chromium with speed_index only); loads without it are left out and counted (default: the study file's metric key, else plt)"

// badMetric refuses an unknown --metric before anything is read (2), or
// is -1.
func badMetric(stderr io.Writer, cmd, metric string) int {
	if _, err := probe.LookupMetric(metric); err != nil {
		return usageError(stderr, cmd, "--metric: %v", err)
	}
	return -1
}
