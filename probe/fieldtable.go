package probe

import (
	"fmt"
	"strconv"
)

// Fields is the table of a condition's settings (fields.go says how it is
// used and how to add one), in study matrix order.
var Fields = []Field{
	{Name: "page", Setup: true, Kind: KindString, Required: true, Canon: canonNonEmpty, Flag: FlagLoad,
		Help:  "built-in page name, generic:KEY=VALUE,..., har:FILE.har, a page folder DIR or its DIR/manifest.json, or in a study dir:PATH (one value per page of a folder; also written pages = \"dir:PATH\")",
		apply: func(c *Condition, v map[string]string) error { c.Page = v["page"]; return nil }},
	{Name: "shards", Setup: true, Kind: KindInt, Default: "1", Canon: intRange(1, MaxShards), Flag: FlagLink,
		Help:  fmt.Sprintf("servers the page is spread over, 1..%d (a page with host names of its own: as many as it has, unless given)", MaxShards),
		apply: func(c *Condition, v map[string]string) error { c.Shards = atoi(v["shards"]); return nil }},
	{Name: "shard_mode", Setup: true, Kind: KindString, Default: ShardEqual, Canon: oneOf(ShardModes...), Flag: FlagLoad,
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
		Help: "Gilbert-Elliott bursty downlink loss p=..,r=..[,h=..,k=..] instead of loss; none: no model"},
	{Name: "ge_up", Kind: KindString, Canon: canonGE, Flag: FlagLink, OnLink: true,
		Help: "Gilbert-Elliott bursty uplink loss p=..,r=..[,h=..,k=..] instead of loss; none: no model"},
	{Name: "queue", Kind: KindString, Default: "100pkt", Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: `droptail queue limit per direction, e.g. "50pkt", "64kb", "unlimited"`, apply: applyQueues},
	{Name: "queue_down", Kind: KindString, Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: "downlink queue limit, overriding queue"},
	{Name: "queue_up", Kind: KindString, Canon: canonQueue, Flag: FlagLink, OnLink: true,
		Help: "uplink queue limit, overriding queue"},
	{Name: "trace_down", Kind: KindString, Canon: canonTrace, Flag: FlagLink, OnLink: true,
		Help:  "Mahimahi delivery trace file for the downlink (replaces down); none: no trace",
		apply: func(c *Condition, v map[string]string) error { c.Link.TraceDown = v["trace_down"]; return nil }},
	{Name: "trace_up", Kind: KindString, Canon: canonTrace, Flag: FlagLink, OnLink: true,
		Help:  "Mahimahi delivery trace file for the uplink (replaces up); none: no trace",
		apply: func(c *Condition, v map[string]string) error { c.Link.TraceUp = v["trace_up"]; return nil }},
	// per_shard_links is applied by BuildCondition (Link.Shared).
	{Name: "per_shard_links", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink, OnLink: true,
		Help: "give every server its own bottleneck instead of one shared link (the studies' access link)"},
	{Name: "iw", Transport: true, Kind: KindInt, Default: "0", Canon: intRange(0, 1000), Flag: FlagLink,
		Help:  "server TCP initial congestion window in segments (route initcwnd; 0 = kernel default, 10; stack 2012 sets 3 unless given)",
		apply: func(c *Condition, v map[string]string) error { c.TCP.IW = atoi(v["iw"]); return nil }},
	{Name: "initrwnd", Transport: true, Kind: KindInt, Default: "0", Canon: intRange(0, 65535), Flag: FlagLink,
		Help:  "initial receive window in segments (route initrwnd) on client and servers (0 = kernel default)",
		apply: func(c *Condition, v map[string]string) error { c.TCP.InitRwnd = atoi(v["initrwnd"]); return nil }},
	{Name: "cc", Transport: true, Kind: KindString, Default: "", Canon: oneOf("", "cubic", "reno", "bbr"), Flag: FlagLink,
		Help:  `server TCP congestion control: cubic, reno, bbr ("" = kernel default)`,
		apply: func(c *Condition, v map[string]string) error { c.TCP.CC = v["cc"]; return nil }},
	{Name: "slow_start_after_idle", Transport: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink,
		Help: "let idle connections restart from the initial window (net.ipv4.tcp_slow_start_after_idle in the client and server namespaces; on in 2012 kernels, so stack 2012 sets it)",
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.SlowStartAfterIdle = v["slow_start_after_idle"] == "true"
			return nil
		}},
	{Name: "pacing", Transport: true, Kind: KindString, Default: PacingOff, Canon: canonPacing, Flag: FlagLoad,
		Help: "servers' TCP pacing on every accepted connection (TCP protocols; HTTPS too): off (the kernel's: no fq qdisc here, so only bbr paces), " +
			"on (TCP's internal pacing at its own rate, SO_MAX_PACING_RATE set uncapped), link (capped at the downlink rate) or a rate cap such as 8mbit" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.Pacing != "" }),
		apply: func(c *Condition, v map[string]string) error {
			if c.TCP.Pacing = v["pacing"]; c.TCP.Pacing == PacingOff {
				c.TCP.Pacing = ""
			}
			return nil
		}},
	{Name: "adaptive_cc", Transport: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "servers choose each connection's congestion control from what it measures (TCP_INFO): it starts at cc and switches to bbr at a loss the RTT did not inflate before " +
			"(random loss, not a full queue), back once when bbr, past its start-up, loses over 5% and at twice the earlier rate with the RTT inflated (a shallow queue); needs bbr in the kernel" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.AdaptiveCC }),
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.AdaptiveCC = v["adaptive_cc"] == "true"
			return nil
		}},
	{Name: "adaptive_regrow", Transport: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "servers move a connection to bbr when, in congestion avoidance and with data to send (TCP_INFO: ssthresh set, the delivery rate not app-limited), " +
			"its RTT stays within an eighth of its minimum (or 5 ms) for two round trips: no queue builds behind a full window but its own burst, so the path has room that a window cut by an " +
			"earlier loss (or by another connection's overflow) would take seconds to regrow into; back once as adaptive_cc's; needs bbr in the kernel" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.AdaptiveRegrow }),
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.AdaptiveRegrow = v["adaptive_regrow"] == "true"
			return nil
		}},
	{Name: "adaptive_lowat", Transport: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "servers set each connection's TCP_NOTSENT_LOWAT to its measured delivery rate x minimum RTT (TCP_INFO; 16 KiB..4 MiB), so the socket holds about one round trip of unsent data and the SPDY scheduler picks the rest; not with notsent_lowat" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.AdaptiveLowat }),
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.AdaptiveLowat = v["adaptive_lowat"] == "true"
			return nil
		}},
	{Name: "adaptive_pacing", Transport: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "servers pace each connection from what it measures (TCP_INFO): in its initial slow start, once the RTT shows a queue (an eighth above its minimum), " +
			"its pacing rate is capped at its measured rate and, in up to three round trips the queue stays while it sends at the cap, brought down to 0.85 x its share; a round trip near the minimum RTT raises the cap by 15% (in slow start doubles it, up to twice the best rate); " +
			"a connection whose RTT never shows a queue in slow start is not paced; on a connection adaptive_cc or adaptive_regrow moved to bbr, bbr's start-up is capped at its best rate once a queue of 16 segments shows, until start-up ends; not with pacing" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.AdaptivePacing }),
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.AdaptivePacing = v["adaptive_pacing"] == "true"
			return nil
		}},
	{Name: "notsent_lowat", Transport: true, Kind: KindInt, Default: "0", Canon: intRange(0, MaxNotSentLowat), Flag: FlagLoad,
		Help:  "servers' TCP_NOTSENT_LOWAT in bytes on every accepted connection (TCP protocols), so the SPDY scheduler rather than the socket buffer picks the next frame (0 = kernel default)" + tcpScope.help(),
		Scope: tcpScope.when(func(c Condition) bool { return c.TCP.NotSentLowat != 0 }),
		apply: func(c *Condition, v map[string]string) error {
			c.TCP.NotSentLowat = atoi(v["notsent_lowat"])
			return nil
		}},
	{Name: "protocol", Setup: true, Kind: KindString, Required: true, Canon: canonProtocol,
		Help:  OneOf(ProtocolNames()),
		apply: func(c *Condition, v map[string]string) error { c.Proto = v["protocol"]; return nil }},
	{Name: "tls", Kind: KindString, Default: DefaultTLS, Canon: oneOf(TLSVersionNames()...), Flag: FlagLoad,
		Help:  "TLS version: " + OneOf(TLSVersionNames()) + " (1.2: full 2-RTT handshake, as in the 2012 studies; 1.0: what Chrome 16 spoke; 1.0 and 1.1 not for h2, h3 or Chromium)",
		apply: func(c *Condition, v map[string]string) error { c.TLS = v["tls"]; return nil }},
	{Name: "tls_resume", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "a host's later connections in a load resume its first handshake's session, as a browser's do (the load still starts with no ticket); Chrome 16 (NSS) resumed TLS 1.0 sessions, so stack 2012 sets it (Go resumes by ticket, not session ID: the same one round trip)",
		apply: func(c *Condition, v map[string]string) error { c.TLSResume = v["tls_resume"] == "true"; return nil }},
	{Name: "early_data", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "requests in TLS 1.3 early data (0-RTT) on resumed connections; needs tls 1.3, tls_resume (or view repeat) and a protocol that can send it: " + OneOf(EarlyDataProtocols()),
		apply: func(c *Condition, v map[string]string) error { c.EarlyData = v["early_data"] == "true"; return nil }},
	{Name: "view", Setup: true, Kind: KindString, Default: ViewFirst, Canon: oneOf(Views...), Flag: FlagLoad,
		Help:  "first: a cold load; repeat: a first view of the page (not measured) goes before it, and the measured load reuses its TLS session tickets (resumed handshakes; with early_data, h3's 0-RTT) on new connections with an empty cache",
		apply: func(c *Condition, v map[string]string) error { c.View = v["view"]; return nil }},
	// profile is a label: a study's profile factor names a file, which
	// study/studyfile reads and turns into its settings and this label.
	{Name: "profile", Setup: true, Kind: KindString, Default: "", Canon: canonProfileLabel,
		Help:  "a profile file (spdylab tune writes one): its settings apply to the conditions of the protocols it names; stored as NAME@HASH",
		apply: func(c *Condition, v map[string]string) error { c.Profile = v["profile"]; return nil }},
	{Name: "hosts", Kind: KindString, Default: HostsRecorded, Canon: oneOf(HostModes...), Flag: FlagLoad,
		Help:  HostsHelp,
		apply: func(c *Condition, v map[string]string) error { c.Hosts = v["hosts"]; return nil }},
	{Name: "first_party", Kind: KindString, Default: "", Canon: CanonDomainList, Flag: FlagLoad,
		Help:  FirstPartyHelp,
		apply: func(c *Condition, v map[string]string) error { c.FirstParty = v["first_party"]; return nil }},
	{Name: "deploy", Kind: KindString, Default: DeployAll, Canon: oneOf(Deployments...), Flag: FlagLoad,
		Help:  DeployHelp,
		apply: func(c *Condition, v map[string]string) error { c.Deploy = v["deploy"]; return nil }},
	{Name: "host_rtt", Kind: KindString, Default: HostRTTUniform, Canon: oneOf(HostRTTs...), Flag: FlagLoad,
		Help:  HostRTTHelp,
		apply: func(c *Condition, v map[string]string) error { c.HostRTT = v["host_rtt"]; return nil }},
	{Name: "max_streams", Kind: KindInt, Default: "0", Canon: intRange(0, 1<<20), Flag: FlagLoad,
		Help:  "SPDY/h2 server max concurrent streams (0 = 100)",
		apply: func(c *Condition, v map[string]string) error { c.MaxStreams = atoi(v["max_streams"]); return nil }},
	{Name: "initial_window", Kind: KindInt, Default: "0", Canon: intRange(0, 1<<31-1), Flag: FlagLoad,
		Help:  "SPDY/h2/h3 initial stream window in bytes (0 = the browser profile's: 64 KiB for chrome16, 6 MiB for chromium-modern)",
		apply: func(c *Condition, v map[string]string) error { c.InitialWindow = atoi(v["initial_window"]); return nil }},
	{Name: "push", Kind: KindString, Default: PushNone, Canon: oneOf(PushPolicies...), Flag: FlagLoad,
		Help:  "server push policy: " + OneOf(PushPolicies) + " (manifest: with each resource, everything below it on its host; preload: its Link rel=preload targets; deps: with a document, its direct children on its host that the client has not requested on that connection)",
		apply: func(c *Condition, v map[string]string) error { c.Push = v["push"]; return nil }},
	{Name: "frame_size", Kind: KindInt, Default: "0", Canon: canonZeroOr(MinFrameSize, MaxFrameSize), Flag: FlagLoad,
		Help:  fmt.Sprintf("the SPDY servers' largest DATA payload in bytes, the granularity at which the scheduler interleaves streams (0 = 16 KiB, else %d..%d)", MinFrameSize, MaxFrameSize) + frameSizeScope.help(),
		Scope: frameSizeScope.when(func(c Condition) bool { return c.FrameSize != 0 }),
		apply: func(c *Condition, v map[string]string) error { c.FrameSize = atoi(v["frame_size"]); return nil }},
	{Name: "frame_ramp", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "the SPDY servers start each stream's DATA with a frame that fits one TCP segment and double it up to frame_size, so a client parses a response's first bytes (a document's first references) before a whole 16 KiB frame has arrived" + frameSizeScope.help(),
		Scope: frameSizeScope.when(func(c Condition) bool { return c.FrameRamp }),
		apply: func(c *Condition, v map[string]string) error { c.FrameRamp = v["frame_ramp"] == "true"; return nil }},
	{Name: "session_window", Kind: KindInt, Default: "0", Canon: canonZeroOr(MinSessionWindow, MaxSessionWindow), Flag: FlagLoad,
		Help: "session receive window in bytes that the loader announces (WINDOW_UPDATE on stream 0 at session start) and the servers use: SPDY/3.1's session window, h2's connection window (" +
			"0 = the defaults: the loader's profile window, at least 10 MiB; the servers' 64 KiB for SPDY/3.1, Go's 1 MiB for h2; else 65536 and up)" + sessionWindowScope.help(),
		Scope: sessionWindowScope.when(func(c Condition) bool { return c.SessionWindow != 0 }),
		apply: func(c *Condition, v map[string]string) error { c.SessionWindow = atoi(v["session_window"]); return nil }},
	{Name: "adaptive_window", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "the loader's SPDY/3.1 sessions move their session receive window with the path: it grows with what arrives while the session's own PING round trips show no queue " +
			"(or the delivery rate still rises), and falls to the best delivery rate times the base round trip plus a quarter once two in a row show one; session_window (or the profile's) is its top" + adaptiveWindowScope.help(),
		Scope: adaptiveWindowScope.when(func(c Condition) bool { return c.AdaptiveWindow }),
		apply: func(c *Condition, v map[string]string) error {
			c.AdaptiveWindow = v["adaptive_window"] == "true"
			return nil
		}},
	{Name: "hints", Kind: KindString, Default: HintsNone, Canon: oneOf(HintPolicies...), Flag: FlagLoad,
		Help:  "SPDY server hints: none, or deps (a document's response lists its direct children on its host in X-Associated-Content); " + HintsNote + hintsScope.help(),
		Scope: hintsScope.when(func(c Condition) bool { return c.Hints != "" }),
		apply: func(c *Condition, v map[string]string) error {
			if c.Hints = v["hints"]; c.Hints == HintsNone {
				c.Hints = ""
			}
			return nil
		}},
	{Name: "priority", Kind: KindString, Default: PriorityChrome, Canon: oneOf(PriorityPolicies...), Flag: FlagLoad,
		Help:  "the loader's request priorities: chrome (by resource type), none (all the same) or depth (by depth in the page tree, the root highest); SPDY, h2 and h3 carry them, HTTPS queues by them",
		apply: func(c *Condition, v map[string]string) error { c.Priority = v["priority"]; return nil }},
	{Name: "scheduler", Kind: KindString, Default: SchedulerPriority, Canon: oneOf(Schedulers...), Flag: FlagLoad,
		Help:  "the SPDY server's DATA order: priority (strict), roundrobin (turns, priority ignored), fifo (open order, each stream to its end) or priority-fifo (strict priority, open order within a priority)" + schedulerScope.help(),
		Scope: schedulerScope.when(func(c Condition) bool { return c.Scheduler != "" }),
		apply: func(c *Condition, v map[string]string) error { c.Scheduler = v["scheduler"]; return nil }},
	{Name: "sessions", Kind: KindInt, Default: "1", Canon: intRange(1, MaxSessions), Flag: FlagLoad,
		Help:  SessionsHelp + sessionsScope.help(),
		Scope: sessionsScope.when(func(c Condition) bool { return c.Sessions > 1 }),
		apply: func(c *Condition, v map[string]string) error { c.Sessions = atoi(v["sessions"]); return nil }},
	{Name: "session_policy", Kind: KindString, Default: SessionRoundRobin, Canon: oneOf(SessionPolicies...), Flag: FlagLoad,
		Help:  SessionPolicyHelp + sessionsScope.help(),
		Scope: sessionsScope.when(func(c Condition) bool { return c.SessionPolicy != "" }),
		apply: func(c *Condition, v map[string]string) error { c.SessionPolicy = v["session_policy"]; return nil }},
	{Name: "dns", Setup: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLink,
		Help:  "run a DNS server across the link, so lookups cost real round trips (false: names resolve locally)",
		apply: func(c *Condition, v map[string]string) error { c.DNS = v["dns"] == "true"; return nil }},
	{Name: "client", Setup: true, Kind: KindString, Default: ClientLoader, Canon: oneOf(ClientNames()...), Flag: FlagLoad,
		Help:  "who loads the page: " + OneOf(ClientNames()),
		apply: func(c *Condition, v map[string]string) error { c.Client = v["client"]; return nil }},
	{Name: "main_thread_trace", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "client chromium: trace the renderer's main thread during the load, so that the critical path counts script, parse and layout time in its gaps as compute (each load takes longer in wall time, not in PLT)",
		apply: func(c *Condition, v map[string]string) error {
			c.MainThreadTrace = v["main_thread_trace"] == "true"
			return nil
		}},
	{Name: "speed_index", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "client chromium: record screencast frames during the load and store its Speed Index beside FCP and LCP (each load takes longer in wall time, not in PLT)",
		apply: func(c *Condition, v map[string]string) error {
			c.SpeedIndex = v["speed_index"] == "true"
			return nil
		}},
	{Name: "browser_profile", Setup: true, Kind: KindString, Default: ProfileChrome16, Canon: oneOf(BrowserProfiles...), Flag: FlagLoad,
		Help:  "the browser the loader models: " + OneOf(BrowserProfiles),
		apply: func(c *Condition, v map[string]string) error { c.BrowserProfile = v["browser_profile"]; return nil }},
	{Name: "renderer_costs", Setup: true, Kind: KindString, Default: RendererFromProfile, Canon: CanonRendererCosts, Flag: FlagLoad,
		Help:  "the loader's renderer costs, COMMIT/DISPATCH (e.g. \"35ms/2ms\"; \"0s/0s\" = none), or " + RendererFromProfile + " (the browser profile's); the fidelity report measures Chromium's on the machine that ran it",
		apply: func(c *Condition, v map[string]string) error { c.RendererCosts = v["renderer_costs"]; return nil }},
	// no_link is applied by BuildCondition (the OnLink fields are skipped).
	{Name: "no_link", Setup: true, Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
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
	// The stacks of 2012 (stack.go): the shorthand and the pieces it sets
	// that no earlier field owns.
	{Name: "stack", Kind: KindString, Default: StackModern, Canon: oneOf(Stacks...), Flag: FlagLoad,
		Help: "modern, or 2012: a shorthand that sets every piece of a 2012 stack the condition does not set itself " +
			"(tcp_recovery 2012, slow_start_after_idle true, iw 3, nagle true, tls 1.0, tls_kx rsa, tls_resume true, browser_profile chrome16; " +
			"TLS pieces not for h2/h3 or plaintext, loader pieces not for a real browser); false_start stays false (the lab cannot model it). " +
			"The stored condition holds the pieces expanded",
		apply: func(c *Condition, v map[string]string) error { c.Stack = v["stack"]; return nil }},
	{Name: "tcp_recovery", Kind: KindString, Default: RecoveryModern, Canon: oneOf(Recoveries...), Flag: FlagLink,
		Help: "TCP loss recovery in the client and server namespaces: modern (this kernel's) or 2012 (Linux 3.2-3.5: " +
			"no tail-loss probe, tcp_early_retrans 0; no RACK, tcp_recovery 0 where this kernel honours it; no SACK compression, tcp_comp_sack_nr 0). " +
			"PRR has no sysctl and stays on (Linux 3.2 had it too)",
		apply: func(c *Condition, v map[string]string) error { c.TCP.Recovery = v["tcp_recovery"]; return nil }},
	{Name: "nagle", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help: "servers write with Nagle's algorithm on (no TCP_NODELAY on accepted connections), as study 1's node.js 0.6-0.8 node-spdy did " +
			"(node sockets start with Nagle on); Apache 2.2 (study 2's mod_spdy) sets TCP_NODELAY: false. TCP protocols only",
		apply: func(c *Condition, v map[string]string) error { c.Nagle = v["nagle"] == "true"; return nil }},
	{Name: "tls_kx", Kind: KindString, Default: KxECDHE, Canon: oneOf(KeyExchanges...), Flag: FlagLoad,
		Help: "TLS key exchange of loader and servers: ecdhe (Go's default suites, ECDSA certificates) or rsa " +
			"(TLS_RSA_WITH_AES_128_CBC_SHA with RSA-2048 certificates, as most 2012 servers; tls 1.0-1.2, not for h2/h3 or Chromium)",
		apply: func(c *Condition, v map[string]string) error { c.TLSKx = v["tls_kx"]; return nil }},
	{Name: "false_start", Kind: KindBool, Default: "false", Canon: canonBool, Flag: FlagLoad,
		Help:  "TLS False Start (Chrome 16 had it): true is refused, " + FalseStartRefusal,
		apply: func(c *Condition, v map[string]string) error { c.FalseStart = v["false_start"] == "true"; return nil }},
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
