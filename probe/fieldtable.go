package probe

import (
	"fmt"
	"strconv"
)

// Fields is the table of a condition's settings (fields.go says how it is
// used and how to add one), in study matrix order.
var Fields = []Field{
	{Name: "page", Kind: KindString, Required: true, Canon: canonNonEmpty, Flag: FlagLoad,
		Help:  "built-in page name, generic:KEY=VALUE,..., har:FILE.har, a page folder DIR or its DIR/manifest.json, or in a study dir:PATH (one value per page of a folder; also written pages = \"dir:PATH\")",
		apply: func(c *Condition, v map[string]string) error { c.Page = v["page"]; return nil }},
	{Name: "shards", Kind: KindInt, Default: "1", Canon: intRange(1, MaxShards), Flag: FlagLink,
		Help:  fmt.Sprintf("servers the page is spread over, 1..%d (a page with host names of its own: as many as it has, unless given)", MaxShards),
		apply: func(c *Condition, v map[string]string) error { c.Shards = atoi(v["shards"]); return nil }},
	{Name: "shard_mode", Kind: KindString, Default: ShardEqual, Canon: oneOf(ShardModes...), Flag: FlagLoad,
		Help:  "how resources are spread over the shards: " + OneOf(ShardModes),
		apply: func(c *Condition, v map[string]string) error { c.ShardMode = v["shard_mode"]; return nil }},
	{Name: "rate", Kind: KindString, Default: "unlimited/unlimited", Canon: canonRatePair, OnLink: true,
		Help: `"DOWN/UP" or one rate for both directions, e.g. "10mbit/1mbit"`, apply: applyRates},
	{Name: "down", Kind: KindString, Canon: canonRate, Flag: FlagLink, OnLink: true,
		Help: "downlink (server->client) rate: 64kbit, 10mbit, 1gbit, unlimited (default unlimited)"},
	{Name: "up", Kind: KindString, Canon: canonRate, Flag: FlagLink, OnLink: true,
		Help: "uplink (client->server) rate (default unlimited)"},
	{Name: "rtt", Kind: KindString, Default: "0s", Canon: canonDuration, Flag: FlagLink, OnLink: true,
		Help: "round-trip time added by the link, split evenly between the directions, e.g. 100ms", apply: applyDelays},
	{Name: "delay_down", Kind: KindString, Canon: canonDuration, Flag: FlagLink, OnLink: true,
		Help: "one-way delay server->client, overriding the rtt split"},
	{Name: "delay_up", Kind: KindString, Canon: canonDuration, Flag: FlagLink, OnLink: true,
		Help: "one-way delay client->server, overriding the rtt split"},
	{Name: "loss", Kind: KindString, Default: "0%", Canon: canonLoss, Flag: FlagLink, OnLink: true,
		Help: `random packet loss probability, e.g. "1%" or "0.01"`, apply: applyLoss},
	{Name: "loss_dir", Kind: KindString, Default: "both", Canon: oneOf("both", "down", "up"), Flag: FlagLink, OnLink: true,
		Help: "direction(s) loss applies to: both, down or up"},
	{Name: "loss_down", Kind: KindString, Canon: canonLoss, Flag: FlagLink, OnLink: true,
		Help: "downlink loss probability, overriding loss"},
	{Name: "loss_up", Kind: KindString, Canon: canonLoss, Flag: FlagLink, OnLink: true,
		Help: "uplink loss probability, overriding loss"},
	{Name: "ge_down", Kind: KindString, Canon: canonGE, Flag: FlagLink, OnLink: true,
		Help: "Gilbert-Elliott bursty downlink loss p=..,r=..[,h=..,k=..] instead of loss"},
	{Name: "ge_up", Kind: KindString, Canon: canonGE, Flag: FlagLink, OnLink: true,
		Help: "Gilbert-Elliott bursty uplink loss p=..,r=..[,h=..,k=..] instead of loss"},
	{Name: "queue", Kind: KindString, Default: "100pkt", Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: `droptail queue limit per direction, e.g. "50pkt", "64kb", "unlimited"`, apply: applyQueues},
	{Name: "queue_down", Kind: KindString, Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: "downlink queue limit, overriding queue"},
	{Name: "queue_up", Kind: KindString, Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: "uplink queue limit, overriding queue"},
	{Name: "trace_down", Kind: KindString, Canon: canonNonEmpty, Flag: FlagLink, OnLink: true,
		Help:  "Mahimahi delivery trace file for the downlink (replaces down)",
		apply: func(c *Condition, v map[string]string) error { c.Link.TraceDown = v["trace_down"]; return nil }},
	{Name: "trace_up", Kind: KindString, Canon: canonNonEmpty, Flag: FlagLink, OnLink: true,
		Help:  "Mahimahi delivery trace file for the uplink (replaces up)",
		apply: func(c *Condition, v map[string]string) error { c.Link.TraceUp = v["trace_up"]; return nil }},
	// per_shard_links is applied by BuildCondition (Link.Shared).
	{Name: "per_shard_links", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink, OnLink: true,
		Help: "give every server its own bottleneck instead of one shared link (the studies' access link)"},
	{Name: "iw", Kind: KindInt, Default: "0", Canon: intRange(0, 1000), Flag: FlagLink,
		Help:  "server TCP initial congestion window in segments (route initcwnd; 0 = kernel default)",
		apply: func(c *Condition, v map[string]string) error { c.TCP.IW = atoi(v["iw"]); return nil }},
	{Name: "initrwnd", Kind: KindInt, Default: "0", Canon: intRange(0, 65535), Flag: FlagLink,
		Help:  "initial receive window in segments (route initrwnd) on client and servers (0 = kernel default)",
		apply: func(c *Condition, v map[string]string) error { c.TCP.InitRwnd = atoi(v["initrwnd"]); return nil }},
	{Name: "cc", Kind: KindString, Default: "", Canon: oneOf("", "cubic", "reno", "bbr"), Flag: FlagLink,
		Help:  `server TCP congestion control: cubic, reno, bbr ("" = kernel default)`,
		apply: func(c *Condition, v map[string]string) error { c.TCP.CC = v["cc"]; return nil }},
	{Name: "slow_start_after_idle", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink,
		Help: "let idle connections restart from the initial window (net.ipv4.tcp_slow_start_after_idle)",
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.SlowStartAfterIdle = v["slow_start_after_idle"] == "true"
			return nil
		}},
	{Name: "protocol", Kind: KindString, Required: true, Canon: oneOf(ProtocolNames()...),
		Help:  OneOf(ProtocolNames()),
		apply: func(c *Condition, v map[string]string) error { c.Proto = v["protocol"]; return nil }},
	{Name: "tls", Kind: KindString, Default: DefaultTLS, Canon: oneOf(TLSVersionNames()...), Flag: FlagLoad,
		Help:  "TLS version: " + OneOf(TLSVersionNames()) + " (1.2: full 2-RTT handshake, as in the 2012 studies)",
		apply: func(c *Condition, v map[string]string) error { c.TLS = v["tls"]; return nil }},
	{Name: "tls_resume", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "a host's later connections in a load resume its first handshake's session, as a browser's do (the load still starts with no ticket)",
		apply: func(c *Condition, v map[string]string) error { c.TLSResume = v["tls_resume"] == "true"; return nil }},
	{Name: "early_data", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "requests in TLS 1.3 early data (0-RTT) on resumed connections; needs tls 1.3, tls_resume (or view repeat) and a protocol that can send it: " + OneOf(EarlyDataProtocols()),
		apply: func(c *Condition, v map[string]string) error { c.EarlyData = v["early_data"] == "true"; return nil }},
	{Name: "view", Kind: KindString, Default: ViewFirst, Canon: oneOf(Views...), Flag: FlagLoad,
		Help:  "first: a cold load; repeat: a first view of the page (not measured) goes before it, and the measured load reuses its TLS session tickets (resumed handshakes; with early_data, h3's 0-RTT) on new connections with an empty cache",
		apply: func(c *Condition, v map[string]string) error { c.View = v["view"]; return nil }},
	{Name: "max_streams", Kind: KindInt, Default: "0", Canon: intRange(0, 1<<20), Flag: FlagLoad,
		Help:  "SPDY/h2 server max concurrent streams (0 = 100)",
		apply: func(c *Condition, v map[string]string) error { c.MaxStreams = atoi(v["max_streams"]); return nil }},
	{Name: "initial_window", Kind: KindInt, Default: "0", Canon: intRange(0, 1<<31-1), Flag: FlagLoad,
		Help:  "SPDY/h2/h3 initial stream window in bytes (0 = the browser profile's: 64 KiB for chrome16, 6 MiB for chromium-modern)",
		apply: func(c *Condition, v map[string]string) error { c.InitialWindow = atoi(v["initial_window"]); return nil }},
	{Name: "push", Kind: KindString, Default: PushNone, Canon: oneOf(PushPolicies...), Flag: FlagLoad,
		Help:  "server push policy: " + OneOf(PushPolicies),
		apply: func(c *Condition, v map[string]string) error { c.Push = v["push"]; return nil }},
	{Name: "priority", Kind: KindString, Default: PriorityChrome, Canon: oneOf(PriorityPolicies...), Flag: FlagLoad,
		Help:  "the loader's request priorities: chrome (by resource type), none (all the same) or depth (by depth in the page tree, the root highest); SPDY, h2 and h3 carry them, HTTPS queues by them",
		apply: func(c *Condition, v map[string]string) error { c.Priority = v["priority"]; return nil }},
	{Name: "scheduler", Kind: KindString, Default: SchedulerPriority, Canon: oneOf(Schedulers...), Flag: FlagLoad,
		Help:  "the SPDY server's DATA order: priority (strict), roundrobin (turns, priority ignored) or fifo (open order, each stream to its end); " + SchedulerNote + ", so other values need SPDY protocols",
		apply: func(c *Condition, v map[string]string) error { c.Scheduler = v["scheduler"]; return nil }},
	{Name: "dns", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink,
		Help:  "run a DNS server across the link, so lookups cost real round trips (false: names resolve locally)",
		apply: func(c *Condition, v map[string]string) error { c.DNS = v["dns"] == "true"; return nil }},
	{Name: "client", Kind: KindString, Default: ClientLoader, Canon: oneOf(ClientNames()...), Flag: FlagLoad,
		Help:  "who loads the page: " + OneOf(ClientNames()),
		apply: func(c *Condition, v map[string]string) error { c.Client = v["client"]; return nil }},
	{Name: "browser_profile", Kind: KindString, Default: ProfileChrome16, Canon: oneOf(BrowserProfiles...), Flag: FlagLoad,
		Help:  "the browser the loader models: " + OneOf(BrowserProfiles),
		apply: func(c *Condition, v map[string]string) error { c.BrowserProfile = v["browser_profile"]; return nil }},
	{Name: "renderer_costs", Kind: KindString, Default: RendererFromProfile, Canon: CanonRendererCosts, Flag: FlagLoad,
		Help:  "the loader's renderer costs, COMMIT/DISPATCH (e.g. \"35ms/2ms\"; \"0s/0s\" = none), or " + RendererFromProfile + " (the browser profile's); the fidelity report measures Chromium's on the machine that ran it",
		apply: func(c *Condition, v map[string]string) error { c.RendererCosts = v["renderer_costs"]; return nil }},
	// no_link is applied by BuildCondition (the OnLink fields are skipped).
	{Name: "no_link", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "no emulated link: servers on 127.0.0.x in the caller's namespace (smoke tests; no root needed)"},
	// SPDY over SCTP (protocol spdy/3.1+sctp): values equal to probe's
	// defaults are stored as zero (SCTP.Compact), so studies that never
	// mention SCTP keep their condition hashes.
	{Name: "sctp_control_stream", Kind: KindBool, Default: "true", Canon: canonBool, Flag: FlagLoad,
		Help: "SPDY control frames on SCTP stream 0 (the study's control-stream option)",
		apply: func(c *Condition, v map[string]string) error {
			c.SCTP.NoControlStream = v["sctp_control_stream"] == "false"
			return nil
		}},
	{Name: "sctp_bundle_cookie", Kind: KindBool, Default: "true", Canon: canonBool, Flag: FlagLoad,
		Help: "DATA bundled with COOKIE-ECHO (false: lksctp's extra round trip)",
		apply: func(c *Condition, v map[string]string) error {
			c.SCTP.NoBundleCookie = v["sctp_bundle_cookie"] == "false"
			return nil
		}},
	{Name: "sctp_streams", Kind: KindInt, Default: strconv.Itoa(DefaultSCTPStreams), Canon: intRange(MinSCTPStreams, MaxSCTPStreams), Flag: FlagLoad,
		Help:  "SCTP streams asked for each way",
		apply: func(c *Condition, v map[string]string) error { c.SCTP.Streams = atoi(v["sctp_streams"]); return nil }},
	{Name: "sctp_rto_min", Kind: KindString, Default: DefaultSCTPRTOMin.String(), Canon: canonSCTPRTO, Flag: FlagLoad,
		Help:  "SCTP RTO.Min, e.g. 200ms",
		apply: func(c *Condition, v map[string]string) error { c.SCTP.RTOMin = duration(v["sctp_rto_min"]); return nil }},
	{Name: "sctp_rto_initial", Kind: KindString, Default: DefaultSCTPRTOInitial.String(), Canon: canonSCTPRTO, Flag: FlagLoad,
		Help: "SCTP RTO.Initial, e.g. 1s",
		apply: func(c *Condition, v map[string]string) error {
			c.SCTP.RTOInitial = duration(v["sctp_rto_initial"])
			return nil
		}},
	{Name: "sctp_buffer", Kind: KindString, Default: FormatSize(DefaultSCTPBuffer), Canon: canonSCTPBuffer, Flag: FlagLoad,
		Help: "SCTP send and receive buffer, e.g. 64KiB",
		apply: func(c *Condition, v map[string]string) error {
			c.SCTP.Buffer, _ = ParseSize(v["sctp_buffer"])
			return nil
		}},
	{Name: "sctp_cc", Kind: KindString, Default: DefaultSCTPCongestionControl, Canon: oneOf(SCTPCongestionControls...), Flag: FlagLoad,
		Help:  "SCTP congestion control (usrsctp module): " + OneOf(SCTPCongestionControls),
		apply: func(c *Condition, v map[string]string) error { c.SCTP.CongestionControl = v["sctp_cc"]; return nil }},
	// The page methodology (method.go); until is resolved per page by
	// page.UntilFor before a condition is stored.
	{Name: "compute", Kind: KindString, Default: ComputeRecorded, Canon: canonCompute, Flag: FlagLoad,
		Help:  "the page's recorded delays between a parent's arrival and its children's requests (script execution): recorded, none (also no renderer costs: no client computation at all, NSDI'14) or xF to scale them (x0.5, x2)",
		apply: func(c *Condition, v map[string]string) error { c.Compute = v["compute"]; return nil }},
	{Name: "deps", Kind: KindString, Default: DepsRecorded, Canon: oneOf(DepsModes...), Flag: FlagLoad,
		Help:  "the page's dependencies: recorded, or flat (every resource referenced at the top of the main document, requested as its first bytes arrive; NSDI'14's \"no dependencies\")",
		apply: func(c *Condition, v map[string]string) error { c.Deps = v["deps"]; return nil }},
	{Name: "until", Kind: KindString, Default: "", Canon: oneOf(append([]string{""}, UntilModes...)...), Flag: FlagLoad,
		Help:  `where a recorded page's load ends: onload (the recording's pageTimings.onLoad; resources first requested after it are left out) or all; "" = onload for a recording, and a generated page (no onload) stores none`,
		apply: func(c *Condition, v map[string]string) error { c.Until = v["until"]; return nil }},
	{Name: "redirects", Kind: KindString, Default: "", Canon: oneOf(append([]string{""}, RedirectsModes...)...), Flag: FlagLoad,
		Help:  `a recording's http->https upgrades and repeated requests: replay (each a request of its own, an upgrade a redirect from its https URL) or drop (left out, as older imports did); "" = replay for a recording, and a generated page stores none`,
		apply: func(c *Condition, v map[string]string) error { c.Redirects = v["redirects"]; return nil }},
}
