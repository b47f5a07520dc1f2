package sctp

import (
	"fmt"
	"time"
)

// Config holds the knobs of one association (both ends read their own). The
// zero value asks for the stack's defaults everywhere.
type Config struct {
	// Retransmission timeout bounds (RFC 9260 RTO.Initial, RTO.Min,
	// RTO.Max); 0 = the stack's default (usrsctp: 3 s, 1 s, 60 s).
	RTOInitial, RTOMin, RTOMax time.Duration
	// Socket send and receive buffers in bytes; the receive buffer is the
	// advertised receiver window. 0 = the stack's default.
	SendBuffer, ReceiveBuffer int
	// MaxBurst caps the packets sent in one burst (RFC 9260 Max.Burst).
	// 0 = the stack's default (4); MaxBurstUnlimited removes the cap.
	MaxBurst int
	// SACKEveryPacket turns delayed SACK off: the receiver acknowledges
	// every packet at once instead of every second one or after 200 ms.
	SACKEveryPacket bool
	// OutboundStreams and InboundStreams are the stream counts asked for in
	// INIT; the association uses the smaller of each side's offer (see
	// Assoc.Streams). 0 = DefaultStreams; at most 65535.
	OutboundStreams, InboundStreams int
	// PacketSize is the largest SCTP packet sent (the UDP payload); 0 =
	// DefaultPacketSize. Path MTU discovery is off: the lab's links are
	// known.
	PacketSize int
	// BundleCookieEcho lets Dial return as soon as INIT is sent, so the
	// first messages travel bundled with COOKIE-ECHO (one round trip saved,
	// usrsctp's behaviour). False waits for COOKIE-ACK before anything is
	// sent, which reproduces Linux lksctp's extra round trip per
	// association.
	BundleCookieEcho bool
	// CongestionControl picks usrsctp's congestion control module
	// (SCTP_PLUGGABLE_CC) for the associations this end sends on: "" or
	// CCRFC2581 = the stack's default (RFC 4960 section 7: slow start and
	// AIMD as TCP NewReno, no HyStart), CCHSTCP (HighSpeed TCP, RFC 3649),
	// CCHTCP (H-TCP) or CCRTCC (RFC 2581 plus usrsctp's RTT-based
	// adjustments). Only the sender's choice matters for its data.
	CongestionControl string
}

// Congestion control modules (Config.CongestionControl).
const (
	CCRFC2581 = "rfc2581"
	CCHSTCP   = "hstcp"
	CCHTCP    = "htcp"
	CCRTCC    = "rtcc"
)

// CongestionControls lists the modules Config.CongestionControl accepts, in
// usrsctp's numbering (SCTP_CC_RFC2581 = 0 ... SCTP_CC_RTCC = 3).
var CongestionControls = []string{CCRFC2581, CCHSTCP, CCHTCP, CCRTCC}

// ccModule is the SCTP_CC_* value of name; -1 for "" (keep the default).
func ccModule(name string) (int, error) {
	if name == "" {
		return -1, nil
	}
	for i, n := range CongestionControls {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("sctp: Config.CongestionControl %q unknown (want \"\" = %s, or one of %v)", name, CCRFC2581, CongestionControls)
}

// ccName is the name of an SCTP_CC_* value read back from the stack.
func ccName(v int) string {
	if v >= 0 && v < len(CongestionControls) {
		return CongestionControls[v]
	}
	return fmt.Sprintf("module %d", v)
}

// MaxBurstUnlimited as Config.MaxBurst removes the burst limit.
const MaxBurstUnlimited = -1

// DefaultPacketSize fills a 1500-byte IPv4 packet: 1500 - 20 (IP) - 8 (UDP).
const DefaultPacketSize = 1472

// DefaultStreams is the stream count asked for when Config leaves it 0.
const DefaultStreams = 10

func (c Config) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"RTOInitial", c.RTOInitial}, {"RTOMin", c.RTOMin}, {"RTOMax", c.RTOMax}} {
		if d.v < 0 || (d.v > 0 && d.v < time.Millisecond) || d.v > time.Hour {
			return fmt.Errorf("sctp: Config.%s %v out of range (0 = default, else 1ms..1h)", d.name, d.v)
		}
	}
	if c.RTOMin > 0 && c.RTOMax > 0 && c.RTOMin > c.RTOMax {
		return fmt.Errorf("sctp: Config.RTOMin %v above RTOMax %v", c.RTOMin, c.RTOMax)
	}
	if c.SendBuffer < 0 || c.ReceiveBuffer < 0 {
		return fmt.Errorf("sctp: negative buffer size (send %d, receive %d)", c.SendBuffer, c.ReceiveBuffer)
	}
	if c.MaxBurst < MaxBurstUnlimited {
		return fmt.Errorf("sctp: Config.MaxBurst %d (want 0 = default, -1 = unlimited, or a packet count)", c.MaxBurst)
	}
	if c.OutboundStreams < 0 || c.OutboundStreams > 65535 || c.InboundStreams < 0 || c.InboundStreams > 65535 {
		return fmt.Errorf("sctp: stream counts %d out / %d in must be 1..65535 (0 = %d)", c.OutboundStreams, c.InboundStreams, DefaultStreams)
	}
	if c.PacketSize != 0 && (c.PacketSize < 576 || c.PacketSize > 65507) {
		return fmt.Errorf("sctp: Config.PacketSize %d out of range (0 = %d, else 576..65507)", c.PacketSize, DefaultPacketSize)
	}
	if _, err := ccModule(c.CongestionControl); err != nil {
		return err
	}
	return nil
}

func (c Config) outbound() int { return orDefault(c.OutboundStreams, DefaultStreams) }
func (c Config) inbound() int  { return orDefault(c.InboundStreams, DefaultStreams) }

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}
