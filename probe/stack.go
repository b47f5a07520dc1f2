package probe

import (
	"crypto/tls"
	"fmt"
)

// This file owns the stacks of 2012 (Condition.Stack) and the switches the
// shorthand sets: TCP loss recovery (TCP.Recovery), Nagle on the servers
// (Nagle), the TLS key exchange (TLSKx) and TLS False Start (FalseStart).
// Each is its own field and study factor, so a study (or a reconciliation
// walk) can toggle one piece at a time; `stack = 2012` only fills in the
// pieces a condition does not set itself (ExpandStack), and the stored
// condition holds them expanded.

// Stacks (Condition.Stack): "" is StackModern.
const (
	StackModern = "modern"
	Stack2012   = "2012"
)

// Stacks are the valid stack values.
var Stacks = []string{StackModern, Stack2012}

// TCP loss recovery (TCP.Recovery): "" is RecoveryModern, the kernel's own.
const (
	RecoveryModern = "modern"
	// Recovery2012 is a 2012 Linux (3.2-3.5): no tail-loss probe
	// (net.ipv4.tcp_early_retrans 0), no RACK (net.ipv4.tcp_recovery 0,
	// where the kernel still honours it), no SACK compression
	// (net.ipv4.tcp_comp_sack_nr 0: one SACK per out-of-order segment).
	// netem writes and reads back these sysctls (netem.Recovery2012Sysctls).
	Recovery2012 = "2012"
)

// Recoveries are the valid tcp_recovery values.
var Recoveries = []string{RecoveryModern, Recovery2012}

// TLS key exchanges (Condition.TLSKx): "" is KxECDHE.
const (
	// KxECDHE is Go's default suites (ECDHE, AEAD first) with the lab's
	// ECDSA certificates.
	KxECDHE = "ecdhe"
	// KxRSA is RSA key exchange, TLS_RSA_WITH_AES_128_CBC_SHA, with an RSA
	// certificate: what most 2012 servers negotiated with Chrome.
	KxRSA = "rsa"
)

// KeyExchanges are the valid tls_kx values.
var KeyExchanges = []string{KxECDHE, KxRSA}

// TLSCipherSuites are the suites a TLS 1.0-1.2 config lists for a key
// exchange (nil: Go's defaults). Go 1.22+ leaves RSA key exchange out of
// its defaults but honours it when a Config lists it, so no process-wide
// GODEBUG (tlsrsakex) is needed; client and server list the same suite.
func TLSCipherSuites(kx string) []uint16 {
	if kx == KxRSA {
		return []uint16{tls.TLS_RSA_WITH_AES_128_CBC_SHA}
	}
	return nil
}

// FalseStartRefusal is why false_start = true is refused: the loader
// cannot do it, and a switch that does nothing would mislead a study.
const FalseStartRefusal = "Go's crypto/tls client sends no application data before the server's Finished, " +
	"so the loader cannot false-start (Chrome 16 did, saving one round trip of a full TLS 1.0-1.2 handshake); " +
	"leave false_start false and count that round trip as the lab's known gap"

// stackPiece is one switch the 2012 shorthand sets, with its 2012 value.
type stackPiece struct {
	field, value string
	tlsPiece     bool // needs TLS on the protocol (tls none: left alone)
	loaderPiece  bool // the loader can, a real browser cannot (it keeps its own)
	tcpPiece     bool // a TCP socket option of the servers
}

// stack2012 are the pieces of `stack = 2012`, in the order a reconciliation
// walk toggles them. false_start is not one: the lab cannot model it
// (FalseStartRefusal).
var stack2012 = []stackPiece{
	{field: "tcp_recovery", value: Recovery2012},
	{field: "slow_start_after_idle", value: "true"},
	{field: "iw", value: "3"},
	{field: "nagle", value: "true", tcpPiece: true},
	{field: "tls", value: TLS10, tlsPiece: true, loaderPiece: true},
	{field: "tls_kx", value: KxRSA, tlsPiece: true, loaderPiece: true},
	{field: "tls_resume", value: "true", tlsPiece: true, loaderPiece: true},
	{field: "browser_profile", value: ProfileChrome16, loaderPiece: true},
}

// StackPieces names the fields `stack = 2012` sets.
func StackPieces() []string {
	n := make([]string, len(stack2012))
	for i, p := range stack2012 {
		n[i] = p.field
	}
	return n
}

// ExpandStack returns v with every piece of `stack = 2012` that v does not
// give set to its 2012 value (v itself is not changed). The rules, so a
// condition never holds a piece its protocol or client cannot run:
// the TLS pieces are left alone when tls is none or the protocol runs
// without TLS or needs modern TLS (Protocol.ModernTLS: h2, h3 keep their
// TLS); the loader's pieces when the client is a real browser; nagle when
// the protocol's servers have no TCP socket (h3, SCTP).
func ExpandStack(v map[string]string) map[string]string {
	if v["stack"] != Stack2012 {
		return v
	}
	out := make(map[string]string, len(v)+len(stack2012))
	for k, x := range v {
		out[k] = x
	}
	p, _ := LookupProtocol(v["protocol"])
	noTLS := v["tls"] == TLSNone || p.Plaintext || p.ModernTLS
	noTCP := p.Transport != TransportTCP
	cl, _ := LookupClient(v["client"])
	for _, piece := range stack2012 {
		if _, given := v[piece.field]; given {
			continue
		}
		if (piece.tlsPiece && noTLS) || (piece.loaderPiece && cl.Browser) || (piece.tcpPiece && noTCP) {
			continue
		}
		out[piece.field] = piece.value
	}
	return out
}

// OmitUngivenPieces returns v without the stack pieces given reports as
// not set by the user (v itself is not changed), for callers whose values
// hold every field's default (flags, a study block's matrix point), so that
// ExpandStack can tell a piece left out from one set to its default.
func OmitUngivenPieces(v map[string]string, given func(field string) bool) map[string]string {
	if v["stack"] != Stack2012 {
		return v
	}
	out := make(map[string]string, len(v))
	for k, x := range v {
		out[k] = x
	}
	for _, p := range stack2012 {
		if !given(p.field) {
			delete(out, p.field)
		}
	}
	return out
}

// normalizeStack stores the stack switches' defaults empty and refuses the
// combinations that cannot run, saying what to change.
func normalizeStack(c Condition) (Condition, error) {
	if c.Stack == StackModern {
		c.Stack = ""
	}
	if c.Stack != "" && !member(c.Stack, Stacks) {
		return c, fmt.Errorf("unknown stack %q (want %s)", c.Stack, OneOf(Stacks))
	}
	if c.TCP.Recovery == RecoveryModern {
		c.TCP.Recovery = ""
	}
	if c.TCP.Recovery != "" && !member(c.TCP.Recovery, Recoveries) {
		return c, fmt.Errorf("unknown tcp_recovery %q (want %s)", c.TCP.Recovery, OneOf(Recoveries))
	}
	if c.TLSKx == KxECDHE {
		c.TLSKx = ""
	}
	if c.TLSKx != "" && !member(c.TLSKx, KeyExchanges) {
		return c, fmt.Errorf("unknown tls_kx %q (want %s)", c.TLSKx, OneOf(KeyExchanges))
	}
	if c.FalseStart {
		return c, fmt.Errorf("false_start true: %s", FalseStartRefusal)
	}
	if cl, _ := LookupClient(c.Client); cl.Browser && (c.TLSKx != "" || c.TLS == TLS10 || c.TLS == TLS11) {
		return c, fmt.Errorf("client %s cannot run tls %s with tls_kx %s: Chromium removed TLS 1.0/1.1 (version 84) and offers no RSA key exchange by default; use client %s", cl.Name, c.TLS, c.kx(), ClientLoader)
	}
	return c, checkStackTLS(c)
}

// checkStackTLS refuses TLS versions and key exchanges the protocol or the
// TLS version cannot carry.
func checkStackTLS(c Condition) error {
	old := c.TLS == TLS10 || c.TLS == TLS11
	if c.TLSKx == KxRSA {
		switch c.TLS {
		case TLSNone:
			return fmt.Errorf("tls_kx %s needs TLS: tls %q has no key exchange", KxRSA, TLSNone)
		case TLS13:
			return fmt.Errorf("tls_kx %s needs tls 1.0, 1.1 or 1.2: TLS 1.3 has no RSA key exchange", KxRSA)
		}
	}
	p, ok := LookupProtocol(c.Proto)
	if !ok || !p.ModernTLS {
		return nil
	}
	if old {
		return fmt.Errorf("protocol %s needs tls 1.2 or later (%s), not %s: set tls 1.2 or 1.3", p.Name, p.modernTLSReason(), c.TLS)
	}
	if c.TLSKx == KxRSA {
		return fmt.Errorf("protocol %s cannot use tls_kx %s (%s): set tls_kx %s", p.Name, KxRSA, p.modernTLSReason(), KxECDHE)
	}
	return nil
}

// modernTLSReason says why a ModernTLS protocol refuses 2012's TLS.
func (p Protocol) modernTLSReason() string {
	if p.Transport == TransportQUIC {
		return "QUIC always runs TLS 1.3"
	}
	return "RFC 7540 9.2: TLS 1.2 or later, no RSA key exchange or CBC suites"
}

// checkNagle refuses nagle for a protocol whose server has no TCP socket.
func checkNagle(c Condition) error {
	if !c.Nagle {
		return nil
	}
	if p, ok := LookupProtocol(c.Proto); ok && p.Transport != TransportTCP {
		return fmt.Errorf("nagle is a TCP socket option; protocol %s runs over %s (leave nagle false)", p.Name, p.Transport)
	}
	return nil
}

// kx is the condition's key exchange, the default spelled out.
func (c Condition) kx() string {
	if c.TLSKx == "" {
		return KxECDHE
	}
	return c.TLSKx
}
