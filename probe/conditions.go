package probe

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file is the one owner of what a Condition's fields may hold: the
// protocols, TLS versions, shard modes, push policies and the shard limit.
// Study files, `spdylab load`, the harness and the loader all validate with
// Normalize or the lookups below, and every "want ..." in an error message
// is generated from these lists.

// Protocol describes one protocol the lab compares.
type Protocol struct {
	Name string // token in study files, flags and stored results (Condition.Proto)
	ALPN string // what the client offers by ALPN
	// SPDYVersion is the SPDY draft ("3.1", "3", "2"); "" for a non-SPDY protocol.
	SPDYVersion string
	// Plaintext protocols always run without TLS (Condition.TLS "none").
	Plaintext bool
	// PlainTCPOption protocols may also run without TLS over plain TCP
	// (http:// URLs; without ALPN a plaintext server gives SPDY a port per
	// version, and h2 is h2c with prior knowledge).
	PlainTCPOption bool
	// Transport carries the protocol: TransportTCP (""), TransportQUIC or
	// TransportSCTP.
	Transport string
	// EarlyData protocols can send requests in TLS 1.3 early data (0-RTT)
	// (Go's crypto/tls has no client 0-RTT over TCP; quic-go has it).
	EarlyData bool
	// Multiplexed protocols use one connection per host; the others the
	// browser's pool of persistent connections.
	Multiplexed bool
	// SessionWindow protocols have a connection-level receive window a
	// receiver can announce (SPDY/3.1's stream 0, h2's connection window),
	// which Condition.SessionWindow sets.
	SessionWindow bool
	// ModernTLS protocols need TLS 1.2 or later with an ECDHE AEAD suite
	// (h2: RFC 7540 9.2; h3: QUIC's TLS 1.3), so 2012's TLS (stack.go)
	// cannot apply to them.
	ModernTLS bool
	// Aliases are other spellings users type for the protocol (the ALPN
	// token where it differs from Name: `get` and servers speak ALPN).
	// Input accepts them (ParseProtocol) and stores Name; messages list
	// Names only.
	Aliases []string
}

// SPDY tells whether p is a SPDY draft.
func (p Protocol) SPDY() bool { return p.SPDYVersion != "" }

// Protocols lists every protocol, the study baseline first. To add one,
// add its entry here (and its constant above) and the code that speaks it
// in loader and server; flags, study files and messages follow this list.
// The SPDY entries' ALPN and SPDYVersion are spdy.Versions' (probe imports
// nothing of spdylab; loader's TestProbeSPDYProtocolsAreSPDYVersions checks).
var Protocols = []Protocol{
	{Name: ProtoHTTPS, ALPN: "http/1.1", PlainTCPOption: true, Aliases: []string{"http/1.1", "http1.1"}},
	{Name: ProtoSPDY31, ALPN: "spdy/3.1", SPDYVersion: "3.1", Multiplexed: true, PlainTCPOption: true, SessionWindow: true},
	{Name: ProtoSPDY3, ALPN: "spdy/3", SPDYVersion: "3", Multiplexed: true, PlainTCPOption: true},
	{Name: ProtoSPDY2, ALPN: "spdy/2", SPDYVersion: "2", Multiplexed: true, PlainTCPOption: true},
	{Name: ProtoH2, ALPN: "h2", Multiplexed: true, PlainTCPOption: true, SessionWindow: true, ModernTLS: true}, // h2c with prior knowledge
	{Name: ProtoH3, ALPN: "h3", Multiplexed: true, Transport: TransportQUIC, EarlyData: true, ModernTLS: true},
	{Name: ProtoSPDY31SCTP, ALPN: "spdy/3.1", SPDYVersion: "3.1", Plaintext: true, Multiplexed: true, Transport: TransportSCTP, SessionWindow: true},
}

// Transports a protocol runs over (Protocol.Transport).
const (
	TransportTCP  = ""
	TransportQUIC = "quic" // UDP
	TransportSCTP = "sctp" // user-space SCTP over UDP
)

// checkPlaintext refuses a TLS setting the protocol cannot run with.
func checkPlaintext(proto, tlsVersion string) error {
	p, ok := LookupProtocol(proto)
	switch {
	case !ok:
		return nil // unknown names are reported by the protocol check
	case p.Plaintext && tlsVersion != TLSNone:
		return fmt.Errorf("protocol %s runs without TLS: set tls %q (not %q)", proto, TLSNone, tlsVersion)
	case tlsVersion == TLSNone && p.Transport == TransportQUIC:
		return fmt.Errorf("protocol %s cannot run without TLS: QUIC has no plaintext, TLS 1.3 is part of its handshake (tls %q works for %s)", proto, TLSNone, OneOf(PlaintextProtocols()))
	case tlsVersion == TLSNone && !p.Plaintext && !p.PlainTCPOption:
		return fmt.Errorf("protocol %s cannot run without TLS (tls %q works for %s)", proto, TLSNone, OneOf(PlaintextProtocols()))
	}
	return nil
}

// PlaintextProtocols names the protocols that run without TLS.
func PlaintextProtocols() []string {
	var names []string
	for _, p := range Protocols {
		if p.Plaintext || p.PlainTCPOption {
			names = append(names, p.Name)
		}
	}
	return names
}

// LookupProtocol finds a protocol by its name.
func LookupProtocol(name string) (Protocol, bool) {
	for _, p := range Protocols {
		if p.Name == name {
			return p, true
		}
	}
	return Protocol{}, false
}

// ProtocolNames are the protocols' names in list order.
func ProtocolNames() []string {
	n := make([]string, len(Protocols))
	for i, p := range Protocols {
		n[i] = p.Name
	}
	return n
}

// CheckProtocol returns an error naming the valid protocols unless name is
// one of them (by Name: a stored or canonical spelling).
func CheckProtocol(name string) error {
	if name == "" {
		return fmt.Errorf("no protocol given (want %s)", OneOf(ProtocolNames()))
	}
	if _, ok := LookupProtocol(name); !ok {
		return fmt.Errorf("unknown protocol %q (want %s)", name, OneOf(ProtocolNames()))
	}
	return nil
}

// ParseProtocol reads a protocol as a user writes it: its Name or one of
// its Aliases, any case, so every command and study file takes the same
// words. The result's Name is the one spelling to store; an error lists
// the Names.
func ParseProtocol(name string) (Protocol, error) {
	v := strings.ToLower(strings.TrimSpace(name))
	for _, p := range Protocols {
		if p.Name == v || slices.Contains(p.Aliases, v) {
			return p, nil
		}
	}
	return Protocol{}, CheckProtocol(name)
}

// AliasHelp says which other spellings name which protocol, for help
// texts: "http/1.1 or http1.1 is https".
func AliasHelp() string {
	var parts []string
	for _, p := range Protocols {
		if len(p.Aliases) > 0 {
			parts = append(parts, OneOf(p.Aliases)+" is "+p.Name)
		}
	}
	return strings.Join(parts, "; ")
}

// canonProtocol is the protocol factor's Canon: ParseProtocol's Name.
func canonProtocol(v string) (string, error) {
	p, err := ParseProtocol(v)
	if err != nil {
		return oneOf(ProtocolNames()...)(v) // its error lists the Names
	}
	return p.Name, nil
}

// TLS versions a condition may ask for. TLS12 is the default: the full
// 2-RTT handshake the 2012-era studies measured. TLS10 and TLS11 are what
// 2012 browsers spoke (Chrome 16: TLS 1.0); Go's crypto/tls still speaks
// them when a Config's MinVersion names them (its default minimum is 1.2,
// per Config, no GODEBUG needed).
const (
	TLS10      = "1.0"
	TLS11      = "1.1"
	TLS12      = "1.2"
	TLS13      = "1.3"
	TLSNone    = "none" // plaintext: http:// URLs, no handshake
	DefaultTLS = TLS12
)

var tlsVersions = []struct {
	name string
	id   uint16
}{{TLS10, tls.VersionTLS10}, {TLS11, tls.VersionTLS11}, {TLS12, tls.VersionTLS12}, {TLS13, tls.VersionTLS13}, {TLSNone, 0}}

// TLSVersionNames are the valid Condition.TLS values.
func TLSVersionNames() []string {
	n := make([]string, len(tlsVersions))
	for i, v := range tlsVersions {
		n[i] = v.name
	}
	return n
}

// ParseTLSVersion maps a TLS version name to its crypto/tls constant; ""
// means DefaultTLS.
func ParseTLSVersion(name string) (uint16, error) {
	if name == "" {
		name = DefaultTLS
	}
	for _, v := range tlsVersions {
		if v.name == name {
			return v.id, nil
		}
	}
	return 0, fmt.Errorf("unknown TLS version %q (want %s)", name, OneOf(TLSVersionNames()))
}

// LoadTLS is the TLS version a load over proto runs when its condition
// asks for tls: a QUIC protocol's handshake is TLS 1.3 (RFC 9001), so h3
// loads at 1.3 whatever the condition names, the default 1.2 included (a
// bench serves its TCP protocols at the condition's version and h3 beside
// them); the stored condition keeps its version, so its hash holds. Other
// protocols run tls itself. What a QUIC protocol cannot run at all (tls
// none, 1.0, 1.1) Normalize refuses.
func LoadTLS(proto, tls string) string {
	if tls == "" {
		tls = DefaultTLS
	}
	if p, ok := LookupProtocol(proto); ok && p.Transport == TransportQUIC && tls != TLSNone {
		return TLS13
	}
	return tls
}

// TLSVersionName is the name of a crypto/tls version constant ("" when the
// lab does not use that version).
func TLSVersionName(id uint16) string {
	for _, v := range tlsVersions {
		if v.id == id {
			return v.name
		}
	}
	return ""
}

// MaxShards is the largest number of server hosts a condition (and so a
// testbed, and a generated page) has.
const MaxShards = 8

// Shard modes: how a page's resources are spread over its hosts.
const (
	ShardEqual      = "equal"      // contiguous, equal-sized groups
	ShardRoundRobin = "roundrobin" // resource i on host i mod n
)

// ShardModes are the valid Condition.ShardMode values ("" = ShardEqual).
var ShardModes = []string{ShardEqual, ShardRoundRobin}

// Server push policies.
const (
	PushNone     = "none"
	PushManifest = "manifest" // push what the page's manifest says a parent pulls in
	PushPreload  = "preload"  // push what a response's Link rel=preload headers name
	// PushDeps pushes, with a document, the resources it references
	// directly (its children in the manifest, on the same host), except
	// those the client has already requested on that connection.
	PushDeps = "deps"
)

// PushPolicies are the valid Condition.Push values ("" = PushNone).
var PushPolicies = []string{PushNone, PushManifest, PushPreload, PushDeps}

// OneOf spells a list of valid values for an error message: "a, b or c".
func OneOf(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func member(v string, list []string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Normalize checks a condition's fields and fills the defaults every stage
// agrees on: ShardMode equal, TLS 1.2; the default client and browser
// profile (clients.go), priority policy and scheduler (policies.go) are
// stored empty. A client that cannot speak Proto (Chromium and SPDY), a
// scheduler that cannot apply to Proto, 0-RTT without TLS 1.3, resumption
// or a protocol that sends it, are errors naming the reason. Shards 0 means the page's own
// default; Proto may be empty (a bench loads with a protocol per load),
// otherwise it must be a known one. It is the one validation of a
// Condition: study files, `spdylab load`, the harness and the loader use it.
func Normalize(c Condition) (Condition, error) {
	if c.Page == "" {
		return c, errors.New("condition names no page")
	}
	if c.Shards < 0 || c.Shards > MaxShards {
		return c, fmt.Errorf("shards %d out of range 1..%d", c.Shards, MaxShards)
	}
	if err := c.Link.CheckDelays(); err != nil {
		return c, err
	}
	if c.ShardMode == "" {
		c.ShardMode = ShardEqual
	}
	if !member(c.ShardMode, ShardModes) {
		return c, fmt.Errorf("unknown shard mode %q (want %s)", c.ShardMode, OneOf(ShardModes))
	}
	if c.TLS == "" {
		c.TLS = DefaultTLS
	}
	if _, err := ParseTLSVersion(c.TLS); err != nil {
		return c, err
	}
	if c.Proto != "" {
		if err := CheckProtocol(c.Proto); err != nil {
			return c, err
		}
	}
	c, err := normalizeClient(c)
	if err != nil {
		return c, err
	}
	if c, err = normalizePolicies(c); err != nil {
		return c, err
	}
	if c, err = normalizeView(c); err != nil {
		return c, err
	}
	if c, err = normalizeHosts(c); err != nil {
		return c, err
	}
	if err := checkTLSOptions(c); err != nil {
		return c, err
	}
	if c, err = normalizeStack(c); err != nil {
		return c, err
	}
	if err := checkNagle(c); err != nil {
		return c, err
	}
	cl, _ := LookupClient(c.Client) // known: normalizeClient checked it
	if err := checkLoaderOptions(c, cl); err != nil {
		return c, err
	}
	if c, err = normalizeSessions(c, cl); err != nil {
		return c, err
	}
	if c, err = normalizeMethod(c, cl); err != nil {
		return c, err
	}
	if c.Push != "" && !member(c.Push, PushPolicies) {
		return c, fmt.Errorf("unknown push policy %q (want %s)", c.Push, OneOf(PushPolicies))
	}
	if err := checkPlaintext(c.Proto, c.TLS); err != nil {
		return c, err
	}
	if c, err = normalizeServerKnobs(c); err != nil {
		return c, err
	}
	if err := c.SCTP.check(); err != nil {
		return c, err
	}
	c.SCTP = c.SCTP.Compact()
	if c.MaxStreams < 0 || c.MaxStreams > 1<<31-1 {
		return c, fmt.Errorf("max streams %d out of range", c.MaxStreams)
	}
	if c.InitialWindow < 0 || c.InitialWindow > 1<<31-1 {
		return c, fmt.Errorf("initial window %d out of range", c.InitialWindow)
	}
	return c, nil
}
