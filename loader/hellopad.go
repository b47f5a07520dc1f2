package loader

import "strings"

// A modern Chromium's TLS ClientHello is about 2 KB: GREASE values, an ECH
// GREASE extension, ALPS, certificate compression and padding around the
// same X25519MLKEM768 key share Go sends. Go's crypto/tls has no knob for
// any of them, so its ClientHello is about 500 bytes shorter (pageA's shard
// hosts at TLS 1.3: Chromium 156's 1955-2019 bytes in the capture, the
// loader's 1488). Every connection pays those bytes on the uplink, and with
// four hosts a browser sets up 16-24 connections at once: on the fidelity
// study's 1 Mbit/s uplink the difference is about 100 ms of serialization.
//
// The loader carries the missing bytes as extra ALPN protocol names that no
// server selects (servers pick from their own list; unknown names are
// ignored), the one part of the ClientHello crypto/tls lets a client size.
// They enter the handshake transcript like any extension, so the handshake
// stays valid.

// ChromiumHelloPadding is what Options.HelloPadding adds for the
// chromium-modern profile: Chromium's mean ClientHello (1982 bytes over six
// captured connections) less the loader's (1488).
const ChromiumHelloPadding = 494

// MaxHelloPadding bounds Options.HelloPadding: ALPN's extension holds at
// most 65535 bytes, and a hello far past Chromium's models no browser.
const MaxHelloPadding = 8192

// helloPadPrefix starts every padding ALPN name, so a server's log shows
// what it is.
const helloPadPrefix = "x-spdylab-hello-padding-"

// helloPadProtocols returns ALPN names that add exactly n bytes to the
// ALPN extension (each name costs its length plus one length byte; names
// are 1-255 bytes). n below the shortest name's cost adds nothing.
func helloPadProtocols(n int) []string {
	const maxName = 255
	minCost := len(helloPadPrefix) + 2 // prefix, one filler byte, length byte
	var out []string
	for n >= minCost {
		cost := min(n, maxName+1)
		if rest := n - cost; rest > 0 && rest < minCost {
			cost -= minCost - rest // leave room for a last name
		}
		out = append(out, helloPadPrefix+strings.Repeat("0", cost-1-len(helloPadPrefix)))
		n -= cost
	}
	return out
}
