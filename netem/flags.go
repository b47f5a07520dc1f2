package netem

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// FlagValues holds the link flags shared by `spdylab shell`, `spdylab link
// check` and `spdylab load`. The flag names are a public contract. The
// link settings' flags are generated from probe.Fields (their defaults,
// validation and help are the study factors'); seed and log are the
// run's, not the condition's.
type FlagValues struct {
	fs *flag.FlagSet

	Fields *probe.FieldFlags
	// NoDNS is the deprecated --no-dns: DNS is off unless --dns is given.
	NoDNS bool
	Seed  int64
	Log   string
}

// RegisterFlags defines the link flags on fs. Their defaults are the
// studies': no added delay, unlimited rates, a 100-packet droptail queue
// per direction, no loss, the kernel's initcwnd and congestion control,
// no slow start after idle, one server behind one shared bottleneck,
// names resolved locally (no DNS over the link).
func RegisterFlags(fs *flag.FlagSet) *FlagValues {
	v := &FlagValues{fs: fs, Fields: probe.RegisterFieldFlags(fs, probe.FlagLink, nil)}
	fs.Var(&noDNSFlag{fs: fs, set: &v.NoDNS}, "no-dns", "deprecated: names resolve locally unless --dns is given")
	fs.Int64Var(&v.Seed, "seed", 1, "random `seed` of the loss models")
	fs.StringVar(&v.Log, "log", "", "write a per-packet log of the link to `file`")
	return v
}

// noDNSFlag is the deprecated --no-dns. Names resolve locally unless --dns
// is given, so it changes nothing; old scripts keep working (it is not an
// error), and a note on the flag set's output says it can go. Help texts
// leave out flags whose usage starts with "deprecated".
type noDNSFlag struct {
	fs  *flag.FlagSet
	set *bool
}

func (f *noDNSFlag) String() string {
	if f == nil || f.set == nil {
		return "false"
	}
	return strconv.FormatBool(*f.set)
}

func (f *noDNSFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*f.set = b
	fmt.Fprintln(f.fs.Output(), "spdylab: --no-dns is deprecated and changes nothing: DNS over the link is off unless --dns is given")
	return nil
}

func (f *noDNSFlag) IsBoolFlag() bool { return true }

// Config turns the flags into a testbed configuration; errors name the flag
// and its value.
func (v *FlagValues) Config() (Config, error) {
	vals, err := v.Fields.Values()
	if err != nil {
		return Config{}, err
	}
	if v.NoDNS && vals["dns"] == "true" {
		return Config{}, errors.New("--dns and --no-dns contradict each other")
	}
	c, err := probe.BuildCondition(vals)
	if err != nil {
		return Config{}, probe.FlagError(err)
	}
	cfg := ConfigFor(c)
	cfg.Link.Seed, cfg.PacketLogPath = v.Seed, v.Log
	if err := checkHostLink(cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// ConfigFor is the testbed configuration of condition c's link.
func ConfigFor(c probe.Condition) Config {
	return Config{Shards: c.Shards, Link: c.Link, TCP: c.TCP, DNS: c.DNS}
}

// checkHostLink checks what only this host can tell before a testbed is
// built: the trace files load (the pipes load them again) and the
// congestion control is available.
func checkHostLink(cfg Config) error {
	for _, t := range []struct{ name, val string }{{"trace-down", cfg.Link.TraceDown}, {"trace-up", cfg.Link.TraceUp}} {
		if t.val == "" {
			continue
		}
		if _, err := link.LoadTrace(t.val); err != nil {
			return flagErr(t.name, t.val, err)
		}
	}
	if err := CheckCongestionControl(cfg.TCP.CC); err != nil {
		return flagErr("cc", cfg.TCP.CC, err)
	}
	return nil
}

// flagErr names the flag and the value at fault.
func flagErr(name, value string, err error) error {
	return fmt.Errorf("--%s %q: %w", name, value, err)
}

// Describe renders cfg's link in the flags' terms, for logs and messages.
func Describe(cfg Config) string {
	l := cfg.Link
	down, up := l.OneWay()
	rate := func(bps int64, trace string) string {
		if trace != "" {
			return "trace " + trace
		}
		return units.FormatRate(bps)
	}
	s := fmt.Sprintf("rtt %v (down %v, up %v), down %s, up %s, loss %g%%/%g%%",
		down+up, down, up, rate(l.DownBps, l.TraceDown), rate(l.UpBps, l.TraceUp), 100*l.LossDown, 100*l.LossUp)
	if ge := l.GEDown; ge != (probe.GilbertElliott{}) {
		s += ", ge-down " + ge.String()
	}
	if ge := l.GEUp; ge != (probe.GilbertElliott{}) {
		s += ", ge-up " + ge.String()
	}
	qd, qu := l.Queues()
	links := "shared link"
	if !l.Shared {
		links = "per-shard links"
	}
	iw, cc := strconv.Itoa(cfg.TCP.IW), cfg.TCP.CC
	if cfg.TCP.IW == 0 {
		iw = "kernel default"
	}
	if cc == "" {
		cc = "kernel default"
	}
	s += fmt.Sprintf(", queue %s/%s, %d server(s), %s, iw %s, cc %s", qd, qu, cfg.Shards, links, iw, cc)
	return s
}
