package spdy

import "strings"

// ALPN / NPN protocol tokens (Config.Version values).
const (
	ProtoSPDY31 = "spdy/3.1"
	ProtoSPDY3  = "spdy/3"
	ProtoSPDY2  = "spdy/2"
)

// VersionInfo are the facts of one SPDY version this package speaks.
type VersionInfo struct {
	// Proto is the ALPN/NPN token and the Config.Version value.
	Proto string
	// Draft names the draft: "3.1", "3" or "2".
	Draft string
	// Wire is the version field of its control frames (Version or Version2).
	Wire uint16
	// StreamWindows: the draft has per-stream flow control (SPDY/3 and
	// 3.1; spdy/2 only with Config.SPDY2StreamWindows).
	StreamWindows bool
	// SessionWindow: the draft has a session window (WINDOW_UPDATE on
	// stream 0), SPDY/3.1 only.
	SessionWindow bool
}

// Versions lists every SPDY version the package speaks, most preferred
// first (the ALPN order the lab's client and server offer). Config.Version
// is valid when it is "" (meaning the first) or one of these tokens; the
// session takes its wire version and flow control from its entry. Callers
// must not modify it.
var Versions = []VersionInfo{
	{Proto: ProtoSPDY31, Draft: "3.1", Wire: Version, StreamWindows: true, SessionWindow: true},
	{Proto: ProtoSPDY3, Draft: "3", Wire: Version, StreamWindows: true},
	{Proto: ProtoSPDY2, Draft: "2", Wire: Version2},
}

// LookupVersion finds a version by its token (Config's "" default is not
// a token: it is not found).
func LookupVersion(proto string) (VersionInfo, bool) {
	for _, v := range Versions {
		if v.Proto == proto {
			return v, true
		}
	}
	return VersionInfo{}, false
}

// VersionNames are the versions' tokens in Versions order.
func VersionNames() []string {
	n := make([]string, len(Versions))
	for i, v := range Versions {
		n[i] = v.Proto
	}
	return n
}

// quotedVersions is `"spdy/3.1", "spdy/3" or "spdy/2"` for messages.
func quotedVersions() string {
	q := VersionNames()
	for i := range q {
		q[i] = `"` + q[i] + `"`
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
