// Package probe holds the plain data that flows between spdylab's stages:
// the configuration of one page-load condition and the measured result of
// one page load. The study runner builds Conditions, the testbed and loader
// turn them into Results, and the store and report only ever read Results.
//
// The package has no dependencies on the rest of spdylab so that every stage
// can import it without cycles. Fields may be added; existing fields keep
// their names and JSON tags because stored results are decoded with them.
package probe

import (
	"fmt"
	"time"
)

// Protocol names (Condition.Proto). The list with their facts is
// Protocols in conditions.go. "https" is HTTP/1.1 over TLS with
// the browser's six persistent connections per host.
const (
	ProtoHTTPS  = "https"
	ProtoSPDY31 = "spdy/3.1"
	ProtoSPDY3  = "spdy/3"
	ProtoSPDY2  = "spdy/2" // SPDY draft 2: what Chrome 16 and the CableLabs study spoke
	ProtoH2     = "h2"
	ProtoH3     = "h3" // HTTP/3 over QUIC (UDP), always TLS 1.3
	// ProtoSPDY31SCTP is SPDY/3.1 over SCTP (user-space SCTP over UDP), one
	// association per host, plaintext as in the 2011 Delaware study.
	ProtoSPDY31SCTP = "spdy/3.1+sctp"
)

// Link describes the emulated bottleneck. Zero rate means unlimited; zero
// RTT means no added delay.
type Link struct {
	DownBps    int64         `json:"down_bps"` // server -> client rate, bit/s
	UpBps      int64         `json:"up_bps"`   // client -> server rate, bit/s
	RTT        time.Duration `json:"rtt_ns"`   // split evenly unless DelayDown/DelayUp set (OneWay)
	DelayDown  time.Duration `json:"delay_down_ns,omitempty"`
	DelayUp    time.Duration `json:"delay_up_ns,omitempty"`
	LossDown   float64       `json:"loss_down"`             // probability 0..1
	LossUp     float64       `json:"loss_up"`               // probability 0..1
	QueuePkts  int           `json:"queue_pkts,omitempty"`  // droptail limit in packets (0 with QueueBytes 0 = unlimited)
	QueueBytes int           `json:"queue_bytes,omitempty"` // droptail limit in bytes
	TraceDown  string        `json:"trace_down,omitempty"`  // Mahimahi delivery trace replacing DownBps
	TraceUp    string        `json:"trace_up,omitempty"`
	Shared     bool          `json:"shared"` // one bottleneck for all shards (the studies' setup)
	Seed       int64         `json:"seed"`   // loss RNG seed; 0 = the run's seed
	// QueueDown and QueueUp are a direction's droptail limit where it
	// differs from QueuePkts/QueueBytes (zero = the same; Queues).
	QueueDown Queue `json:"queue_down,omitzero"`
	QueueUp   Queue `json:"queue_up,omitzero"`
	// GEDown and GEUp replace LossDown/LossUp with Gilbert-Elliott bursty
	// loss in that direction (zero = Bernoulli loss).
	GEDown GilbertElliott `json:"ge_down,omitzero"`
	GEUp   GilbertElliott `json:"ge_up,omitzero"`
}

// Queues are the droptail limits of each direction.
func (l Link) Queues() (down, up Queue) {
	down, up = Queue{Pkts: l.QueuePkts, Bytes: l.QueueBytes}, Queue{Pkts: l.QueuePkts, Bytes: l.QueueBytes}
	if !l.QueueDown.Unlimited() {
		down = l.QueueDown
	}
	if !l.QueueUp.Unlimited() {
		up = l.QueueUp
	}
	return down, up
}

// Queue is a droptail limit in packets or bytes; zero is unlimited.
type Queue struct {
	Pkts  int `json:"pkts,omitempty"`
	Bytes int `json:"bytes,omitempty"`
}

// Unlimited tells whether q has no limit.
func (q Queue) Unlimited() bool { return q.Pkts == 0 && q.Bytes == 0 }

// String spells q as a study file and the flags do ("50pkt", "64000b",
// "unlimited").
func (q Queue) String() string {
	switch {
	case q.Pkts > 0 && q.Bytes > 0:
		return fmt.Sprintf("%dpkt+%db", q.Pkts, q.Bytes)
	case q.Pkts > 0:
		return fmt.Sprintf("%dpkt", q.Pkts)
	case q.Bytes > 0:
		return fmt.Sprintf("%db", q.Bytes)
	}
	return "unlimited"
}

// TCP are the per-server TCP knobs.
type TCP struct {
	IW                 int    `json:"iw,omitempty"`       // initcwnd in segments; 0 = kernel default
	InitRwnd           int    `json:"initrwnd,omitempty"` // 0 = kernel default
	CC                 string `json:"cc,omitempty"`       // cubic, reno, bbr; "" = kernel default
	SlowStartAfterIdle bool   `json:"slow_start_after_idle"`
	// Pacing is the servers' TCP pacing: "" (off: the kernel's behaviour),
	// PacingOn, PacingLink or a rate ("8mbit"); serverknobs.go.
	Pacing string `json:"pacing,omitempty"`
	// NotSentLowat is the servers' TCP_NOTSENT_LOWAT in bytes; 0 = kernel.
	NotSentLowat int `json:"notsent_lowat,omitempty"`
	// Recovery is the loss recovery of the client's and servers' TCP
	// ("" = the kernel's; "2012": no tail-loss probe, no RACK; stack.go).
	Recovery string `json:"recovery,omitempty"`
	// AdaptiveCC and AdaptiveLowat are the servers' per-connection
	// adaptive mechanisms (adapt.go): congestion control switched from
	// what each connection measures, TCP_NOTSENT_LOWAT from its delivery
	// rate and minimum RTT.
	AdaptiveCC    bool `json:"adaptive_cc,omitempty"`
	AdaptiveLowat bool `json:"adaptive_lowat,omitempty"`
	// AdaptivePacing: the servers cap each connection's pacing rate at
	// its measured share while its RTT shows a queue (server/adapt_pace.go).
	AdaptivePacing bool `json:"adaptive_pacing,omitempty"`
	// AdaptiveRegrow: the servers move a connection to bbr when its RTT
	// stays near its minimum for two round trips while it sends a full
	// window in congestion avoidance: the path has room a window cut by an
	// earlier loss does not use (server/adapt.go).
	AdaptiveRegrow bool `json:"adaptive_regrow,omitempty"`
}

// Condition is everything that determines one page load, apart from the
// random seed of the run.
type Condition struct {
	Page          string        `json:"page"`                     // generator name (pageA, twitter, ...) or a manifest path
	Shards        int           `json:"shards"`                   // servers the page is spread over (1..MaxShards; 0 = the page's default)
	ShardMode     string        `json:"shard_mode,omitempty"`     // "equal" (default) or "roundrobin"
	Proto         string        `json:"proto"`                    // one of the Proto* constants
	TLS           string        `json:"tls"`                      // "1.2" (full 2-RTT handshake, as in 2012), "1.3", "1.0"/"1.1" (2012 browsers) or "none"
	MaxStreams    int           `json:"max_streams,omitempty"`    // SPDY/h2 server max concurrent streams; 0 = default (100)
	InitialWindow int           `json:"initial_window,omitempty"` // SPDY/h2/h3 initial stream window; 0 = the browser profile's (64 KiB for chrome16)
	Push          string        `json:"push,omitempty"`           // "", "none", "manifest", "preload"
	DNS           bool          `json:"dns"`                      // resolve host names over the link
	Link          Link          `json:"link"`
	TCP           TCP           `json:"tcp"`
	NoLink        bool          `json:"no_link,omitempty"` // loopback, no emulated link
	Timeout       time.Duration `json:"timeout_ns,omitempty"`
	SCTP          SCTP          `json:"sctp,omitzero"` // knobs of spdy/3.1+sctp (sctp.go)
	// Client loads the page: "" is the loader (ClientLoader), "chromium"
	// real headless Chromium. The default is stored empty so conditions
	// hashed before the field existed keep their identity.
	Client string `json:"client,omitempty"`
	// MainThreadTrace traces Chromium's renderer main thread during the
	// load (Result.MainThread), the critical path's compute evidence for
	// client chromium. Off by default: the trace costs wall time per load.
	MainThreadTrace bool `json:"main_thread_trace,omitempty"`
	// SpeedIndex records a Chromium load's screencast frames and stores
	// its Speed Index (Result.Paint); off by default, as frames cost each
	// load wall time (BENCHMARKS.md).
	SpeedIndex bool `json:"speed_index,omitempty"`
	// BrowserProfile is the browser the loader models ("" = chrome16,
	// the seed studies' browser). Real Chromium is its own profile.
	BrowserProfile string `json:"browser_profile,omitempty"`
	// RendererCosts overrides the profile's renderer costs ("" = the
	// profile's; clients.go).
	RendererCosts string `json:"renderer_costs,omitempty"`
	// TLSResume lets a host's later connections in a load resume the
	// session of its first (as a browser does); EarlyData sends their
	// requests in 0-RTT (h3 and TLS 1.3 only). policies.go has the rules.
	TLSResume bool `json:"tls_resume,omitempty"`
	EarlyData bool `json:"early_data,omitempty"`
	// Priority is the loader's priority policy ("" = chrome) and Scheduler
	// the SPDY server's DATA order ("" = priority); policies.go.
	Priority  string `json:"priority,omitempty"`
	Scheduler string `json:"scheduler,omitempty"`
	// Sessions is the loader's SPDY/h2 sessions per host (0 = 1) and
	// SessionPolicy how requests are spread over them ("" = roundrobin);
	// sessions.go.
	Sessions      int    `json:"sessions,omitempty"`
	SessionPolicy string `json:"session_policy,omitempty"`
	// View is "" (first: a cold load) or "repeat": the load comes after a
	// first view of the page and reuses its TLS sessions (view.go).
	View string `json:"view,omitempty"`
	// The servers' write and flow-control knobs (serverknobs.go), stored
	// empty at their defaults: FrameSize is the SPDY servers' DATA payload
	// (0 = the library's 16 KiB), FrameRamp starts each stream's DATA at one
	// segment and doubles it up to FrameSize, SessionWindow the session
	// receive window
	// both ends announce (spdy/3.1, h2; 0 = each end's default) and Hints
	// the SPDY server hints ("" = none).
	FrameSize     int    `json:"frame_size,omitempty"`
	FrameRamp     bool   `json:"frame_ramp,omitempty"`
	SessionWindow int    `json:"session_window,omitempty"`
	Hints         string `json:"hints,omitempty"`
	// AdaptiveWindow: the loader's SPDY/3.1 sessions move their session
	// receive window with what their own PINGs show of the path's queue
	// (spdy.Config.AdaptiveSessionWindow; SessionWindow, or the profile's,
	// is its top). A client-side mechanism: the servers are as they are.
	AdaptiveWindow bool `json:"adaptive_window,omitempty"`
	// Profile names the profile whose settings this condition holds,
	// "NAME@HASH" (HASH: the profile file's content hash), for provenance
	// and the report's labels; the settings themselves are in the fields
	// above, so the condition's hash is the load's identity ("" = none).
	Profile string `json:"profile,omitempty"`
	// Stack is the shorthand the condition was built with ("" = modern,
	// "2012"); the pieces it set are stored in their own fields (TCP,
	// Nagle, TLS, TLSKx, TLSResume, BrowserProfile; stack.go).
	Stack string `json:"stack,omitempty"`
	// Nagle leaves Nagle's algorithm on in the servers (no TCP_NODELAY on
	// accepted connections), as node.js servers of 2012 had it.
	Nagle bool `json:"nagle,omitempty"`
	// TLSKx is the TLS key exchange ("" = ecdhe, "rsa"); FalseStart is
	// refused (the loader cannot false-start; stack.go says why).
	TLSKx      string `json:"tls_kx,omitempty"`
	FalseStart bool   `json:"false_start,omitempty"`
	// Hosts is how the page's hosts are copied ("" = recorded, "one",
	// "first-party"), FirstParty the user's first-party domains ("" = the
	// document's registrable domain) and Deploy which hosts speak the
	// protocol under test ("" = all, "first-party"); hosts.go.
	Hosts      string `json:"hosts,omitempty"`
	FirstParty string `json:"first_party,omitempty"`
	Deploy     string `json:"deploy,omitempty"`
	// HostRTT is "" (uniform: every host at the link's rtt) or "recorded":
	// each host of a recording at the round trip its recorded connect
	// time implies (hosts.go).
	HostRTT string `json:"host_rtt,omitempty"`
	// Compute, Deps and Until are the page methodology (method.go):
	// recorded delays kept ("") dropped ("none") or scaled ("x0.5"); the
	// recorded dependencies ("") or none ("flat"); a recording up to its
	// onload ("onload") or all of it ("all"; "" for a generated page, and
	// in conditions stored before the field, when all was the only rule).
	Compute string `json:"compute,omitempty"`
	Deps    string `json:"deps,omitempty"`
	Until   string `json:"until,omitempty"`
	// Redirects: a recording's http->https upgrades and repeated requests
	// replayed ("replay") or left out ("drop"); stored like Until ("" for a
	// generated page, and for a recording stored before the field: drop).
	Redirects string `json:"redirects,omitempty"`
}

// Phases is a HAR-style timing breakdown in milliseconds. -1 means "does not
// apply" as in HAR 1.2.
type Phases struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	SSL     float64 `json:"ssl"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// TCPInfo is what the kernel reported for one connection at the end of a
// load (the client's) or when the server last looked (ServerTCP).
type TCPInfo struct {
	ConnID int    `json:"conn_id"`
	Host   string `json:"host"` // the server's host name
	// Local and Peer are the connection's own and far end's address:port
	// (client side: Local is the client's port, which the server's record
	// of the same connection has as Peer). They match the two sides'
	// records of one connection, so loss recovery can be charged to the
	// connection that carried a resource. Empty in loads stored before.
	Local        string  `json:"local,omitempty"`
	Peer         string  `json:"peer,omitempty"`
	Retransmits  uint32  `json:"retransmits"` // total retransmitted segments
	SegsOut      uint32  `json:"segs_out"`
	SegsIn       uint32  `json:"segs_in"`
	SndCwnd      uint32  `json:"snd_cwnd"`               // segments
	SndSsthresh  uint32  `json:"snd_ssthresh,omitempty"` // segments; 0 = never set (no loss seen)
	RTTms        float64 `json:"rtt_ms"`                 // smoothed RTT
	RTTVarms     float64 `json:"rttvar_ms"`
	BytesAcked   uint64  `json:"bytes_acked"`
	BytesRecv    uint64  `json:"bytes_received"`
	BytesSent    uint64  `json:"bytes_sent,omitempty"`    // payload, retransmissions included
	BytesRetrans uint64  `json:"bytes_retrans,omitempty"` // payload retransmitted
	// RTOs and RTOTimems: retransmission timeouts and the time spent
	// recovering from them (Linux 6.7+; 0 before, and in older loads).
	RTOs         uint32 `json:"rtos,omitempty"`
	RTOTimems    uint32 `json:"rto_time_ms,omitempty"`
	CongestionCC string `json:"cc,omitempty"`
	// PacingCap is the socket's SO_MAX_PACING_RATE and PacingRate TCP's
	// pacing rate then, in bytes/s; both 0 when no cap is set (the pacing
	// knob off), so unpaced connections store nothing new.
	PacingCap  uint64 `json:"pacing_cap,omitempty"`
	PacingRate uint64 `json:"pacing_rate,omitempty"`
	// AdaptCC and AdaptLowat are what a server's adaptive mechanisms did
	// on this connection (adapt.go: AdaptCC* outcomes; the last
	// TCP_NOTSENT_LOWAT set in bytes), empty when they were off.
	AdaptCC    string `json:"adapt_cc,omitempty"`
	AdaptLowat int    `json:"adapt_lowat,omitempty"`
	// AdaptPaceLowest is the lowest pacing cap adaptive pacing set, in
	// bytes/s; 0 when it set none (the RTT never showed a queue).
	AdaptPaceLowest uint64 `json:"adapt_pace_lowest,omitempty"`
}

// TCPSum adds up the counters of a set of connections.
type TCPSum struct {
	Conns        int    `json:"conns"`
	Retransmits  uint64 `json:"retransmits"`
	SegsOut      uint64 `json:"segs_out"`
	SegsIn       uint64 `json:"segs_in"`
	BytesSent    uint64 `json:"bytes_sent"`
	BytesRetrans uint64 `json:"bytes_retrans"`
	BytesAcked   uint64 `json:"bytes_acked"`
	BytesRecv    uint64 `json:"bytes_received"`
	RTOs         uint64 `json:"rtos,omitempty"`
	RTOTimems    uint64 `json:"rto_time_ms,omitempty"`
}

// SumTCP adds up the counters of conns (the client's Result.TCP or the
// servers' ServerTCP.Conns).
func SumTCP(conns []TCPInfo) TCPSum {
	s := TCPSum{Conns: len(conns)}
	for _, c := range conns {
		s.Retransmits += uint64(c.Retransmits)
		s.SegsOut += uint64(c.SegsOut)
		s.SegsIn += uint64(c.SegsIn)
		s.BytesSent += c.BytesSent
		s.BytesRetrans += c.BytesRetrans
		s.BytesAcked += c.BytesAcked
		s.BytesRecv += c.BytesRecv
		s.RTOs += uint64(c.RTOs)
		s.RTOTimems += uint64(c.RTOTimems)
	}
	return s
}

// ServerTCP is the servers' side of a load's TCP connections: the sender
// of most bytes, so its retransmissions are the loss recovery of the
// downloads, which the client's TCP_INFO does not show. Each connection's
// entry is its TCP_INFO read last: at the end of its last response, when
// it closed, or when the load ended, whichever came last.
type ServerTCP struct {
	Conns []TCPInfo `json:"conns"`
	Sum   TCPSum    `json:"sum"`
}

// NewServerTCP wraps the servers' connection records; nil when there are
// none (loads over QUIC or SCTP, loopback servers that record nothing).
func NewServerTCP(conns []TCPInfo) *ServerTCP {
	if len(conns) == 0 {
		return nil
	}
	return &ServerTCP{Conns: conns, Sum: SumTCP(conns)}
}

// Retransmits is the servers' retransmitted segments (0 for nil).
func (s *ServerTCP) Retransmits() uint64 {
	if s == nil {
		return 0
	}
	return s.Sum.Retransmits
}

// LinkDir are the emulator's counters for one direction of the bottleneck
// during one load (or one check).
type LinkDir struct {
	PktsOffered    uint64  `json:"pkts_offered"`
	BytesOffered   uint64  `json:"bytes_offered"`
	PktsDelivered  uint64  `json:"pkts_delivered"`
	BytesDelivered uint64  `json:"bytes_delivered"`
	PktsQueueDrop  uint64  `json:"pkts_queue_drop"`
	PktsLost       uint64  `json:"pkts_lost"` // random (Bernoulli or Gilbert-Elliott) loss
	QDelayP50ms    float64 `json:"qdelay_p50_ms"`
	QDelayP95ms    float64 `json:"qdelay_p95_ms"`
	QDelayP99ms    float64 `json:"qdelay_p99_ms"`
	QDelayMaxms    float64 `json:"qdelay_max_ms"`
	// How late the emulator released packets against their exact
	// schedule. Milliseconds here mean the emulator itself was starved of
	// CPU and the link was not the one configured.
	LateP99ms float64 `json:"late_p99_ms"`
	LateMaxms float64 `json:"late_max_ms"`
}

// EndpointWait is the quantiles of the time a load's endpoint goroutines
// (loader and servers) spent runnable before they ran, from the Go
// runtime's sampled histogram, in milliseconds.
type EndpointWait struct {
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	Samples uint64  `json:"samples"`
}

// LinkLateP99ms is the emulator's release lateness over the load, the
// worse direction.
func (r *Result) LinkLateP99ms() float64 { return max(r.Link.Down.LateP99ms, r.Link.Up.LateP99ms) }

// EndpointWaitP99ms is the endpoints' CPU wait over the load (0 when not
// measured).
func (r *Result) EndpointWaitP99ms() float64 {
	if r.EndpointWait == nil {
		return 0
	}
	return r.EndpointWait.P99ms
}

// LinkCounters are both directions.
type LinkCounters struct {
	Down LinkDir `json:"down"`
	Up   LinkDir `json:"up"`
}

// LinkCheck is the short self-check of a testbed's link stored with each
// probe: measured values beside configured ones.
type LinkCheck struct {
	RTTms           float64 `json:"rtt_ms"`
	RTTConfiguredms float64 `json:"rtt_configured_ms"`
	// DownMbps and UpMbps are the link rate each way, from the dispersion
	// of a UDP burst (IP bytes; comparable with the configured rate), or
	// TCP goodput where no burst measured it; 0 = not measured (unlimited).
	DownMbps float64 `json:"down_mbps,omitempty"`
	UpMbps   float64 `json:"up_mbps,omitempty"`
	// QueueDownPkts and QueueUpPkts are the droptail queue each way as a
	// burst that overfilled it found it, in probe packets; 0 = not measured
	// (unlimited queue, or too deep to fill cheaply).
	QueueDownPkts int `json:"queue_down_pkts,omitempty"`
	QueueUpPkts   int `json:"queue_up_pkts,omitempty"`
	// Note says what the bursts found each way, configured values beside
	// ("down 9.98 Mbit/s (configured 10), queue 30 pkts (configured 30):
	// 31 of 47 delivered, 16 dropped at the queue; up ...").
	Note    string `json:"note,omitempty"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// TLSHandshakes counts a load's handshakes. RoundTrips adds up the round
// trips each handshake cost before its connection could carry a request:
// TLS 1.2 full 2, resumed 1; TLS 1.3 full or resumed 1; QUIC 1 (its
// transport and TLS handshakes are one), 0 with accepted 0-RTT; plus one for
// a HelloRetryRequest. TCP's own SYN round trip is not included.
type TLSHandshakes struct {
	Full          int `json:"full"`
	Resumed       int `json:"resumed"`        // abbreviated with a session ticket
	EarlyData     int `json:"early_data"`     // 0-RTT attempted (h3 only)
	EarlyRejected int `json:"early_rejected"` // of which the server refused the early data
	RoundTrips    int `json:"round_trips"`
	// Version and CipherSuite are what the load's TLS-over-TCP handshakes
	// negotiated ("1.0".."1.3"; crypto/tls's suite name), "" without one.
	Version     string `json:"version,omitempty"`
	CipherSuite string `json:"cipher_suite,omitempty"`
}

// Result is one page load.
type Result struct {
	Condition Condition `json:"condition"`
	Run       int       `json:"run"` // 0-based index within the condition
	Started   time.Time `json:"started"`

	Failed bool   `json:"failed"`
	Error  string `json:"error,omitempty"` // names the resource when one is at fault

	PLTms float64 `json:"plt_ms"` // navigation start -> last byte of last resource
	ToWms float64 `json:"tow_ms"` // first request byte sent -> last response byte received

	Resources             int   `json:"resources"`     // fetched (or pushed and used)
	Pushed                int   `json:"pushed"`        // of which arrived by server push
	Connections           int   `json:"connections"`   // TCP connections opened
	BytesWireIn           int64 `json:"bytes_wire_in"` // TCP payload bytes received (TLS records included)
	BytesWireOut          int64 `json:"bytes_wire_out"`
	HeaderBytesRaw        int64 `json:"header_bytes_raw"`        // uncompressed request+response header bytes
	HeaderBytesCompressed int64 `json:"header_bytes_compressed"` // as sent on the wire (== raw for HTTP/1.1)

	// Retries counts requests sent again because the server did not
	// process them (REFUSED_STREAM, or above a GOAWAY's last stream).
	Retries int `json:"retries,omitempty"`
	// VariantHosts counts the hosts whose responses came over the protocol
	// under test, and HTTPSHosts those that came over HTTPS instead
	// (deploy first-party's third parties); both 0 under deploy all.
	VariantHosts int `json:"variant_hosts,omitempty"`
	HTTPSHosts   int `json:"https_hosts,omitempty"`

	// TLS counts the load's handshakes by kind and their round trips.
	TLS TLSHandshakes `json:"tls_handshakes"`

	// Phases sums each HAR phase over all entries (ms); handy for breakdown bars.
	Phases Phases `json:"phases"`

	TCP  []TCPInfo    `json:"tcp,omitempty"` // the client's connections
	Link LinkCounters `json:"link"`
	// LinkSeed seeds the emulator's loss draws in this load's testbed: the
	// condition's Link.Seed, or the run's seed when that is 0 (so a stored
	// load can be re-run with the same losses). 0 for loopback loads.
	LinkSeed int64 `json:"link_seed,omitempty"`

	// EndpointWait is how long the loader's and servers' goroutines
	// waited for a CPU during the load (nil for older loads and where the
	// runtime sampled none). The emulator's LateP99ms cannot show this:
	// it runs in a process of its own and keeps its time while the
	// endpoints queue for the cores.
	EndpointWait *EndpointWait `json:"endpoint_wait,omitempty"`

	// ServerTCP is TCP_INFO of the servers' side of the load's TCP
	// connections (nil when none were recorded).
	ServerTCP *ServerTCP `json:"server_tcp,omitempty"`
	// Adaptive says what the servers' adaptive mechanisms did over the
	// load's connections, or that they found no signal and the static
	// setting held (AdaptiveNote); empty when none was on.
	Adaptive string `json:"adaptive,omitempty"`
	// RecvWindow sums up what the loader's adaptive session windows did
	// (nil when adaptive_window was off or the protocol ignored it).
	RecvWindow *RecvWindowSum `json:"recv_window,omitempty"`
	// SessionDemand sums up what the loader's demand policy did (nil when
	// session_policy was not demand).
	SessionDemand *DemandSum `json:"session_demand,omitempty"`

	// SCTP holds the transport counters of spdy/3.1+sctp loads (nil for
	// TCP and QUIC, whose counters are in TCP and the HAR).
	SCTP *SCTPCounters `json:"sctp,omitempty"`

	// MainThread is when Chromium's renderer main thread was busy during
	// the load (mainthread.go), reduced from a DevTools trace; nil for the
	// loader, whose renderer costs are modelled, and for older loads.
	MainThread []BusyInterval `json:"main_thread,omitempty"`

	// Paint holds a real browser's paint metrics (paint.go); nil for
	// loads that measured none (the loader, older loads).
	Paint *Paint `json:"paint,omitempty"`

	// Breakdown is the load's critical path and its PLT by category
	// (breakdown.go; the critpath package computes it).
	Breakdown *Breakdown `json:"breakdown,omitempty"`

	// HAR is the HAR 1.2 document of this load, JSON encoded.
	HAR []byte `json:"-"`
}
