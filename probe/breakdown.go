package probe

// The categories of a load's critical path (Breakdown.Ms keys). The
// critpath package owns the rules that fill them; they are listed here so
// that the store, the report and `spdylab why` read one vocabulary.
const (
	CatDNS      = "dns"
	CatConnect  = "connect"     // TCP (or QUIC) connection set-up
	CatTLS      = "tls"         // TLS handshake
	CatQueued   = "queued"      // waiting in the client: connection limit, request cap, stream limit (not its connection's set-up: connect, tls)
	CatSend     = "send"        // request upload, including the uplink's backlog
	CatRTT      = "request_rtt" // one round trip of each request's wait
	CatServer   = "server_wait" // the server thinking: its known think time, and the rest of a wait on a connection that retransmitted nothing, beyond its slow start
	CatTransfer = "transfer"    // the response's bytes at the link's rate
	CatHOL      = "hol"         // other streams' bytes on the same connection, at the link's rate
	CatShare    = "link_share"  // other connections' bytes on the same bottleneck, at the link's rate
	CatWindow   = "window"      // the sender's window: the rest of a receive without retransmissions, and a wait behind the connection's other bytes while it is in slow start
	CatLoss     = "loss"        // loss recovery: the rest of a receive or a wait beyond slow start, on a connection that retransmitted
	CatCompute  = "compute"     // script and parse delays the manifest or the renderer costs explain
	CatPush     = "push"        // waiting for a pushed response
	CatOther    = "other"       // client time nothing above explains
	// Merged categories: what a load without the evidence cannot tell apart.
	CatWindowOrLoss = "window_or_loss" // the rest of a receive or a wait with no server TCP_INFO and losses on the link (or no link counters)
	CatReceive      = "receive"        // no link rate: transfer, head-of-line, sharing, window and loss
	CatWait         = "wait"           // no round-trip time: request round trip and server wait
)

// Categories lists every category in the order tables and bars show them.
var Categories = []string{CatDNS, CatConnect, CatTLS, CatQueued, CatSend, CatRTT, CatServer, CatWait,
	CatTransfer, CatHOL, CatShare, CatWindow, CatLoss, CatWindowOrLoss, CatReceive, CatCompute, CatPush, CatOther}

// CategoryTitle is a category in words, as sentences use it.
func CategoryTitle(cat string) string {
	switch cat {
	case CatDNS:
		return "DNS"
	case CatConnect:
		return "TCP connect"
	case CatTLS:
		return "TLS handshakes"
	case CatQueued:
		return "client queueing"
	case CatSend:
		return "request upload"
	case CatRTT:
		return "request round trips"
	case CatServer:
		return "server wait"
	case CatWait:
		return "server wait or round trips (not told apart)"
	case CatTransfer:
		return "transfer at the link's rate"
	case CatHOL:
		return "head-of-line blocking"
	case CatShare:
		return "sharing the link with other connections"
	case CatWindow:
		return "the sender's window"
	case CatLoss:
		return "loss recovery"
	case CatWindowOrLoss:
		return "the sender's window or loss recovery (not told apart)"
	case CatReceive:
		return "receiving (transfer, head-of-line, window and loss not told apart)"
	case CatCompute:
		return "client compute"
	case CatPush:
		return "waiting for pushes"
	case CatOther:
		return "other client time"
	}
	return cat
}

// Breakdown is a load's critical path, the chain of activities that ends
// with the page's last byte, and its PLT split into categories (ms). Every
// millisecond of PLT is in exactly one category. A failed load has none:
// None says why.
type Breakdown struct {
	Ms map[string]float64 `json:"ms,omitempty"`
	// Path is the critical path's resources, the root document first.
	Path []PathStep `json:"path,omitempty"`
	// Merged says which categories the load's evidence could not tell
	// apart, and why.
	Merged []string `json:"merged,omitempty"`
	None   string   `json:"none,omitempty"`
}

// PathStep is one resource on the critical path: the part of its exchange
// that lies on the path, in ms since navigation start.
type PathStep struct {
	ResourceID int     `json:"resource_id"` // -1: not in the manifest
	URL        string  `json:"url"`
	StartMs    float64 `json:"start_ms"`
	EndMs      float64 `json:"end_ms"` // where the path leaves it: its last byte, or the byte that referenced the next step
	Trigger    string  `json:"trigger,omitempty"`
}

// Largest is the category holding the most time ("" when none).
func (b *Breakdown) Largest() string {
	if b == nil {
		return ""
	}
	best, bestMs := "", 0.0
	for _, c := range Categories {
		if v := b.Ms[c]; v > bestMs {
			best, bestMs = c, v
		}
	}
	return best
}

// Total is the sum of the categories: the PLT.
func (b *Breakdown) Total() float64 {
	if b == nil {
		return 0
	}
	t := 0.0
	for _, v := range b.Ms {
		t += v
	}
	return t
}
