package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// A factor is one dimension of a study's matrix. Every value a study file
// gives is validated and turned into a canonical string so that exclusions,
// baselines and reports compare like with like ("0.01" and "1%" are the same
// loss).
type factor struct {
	name string
	// kind is the TOML type a value must have: "string", "int" or "bool".
	kind string
	// canon validates one value and returns its canonical spelling.
	canon func(v string) (string, error)
	// def is the value used when a study does not mention the factor; "" means
	// the factor is required.
	def  string
	help string
}

// factors lists every factor in the order the matrix is expanded (the first
// varies slowest), which is also the column order of reports.
var factors = []factor{
	{name: "page", kind: "string", canon: canonPage, help: "built-in page name or path to a manifest .json"},
	{name: "shards", kind: "int", canon: intRange(1, 8), def: "1", help: "servers the page is spread over, 1..8"},
	{name: "shard_mode", kind: "string", canon: oneOf("equal", "roundrobin"), def: "equal", help: "equal or roundrobin"},
	{name: "rate", kind: "string", canon: canonRatePair, def: "", help: `"DOWN/UP" or one rate for both directions, e.g. "10mbit/1mbit"`},
	{name: "down", kind: "string", canon: canonRate, def: "", help: "server->client rate, e.g. 10mbit"},
	{name: "up", kind: "string", canon: canonRate, def: "", help: "client->server rate, e.g. 1mbit"},
	{name: "rtt", kind: "string", canon: canonDuration, def: "0s", help: "round-trip time, e.g. 100ms"},
	{name: "loss", kind: "string", canon: canonLoss, def: "0%", help: `random loss, e.g. "1%" or "0.01"`},
	{name: "loss_dir", kind: "string", canon: oneOf("both", "down", "up"), def: "both", help: "direction(s) the loss applies to"},
	{name: "queue", kind: "string", canon: canonQueue, def: "100pkt", help: `bottleneck queue, e.g. "50pkt", "64kb", "unlimited"`},
	{name: "iw", kind: "int", canon: intRange(0, 1000), def: "0", help: "server initcwnd in segments (0 = kernel default)"},
	{name: "cc", kind: "string", canon: oneOf("", "cubic", "reno", "bbr"), def: "", help: "server congestion control (\"\" = kernel default)"},
	{name: "protocol", kind: "string", canon: oneOf(probe.ProtoHTTPS, probe.ProtoSPDY31, probe.ProtoSPDY3, probe.ProtoH2), help: "https, spdy/3.1, spdy/3 or h2"},
	{name: "tls", kind: "string", canon: oneOf("1.2", "1.3"), def: "1.2", help: "TLS version"},
	{name: "max_streams", kind: "int", canon: intRange(0, 1<<20), def: "0", help: "SPDY/h2 server max concurrent streams (0 = 100)"},
	{name: "initial_window", kind: "int", canon: intRange(0, 1<<31-1), def: "0", help: "SPDY/h2 initial stream window in bytes (0 = 64 KiB)"},
	{name: "push", kind: "string", canon: oneOf("none", "manifest", "preload"), def: "none", help: "server push policy"},
	{name: "dns", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "resolve host names over the link"},
	{name: "no_link", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "loopback without an emulated link (smoke tests)"},
}

func factorByName(name string) (*factor, bool) {
	for i := range factors {
		if factors[i].name == name {
			return &factors[i], true
		}
	}
	return nil, false
}

func factorNames() string {
	n := make([]string, len(factors))
	for i, f := range factors {
		n[i] = f.name
	}
	return strings.Join(n, ", ")
}

func oneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, a := range allowed {
			if v == a {
				return v, nil
			}
		}
		q := make([]string, len(allowed))
		for i, a := range allowed {
			q[i] = strconv.Quote(a)
		}
		return "", fmt.Errorf("must be one of %s", strings.Join(q, ", "))
	}
}

func intRange(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("not an integer")
		}
		if n < lo || n > hi {
			return "", fmt.Errorf("must be between %d and %d", lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// pageDir is the directory relative manifest paths are resolved against
// while a study file is being parsed ("" = current directory).
func canonPageIn(dir string) func(string) (string, error) {
	return func(v string) (string, error) {
		if strings.HasSuffix(v, ".json") || strings.ContainsRune(v, filepath.Separator) {
			p := v
			if !filepath.IsAbs(p) && dir != "" {
				p = filepath.Join(dir, p)
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", err
			}
			if _, err := os.Stat(abs); err != nil {
				return "", fmt.Errorf("manifest %s: %v", abs, err)
			}
			return abs, nil
		}
		if isGenericPage(v) {
			if err := checkGenericPage(v); err != nil {
				return "", err
			}
			return v, nil
		}
		for _, n := range PageNames() {
			if v == n {
				return v, nil
			}
		}
		return "", fmt.Errorf("unknown page (built-in pages: %s; or a generic:KEY=VALUE,... spec, or a manifest path ending in .json)", strings.Join(PageNames(), ", "))
	}
}

var canonPage = canonPageIn("")

func canonRate(v string) (string, error) {
	bps, err := link.ParseRate(v)
	if err != nil {
		return "", err
	}
	return link.FormatRate(bps), nil
}

func canonRatePair(v string) (string, error) {
	down, up, ok := strings.Cut(v, "/")
	if !ok {
		up = down
	}
	d, err := canonRate(down)
	if err != nil {
		return "", err
	}
	u, err := canonRate(up)
	if err != nil {
		return "", err
	}
	return d + "/" + u, nil
}

func canonDuration(v string) (string, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return "", fmt.Errorf("not a duration like \"100ms\"")
	}
	if d < 0 || d > time.Minute {
		return "", fmt.Errorf("must be between 0 and 1m")
	}
	return d.String(), nil
}

func canonLoss(v string) (string, error) {
	p, err := link.ParseLoss(v)
	if err != nil {
		return "", err
	}
	if p >= 1 {
		return "", fmt.Errorf("loss %q would drop every packet", v)
	}
	return strconv.FormatFloat(p*100, 'f', -1, 64) + "%", nil
}

func canonQueue(v string) (string, error) {
	p, b, err := link.ParseQueue(v)
	if err != nil {
		return "", err
	}
	switch {
	case p > 0:
		return fmt.Sprintf("%dpkt", p), nil
	case b > 0:
		return fmt.Sprintf("%db", b), nil
	}
	return "unlimited", nil
}

// buildCondition turns one point of the matrix (factor -> canonical value,
// every factor present) into the probe.Condition the harness runs.
func buildCondition(v map[string]string, timeout time.Duration) probe.Condition {
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	c := probe.Condition{
		Page:          v["page"],
		Shards:        atoi(v["shards"]),
		ShardMode:     v["shard_mode"],
		Proto:         v["protocol"],
		TLS:           v["tls"],
		MaxStreams:    atoi(v["max_streams"]),
		InitialWindow: atoi(v["initial_window"]),
		Push:          v["push"],
		DNS:           v["dns"] == "true",
		NoLink:        v["no_link"] == "true",
		Timeout:       timeout,
	}
	down, up, _ := strings.Cut(v["rate"], "/")
	c.Link.DownBps, _ = link.ParseRate(down)
	c.Link.UpBps, _ = link.ParseRate(up)
	c.Link.RTT, _ = time.ParseDuration(v["rtt"])
	loss, _ := link.ParseLoss(v["loss"])
	switch v["loss_dir"] {
	case "both":
		c.Link.LossDown, c.Link.LossUp = loss, loss
	case "down":
		c.Link.LossDown = loss
	case "up":
		c.Link.LossUp = loss
	}
	c.Link.QueuePkts, c.Link.QueueBytes, _ = link.ParseQueue(v["queue"])
	// The studies put every shard behind one bottleneck (one access link).
	c.Link.Shared = true
	c.TCP.IW = atoi(v["iw"])
	c.TCP.CC = v["cc"]
	if c.NoLink {
		c.Link = probe.Link{}
	}
	return c
}

// FactorNames lists every factor a study file may use, in matrix order.
func FactorNames() []string {
	n := make([]string, len(factors))
	for i, f := range factors {
		n[i] = f.name
	}
	return n
}

// ParseRateValue parses one rate as study files write it ("10mbit",
// "unlimited"), in bit/s; 0 = unlimited.
func ParseRateValue(s string) (int64, error) { return link.ParseRate(s) }
