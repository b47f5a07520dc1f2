package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/page"
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
	{name: "page", kind: "string", canon: canonPage, help: "built-in page name, generic:..., har:FILE.har, a manifest .json, or dir:PATH (one value per page of a folder; also written pages = \"dir:PATH\")"},
	{name: "shards", kind: "int", canon: intRange(1, probe.MaxShards), def: "1", help: fmt.Sprintf("servers the page is spread over, 1..%d", probe.MaxShards)},
	{name: "shard_mode", kind: "string", canon: oneOf(probe.ShardModes...), def: probe.ShardEqual, help: probe.OneOf(probe.ShardModes)},
	{name: "rate", kind: "string", canon: canonRatePair, def: "", help: `"DOWN/UP" or one rate for both directions, e.g. "10mbit/1mbit"`},
	{name: "down", kind: "string", canon: canonRate, def: "", help: "server->client rate, e.g. 10mbit"},
	{name: "up", kind: "string", canon: canonRate, def: "", help: "client->server rate, e.g. 1mbit"},
	{name: "rtt", kind: "string", canon: canonDuration, def: "0s", help: "round-trip time, e.g. 100ms"},
	{name: "loss", kind: "string", canon: canonLoss, def: "0%", help: `random loss, e.g. "1%" or "0.01"`},
	{name: "loss_dir", kind: "string", canon: oneOf("both", "down", "up"), def: "both", help: "direction(s) the loss applies to"},
	{name: "queue", kind: "string", canon: canonQueue, def: "100pkt", help: `bottleneck queue, e.g. "50pkt", "64kb", "unlimited"`},
	{name: "iw", kind: "int", canon: intRange(0, 1000), def: "0", help: "server initcwnd in segments (0 = kernel default)"},
	{name: "cc", kind: "string", canon: oneOf("", "cubic", "reno", "bbr"), def: "", help: "server congestion control (\"\" = kernel default)"},
	{name: "protocol", kind: "string", canon: oneOf(probe.ProtocolNames()...), help: probe.OneOf(probe.ProtocolNames())},
	{name: "tls", kind: "string", canon: oneOf(probe.TLSVersionNames()...), def: probe.DefaultTLS, help: "TLS version"},
	{name: "tls_resume", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "a host's later connections in a load resume its first handshake's session, as a browser's do (the load still starts with no ticket)"},
	{name: "early_data", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "requests in TLS 1.3 early data (0-RTT) on resumed connections; needs tls 1.3, tls_resume and a protocol that can send it: " + probe.OneOf(probe.EarlyDataProtocols())},
	{name: "max_streams", kind: "int", canon: intRange(0, 1<<20), def: "0", help: "SPDY/h2 server max concurrent streams (0 = 100)"},
	{name: "initial_window", kind: "int", canon: intRange(0, 1<<31-1), def: "0", help: "SPDY/h2/h3 initial stream window in bytes (0 = the browser profile's: 64 KiB for chrome16, 6 MiB for chromium-modern)"},
	{name: "push", kind: "string", canon: oneOf(probe.PushPolicies...), def: probe.PushNone, help: "server push policy"},
	{name: "priority", kind: "string", canon: oneOf(probe.PriorityPolicies...), def: probe.PriorityChrome, help: "the loader's request priorities: chrome (by resource type), none (all the same) or depth (by depth in the page tree, the root highest); SPDY, h2 and h3 carry them, HTTPS queues by them"},
	{name: "scheduler", kind: "string", canon: oneOf(probe.Schedulers...), def: probe.SchedulerPriority, help: "the SPDY server's DATA order: priority (strict), roundrobin (turns, priority ignored) or fifo (open order, each stream to its end); " + probe.SchedulerNote + ", so other values need SPDY protocols"},
	{name: "dns", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "resolve host names over the link"},
	{name: "client", kind: "string", canon: oneOf(probe.ClientNames()...), def: probe.ClientLoader, help: "who loads the page: " + probe.OneOf(probe.ClientNames())},
	{name: "browser_profile", kind: "string", canon: oneOf(probe.BrowserProfiles...), def: probe.ProfileChrome16, help: "the browser the loader models: " + probe.OneOf(probe.BrowserProfiles)},
	{name: "renderer_costs", kind: "string", canon: probe.CanonRendererCosts, def: probe.RendererFromProfile, help: "the loader's renderer costs, COMMIT/DISPATCH (e.g. \"35ms/2ms\"; \"0s/0s\" = none), or " + probe.RendererFromProfile + " (the browser profile's); the fidelity report measures Chromium's on the machine that ran it"},
	{name: "no_link", kind: "bool", canon: oneOf("false", "true"), def: "false", help: "loopback without an emulated link (smoke tests)"},
	// SPDY over SCTP (protocol spdy/3.1+sctp); see factors_sctp.go.
	{name: "sctp_control_stream", kind: "bool", canon: oneOf("false", "true"), def: "true", help: "SPDY control frames on SCTP stream 0 (the study's control-stream option)"},
	{name: "sctp_bundle_cookie", kind: "bool", canon: oneOf("false", "true"), def: "true", help: "DATA bundled with COOKIE-ECHO (false: lksctp's extra round trip)"},
	{name: "sctp_streams", kind: "int", canon: intRange(probe.MinSCTPStreams, probe.MaxSCTPStreams), def: strconv.Itoa(probe.DefaultSCTPStreams), help: "SCTP streams asked for each way"},
	{name: "sctp_rto_min", kind: "string", canon: canonSCTPRTO, def: probe.DefaultSCTPRTOMin.String(), help: "SCTP RTO.Min, e.g. 200ms"},
	{name: "sctp_rto_initial", kind: "string", canon: canonSCTPRTO, def: probe.DefaultSCTPRTOInitial.String(), help: "SCTP RTO.Initial, e.g. 1s"},
	{name: "sctp_buffer", kind: "string", canon: canonSCTPBuffer, def: formatSize(probe.DefaultSCTPBuffer), help: "SCTP send and receive buffer, e.g. 64KiB"},
	{name: "sctp_cc", kind: "string", canon: oneOf(probe.SCTPCongestionControls...), def: probe.DefaultSCTPCongestionControl, help: "SCTP congestion control (usrsctp module): " + probe.OneOf(probe.SCTPCongestionControls)},
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

// canonPageIn validates a page spec (page.CheckSpec) with relative
// manifest paths resolved against dir, the study file's directory while it
// is parsed ("" = current directory).
func canonPageIn(dir string) func(string) (string, error) {
	return func(v string) (string, error) { return page.CheckSpec(v, dir) }
}

var canonPage = canonPageIn("")

func canonRate(v string) (string, error) {
	bps, err := units.ParseRate(v)
	if err != nil {
		return "", err
	}
	return units.FormatRate(bps), nil
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
	d, err := units.ParseDuration(v, time.Minute)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func canonLoss(v string) (string, error) {
	p, err := units.ParseLoss(v)
	if err != nil {
		return "", err
	}
	if p >= 1 {
		return "", fmt.Errorf("loss %q would drop every packet", v)
	}
	return strconv.FormatFloat(p*100, 'f', -1, 64) + "%", nil
}

func canonQueue(v string) (string, error) {
	p, b, err := units.ParseQueue(v)
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
// every factor present) into the probe.Condition the harness runs, checked
// by probe.Normalize (the rules every stage shares).
func buildCondition(v map[string]string, timeout time.Duration) (probe.Condition, error) {
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
	c.Client, c.BrowserProfile, c.RendererCosts = v["client"], v["browser_profile"], v["renderer_costs"]
	c.TLSResume, c.EarlyData = v["tls_resume"] == "true", v["early_data"] == "true"
	c.Priority, c.Scheduler = v["priority"], v["scheduler"]
	down, up, _ := strings.Cut(v["rate"], "/")
	c.Link.DownBps, _ = units.ParseRate(down)
	c.Link.UpBps, _ = units.ParseRate(up)
	c.Link.RTT, _ = time.ParseDuration(v["rtt"])
	loss, _ := units.ParseLoss(v["loss"])
	switch v["loss_dir"] {
	case "both":
		c.Link.LossDown, c.Link.LossUp = loss, loss
	case "down":
		c.Link.LossDown = loss
	case "up":
		c.Link.LossUp = loss
	}
	c.Link.QueuePkts, c.Link.QueueBytes, _ = units.ParseQueue(v["queue"])
	// The studies put every shard behind one bottleneck (one access link).
	c.Link.Shared = true
	c.TCP.IW = atoi(v["iw"])
	c.TCP.CC = v["cc"]
	c.SCTP = sctpKnobs(v)
	if c.NoLink {
		c.Link = probe.Link{}
	}
	if page.HasOwnHosts(c.Page) {
		// A recorded or manifest page brings its hosts: 0 = the page's own
		// (as `spdylab load` without --shards), whatever "shards" says.
		c.Shards = 0
	}
	n, err := probe.Normalize(c)
	if err != nil {
		return c, fmt.Errorf("condition %s: %w (leave it out with an [[exclude]] table)", describeValues(v), err)
	}
	// Their defaults are stored empty (probe/clients.go, probe/policies.go:
	// stored hashes).
	c.Client, c.BrowserProfile, c.RendererCosts = n.Client, n.BrowserProfile, n.RendererCosts
	c.Priority, c.Scheduler = n.Priority, n.Scheduler
	if n != c {
		// The factors' defaults are the conditions' defaults: a condition
		// Normalize completes would hash differently from the one stored.
		return c, fmt.Errorf("condition %s: factor defaults disagree with probe.Normalize", describeValues(v))
	}
	return c, nil
}

// describeValues names a matrix point for an error message.
func describeValues(v map[string]string) string {
	parts := make([]string, 0, len(factors))
	for _, f := range factors {
		parts = append(parts, f.name+"="+v[f.name])
	}
	return strings.Join(parts, " ")
}

// FactorNames lists every factor a study file may use, in matrix order.
func FactorNames() []string {
	n := make([]string, len(factors))
	for i, f := range factors {
		n[i] = f.name
	}
	return n
}

// Describe names a condition by its factor values without the protocol,
// for messages about its bench.
func (c Cond) Describe() string {
	var parts []string
	for _, f := range factors {
		if v, ok := c.Values[f.name]; ok && f.name != "protocol" {
			parts = append(parts, f.name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
