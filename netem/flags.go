package netem

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// FlagValues holds the link flags shared by `spdylab shell`, `spdylab link
// check` and `spdylab load`. The flag names are a public contract.
type FlagValues struct {
	fs *flag.FlagSet

	RTT, DelayDown, DelayUp   time.Duration
	Down, Up                  string
	Queue, QueueDown, QueueUp string
	Loss, LossDown, LossUp    string
	GEDown, GEUp              string
	TraceDown, TraceUp        string
	IW, InitRwnd              int
	CC                        string
	SlowStartAfterIdle        bool
	Shards                    int
	PerShardLinks             bool
	DNS, NoDNS                bool
	Seed                      int64
	Log                       string
}

// RegisterFlags defines the link flags on fs. Defaults: no added delay,
// unlimited rates, a 50-packet droptail queue per direction (dummynet's
// default, used by the studies), no loss, initcwnd 10, CUBIC (what the
// studies ran), no slow start after idle, one server, one shared
// bottleneck, DNS over the link.
func RegisterFlags(fs *flag.FlagSet) *FlagValues {
	v := &FlagValues{fs: fs}
	fs.DurationVar(&v.RTT, "rtt", 0, "round-trip `time` added by the link, split evenly between the directions (e.g. 100ms)")
	fs.DurationVar(&v.DelayDown, "delay-down", 0, "one-way `delay` server->client, overriding the RTT split")
	fs.DurationVar(&v.DelayUp, "delay-up", 0, "one-way `delay` client->server, overriding the RTT split")
	fs.StringVar(&v.Down, "down", "unlimited", "downlink (server->client) `rate`: 64kbit, 10mbit, 1gbit, unlimited")
	fs.StringVar(&v.Up, "up", "unlimited", "uplink (client->server) `rate`")
	fs.StringVar(&v.Queue, "queue", "50pkt", "droptail queue `limit` per direction: 50pkt, 64kb, unlimited")
	fs.StringVar(&v.QueueDown, "queue-down", "", "downlink queue `limit`, overriding --queue")
	fs.StringVar(&v.QueueUp, "queue-up", "", "uplink queue `limit`, overriding --queue")
	fs.StringVar(&v.Loss, "loss", "0", "random packet loss `probability` in each direction: 1% or 0.01")
	fs.StringVar(&v.LossDown, "loss-down", "", "downlink loss `probability`, overriding --loss")
	fs.StringVar(&v.LossUp, "loss-up", "", "uplink loss `probability`, overriding --loss")
	fs.StringVar(&v.GEDown, "ge-down", "", "Gilbert-Elliott bursty downlink loss `p=..,r=..[,h=..,k=..]` instead of --loss")
	fs.StringVar(&v.GEUp, "ge-up", "", "Gilbert-Elliott bursty uplink loss `p=..,r=..[,h=..,k=..]` instead of --loss")
	fs.StringVar(&v.TraceDown, "trace-down", "", "Mahimahi delivery trace `file` for the downlink (replaces --down)")
	fs.StringVar(&v.TraceUp, "trace-up", "", "Mahimahi delivery trace `file` for the uplink (replaces --up)")
	fs.IntVar(&v.IW, "iw", 10, "server TCP initial congestion window in `segments` (route initcwnd)")
	fs.IntVar(&v.InitRwnd, "initrwnd", 0, "initial receive window in `segments` (route initrwnd) on client and servers; 0 = kernel default")
	fs.StringVar(&v.CC, "cc", "cubic", "TCP congestion `control` of the hosts: cubic, reno, bbr")
	fs.BoolVar(&v.SlowStartAfterIdle, "slow-start-after-idle", false, "let idle connections restart from the initial window (net.ipv4.tcp_slow_start_after_idle)")
	fs.IntVar(&v.Shards, "shards", 1, "number of server hosts s1..sN (`1-8`)")
	fs.BoolVar(&v.PerShardLinks, "per-shard-links", false, "give every server its own bottleneck instead of one shared link")
	fs.BoolVar(&v.DNS, "dns", true, "run a DNS server across the link; lookups cost real round trips")
	fs.BoolVar(&v.NoDNS, "no-dns", false, "resolve host names locally, without DNS packets")
	fs.Int64Var(&v.Seed, "seed", 1, "random `seed` of the loss models")
	fs.StringVar(&v.Log, "log", "", "write a per-packet log of the link to `file`")
	return v
}

// flagErr names the flag and the value at fault.
func flagErr(name, value string, err error) error {
	return fmt.Errorf("--%s %q: %w", name, value, err)
}

// Config turns the flags into a testbed configuration; errors name the flag
// and its value.
func (v *FlagValues) Config() (Config, error) {
	cfg := Config{
		Shards: v.Shards,
		DNS:    v.DNS && !v.NoDNS,
		TCP: probe.TCP{
			IW: v.IW, InitRwnd: v.InitRwnd, CC: v.CC, SlowStartAfterIdle: v.SlowStartAfterIdle,
		},
		PacketLogPath: v.Log,
	}
	if v.set("dns") && v.DNS && v.NoDNS {
		return cfg, errors.New("--dns and --no-dns contradict each other")
	}
	cfg.Link.Shared = !v.PerShardLinks
	cfg.Link.Seed = v.Seed
	if v.Shards < 1 || v.Shards > MaxShards {
		return cfg, flagErr("shards", fmt.Sprint(v.Shards), fmt.Errorf("want 1..%d", MaxShards))
	}
	for _, step := range []func(*Config) error{v.delays, v.ratesAndQueues, v.loss, v.traces, v.tcpKnobs} {
		if err := step(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// delays sets the RTT and the one-way delays.
func (v *FlagValues) delays(cfg *Config) error {
	l := &cfg.Link
	for _, d := range []struct {
		name string
		val  time.Duration
	}{{"rtt", v.RTT}, {"delay-down", v.DelayDown}, {"delay-up", v.DelayUp}} {
		if d.val < 0 {
			return flagErr(d.name, d.val.String(), errors.New("must not be negative"))
		}
		if d.val > 2*link.MaxDelay {
			return flagErr(d.name, d.val.String(), fmt.Errorf("longer than %v", 2*link.MaxDelay))
		}
	}
	l.RTT, l.DelayDown, l.DelayUp = v.RTT, v.DelayDown, v.DelayUp
	if v.RTT > 0 && (v.DelayDown > v.RTT || v.DelayUp > v.RTT) {
		return fmt.Errorf("--delay-down %v / --delay-up %v exceed --rtt %v", v.DelayDown, v.DelayUp, v.RTT)
	}
	if l.RTT == 0 && (v.DelayDown > 0 || v.DelayUp > 0) {
		l.RTT = v.DelayDown + v.DelayUp
	}
	return nil
}

// ratesAndQueues sets the rates and the droptail limits.
func (v *FlagValues) ratesAndQueues(cfg *Config) error {
	l := &cfg.Link
	var err error
	if l.DownBps, err = units.ParseRate(v.Down); err != nil {
		return flagErr("down", v.Down, err)
	}
	if l.UpBps, err = units.ParseRate(v.Up); err != nil {
		return flagErr("up", v.Up, err)
	}
	if l.QueuePkts, l.QueueBytes, err = units.ParseQueue(v.Queue); err != nil {
		return flagErr("queue", v.Queue, err)
	}
	for _, q := range []struct {
		name, val string
		dst       **Queue
	}{{"queue-down", v.QueueDown, &cfg.QueueDown}, {"queue-up", v.QueueUp, &cfg.QueueUp}} {
		if q.val == "" {
			continue
		}
		p, b, err := units.ParseQueue(q.val)
		if err != nil {
			return flagErr(q.name, q.val, err)
		}
		*q.dst = &Queue{Pkts: p, Bytes: b}
	}
	return nil
}

// loss sets Bernoulli loss per direction or, instead, Gilbert-Elliott loss.
func (v *FlagValues) loss(cfg *Config) error {
	l := &cfg.Link
	loss, err := units.ParseLoss(v.Loss)
	if err != nil {
		return flagErr("loss", v.Loss, err)
	}
	l.LossDown, l.LossUp = loss, loss
	if v.LossDown != "" {
		if l.LossDown, err = units.ParseLoss(v.LossDown); err != nil {
			return flagErr("loss-down", v.LossDown, err)
		}
	}
	if v.LossUp != "" {
		if l.LossUp, err = units.ParseLoss(v.LossUp); err != nil {
			return flagErr("loss-up", v.LossUp, err)
		}
	}
	if v.GEDown != "" {
		if cfg.GEDown, err = link.ParseGE(v.GEDown); err != nil {
			return flagErr("ge-down", v.GEDown, err)
		}
		if v.LossDown != "" && l.LossDown > 0 {
			return errors.New("--ge-down and --loss-down both set; choose one loss model")
		}
		l.LossDown = 0
	}
	if v.GEUp != "" {
		if cfg.GEUp, err = link.ParseGE(v.GEUp); err != nil {
			return flagErr("ge-up", v.GEUp, err)
		}
		if v.LossUp != "" && l.LossUp > 0 {
			return errors.New("--ge-up and --loss-up both set; choose one loss model")
		}
		l.LossUp = 0
	}
	return nil
}

// traces checks the rate trace files (they are loaded again by the pipes).
func (v *FlagValues) traces(cfg *Config) error {
	for _, t := range []struct{ name, val string }{{"trace-down", v.TraceDown}, {"trace-up", v.TraceUp}} {
		if t.val == "" {
			continue
		}
		if _, err := link.LoadTrace(t.val); err != nil {
			return flagErr(t.name, t.val, err)
		}
	}
	cfg.Link.TraceDown, cfg.Link.TraceUp = v.TraceDown, v.TraceUp
	return nil
}

// tcpKnobs checks the TCP settings applied to the hosts.
func (v *FlagValues) tcpKnobs(*Config) error {
	if v.IW < 0 || v.IW > 1000 {
		return flagErr("iw", fmt.Sprint(v.IW), errors.New("want 0..1000 segments (0 = kernel default)"))
	}
	if v.InitRwnd < 0 || v.InitRwnd > 65535 {
		return flagErr("initrwnd", fmt.Sprint(v.InitRwnd), errors.New("want 0..65535 segments (0 = kernel default)"))
	}
	if v.CC != "" && !ccAvailable(v.CC) {
		return flagErr("cc", v.CC, fmt.Errorf("not available on this kernel (available: %s)",
			readSysctl("net/ipv4/tcp_available_congestion_control")))
	}
	return nil
}

// set reports whether the flag was given on the command line.
func (v *FlagValues) set(name string) bool {
	found := false
	if v.fs != nil {
		v.fs.Visit(func(f *flag.Flag) {
			if f.Name == name {
				found = true
			}
		})
	}
	return found
}

// Describe renders cfg's link in the flags' terms, for logs and messages.
func Describe(cfg Config) string {
	l := cfg.Link
	down, up := oneWayDelays(l)
	rate := func(bps int64, trace string) string {
		if trace != "" {
			return "trace " + trace
		}
		return units.FormatRate(bps)
	}
	s := fmt.Sprintf("rtt %v (down %v, up %v), down %s, up %s, loss %g%%/%g%%",
		down+up, down, up, rate(l.DownBps, l.TraceDown), rate(l.UpBps, l.TraceUp), 100*l.LossDown, 100*l.LossUp)
	if cfg.GEDown != nil {
		s += ", ge-down " + cfg.GEDown.String()
	}
	if cfg.GEUp != nil {
		s += ", ge-up " + cfg.GEUp.String()
	}
	q := func(pk, b int) string {
		switch {
		case pk > 0 && b > 0:
			return fmt.Sprintf("%dpkt+%dB", pk, b)
		case pk > 0:
			return fmt.Sprintf("%dpkt", pk)
		case b > 0:
			return fmt.Sprintf("%dB", b)
		}
		return "unlimited"
	}
	qd, qu := q(l.QueuePkts, l.QueueBytes), q(l.QueuePkts, l.QueueBytes)
	if cfg.QueueDown != nil {
		qd = q(cfg.QueueDown.Pkts, cfg.QueueDown.Bytes)
	}
	if cfg.QueueUp != nil {
		qu = q(cfg.QueueUp.Pkts, cfg.QueueUp.Bytes)
	}
	links := "shared link"
	if !l.Shared {
		links = "per-shard links"
	}
	s += fmt.Sprintf(", queue %s/%s, %d server(s), %s, iw %d, cc %s", qd, qu, cfg.Shards, links, cfg.TCP.IW, cfg.TCP.CC)
	return s
}
