package page

import "fmt"

// This file names how import replays the two kinds of request a replay on
// https alone cannot give a URL of their own: an http->https upgrade (a
// redirect from http://H/P to https://H/P) and a repeated request of a URL.
// Each is served at its recorded URL plus a marker query, so it keeps its
// recorded response and round trip: the upgrade's 3xx answers Location =
// the https URL on the same https origin (the round trip of the redirect is
// paid; the recording's extra TCP handshake to port 80 is not, one round
// trip less than the recording), and a repeat is requested by its recorded
// initiator like any resource. Resource.Replay marks them, so redirects =
// drop (page/method.go) can take them out again.

// Resource.Replay values.
const (
	ReplayUpgrade = "upgrade" // an http->https redirect, served at its URL + MarkerUpgrade (then =N for its N-th repeat)
	ReplayRepeat  = "repeat"  // a later request of a URL, served at its URL + MarkerRepeat + N
)

// Markers added to the query of a replayed upgrade or repeat.
const (
	MarkerUpgrade = "spdylab-upgrade"
	MarkerRepeat  = "spdylab-repeat="
)

// markReplay serves r under its URL with marker added to the query.
func (r *recorded) markReplay(kind, marker string) {
	r.replay = kind
	if r.query == "" {
		r.query = marker
	} else {
		r.query += "&" + marker
	}
	r.key = urlKeyOf(r.host, r.port, r.path, r.query)
}

// replayNotes state how many upgrades and repeats the import replays.
func replayNotes(rep *ImportReport) []string {
	var out []string
	if rep.Upgrades > 0 {
		out = append(out, fmt.Sprintf("replayed: %d http->https upgrades, each a redirect from its https URL with the query marker %s (the redirect's round trip paid, the recording's TCP handshake to port 80 not)", rep.Upgrades, MarkerUpgrade))
	}
	if rep.Repeats > 0 {
		out = append(out, fmt.Sprintf("replayed: %d repeated requests of a URL, each at its URL with the query marker %sN (N-th repeat)", rep.Repeats, MarkerRepeat))
	}
	return out
}
