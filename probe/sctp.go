package probe

import (
	"fmt"
	"slices"
	"time"
)

// SCTP are the knobs of SPDY over SCTP (ProtoSPDY31SCTP), as the 2011 study
// tuned them. A zero field means the lab's default below, and Normalize
// zeroes a field set to its default, so a condition has one spelling and
// conditions that never mention SCTP keep their stored hashes.
type SCTP struct {
	// NoControlStream sends each SPDY stream's control frames with its
	// data instead of on SCTP stream 0 (the control-stream option off).
	NoControlStream bool `json:"no_control_stream,omitempty"`
	// NoBundleCookie waits for COOKIE-ACK before sending anything (Linux
	// lksctp's extra round trip) instead of bundling the first DATA with
	// COOKIE-ECHO (usrsctp's behaviour).
	NoBundleCookie bool          `json:"no_bundle_cookie,omitempty"`
	Streams        int           `json:"streams,omitempty"`        // inbound = outbound stream count asked for
	RTOMin         time.Duration `json:"rto_min_ns,omitempty"`     // RTO.Min
	RTOInitial     time.Duration `json:"rto_initial_ns,omitempty"` // RTO.Initial
	Buffer         int           `json:"buffer,omitempty"`         // send and receive buffer, bytes
	// CongestionControl is the congestion control module of both ends
	// (SCTPCongestionControls; "" = DefaultSCTPCongestionControl).
	CongestionControl string `json:"cc,omitempty"`
}

// SCTPCongestionControls are usrsctp's congestion control modules
// (sctp.CongestionControls): RFC 4960's (the stack's default), HighSpeed
// TCP, H-TCP and RTCC.
var SCTPCongestionControls = []string{"rfc2581", "hstcp", "htcp", "rtcc"}

// The lab's SCTP defaults: the study's RTO.Min of 200 ms (TCP's minimum
// RTO on Linux) and 64 KB buffers; RTO.Initial 1 s as TCP's (RFC 6298), so
// neither transport starts with a slower timer; 10 streams (usrsctp's
// default), which the study's pages never exhaust before wrapping matters.
const (
	DefaultSCTPStreams    = 10
	DefaultSCTPRTOMin     = 200 * time.Millisecond
	DefaultSCTPRTOInitial = time.Second
	DefaultSCTPBuffer     = 64 << 10
	// DefaultSCTPCongestionControl is usrsctp's default, the study's.
	DefaultSCTPCongestionControl = "rfc2581"
)

// WithDefaults returns s with every zero field set to the lab default.
func (s SCTP) WithDefaults() SCTP {
	if s.Streams == 0 {
		s.Streams = DefaultSCTPStreams
	}
	if s.RTOMin == 0 {
		s.RTOMin = DefaultSCTPRTOMin
	}
	if s.RTOInitial == 0 {
		s.RTOInitial = DefaultSCTPRTOInitial
	}
	if s.Buffer == 0 {
		s.Buffer = DefaultSCTPBuffer
	}
	if s.CongestionControl == "" {
		s.CongestionControl = DefaultSCTPCongestionControl
	}
	return s
}

// Compact zeroes the fields that hold their default (the one spelling).
func (s SCTP) Compact() SCTP {
	d := SCTP{}.WithDefaults()
	if s.Streams == d.Streams {
		s.Streams = 0
	}
	if s.RTOMin == d.RTOMin {
		s.RTOMin = 0
	}
	if s.RTOInitial == d.RTOInitial {
		s.RTOInitial = 0
	}
	if s.Buffer == d.Buffer {
		s.Buffer = 0
	}
	if s.CongestionControl == d.CongestionControl {
		s.CongestionControl = ""
	}
	return s
}

// Limits of the SCTP knobs: SPDY over SCTP needs stream 0 plus at least
// one stream for data; the timers and buffers are bounded to values an
// association through the lab's links can use.
const (
	MinSCTPStreams = 2
	MaxSCTPStreams = 65535
	MinSCTPBuffer  = 4 << 10
	MaxSCTPBuffer  = 64 << 20
	MaxSCTPRTO     = time.Minute
)

// check validates the knobs (0 = default everywhere).
func (s SCTP) check() error {
	if s.Streams != 0 && (s.Streams < MinSCTPStreams || s.Streams > MaxSCTPStreams) {
		return fmt.Errorf("sctp streams %d out of range %d..%d", s.Streams, MinSCTPStreams, MaxSCTPStreams)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"sctp rto_min", s.RTOMin}, {"sctp rto_initial", s.RTOInitial}} {
		if d.v < 0 || (d.v > 0 && d.v < time.Millisecond) || d.v > MaxSCTPRTO {
			return fmt.Errorf("%s %v out of range 1ms..%v", d.name, d.v, MaxSCTPRTO)
		}
	}
	if s.Buffer != 0 && (s.Buffer < MinSCTPBuffer || s.Buffer > MaxSCTPBuffer) {
		return fmt.Errorf("sctp buffer %d bytes out of range %d..%d", s.Buffer, MinSCTPBuffer, MaxSCTPBuffer)
	}
	if s.CongestionControl != "" && !slices.Contains(SCTPCongestionControls, s.CongestionControl) {
		return fmt.Errorf("sctp congestion control %q unknown (want %s)", s.CongestionControl, OneOf(SCTPCongestionControls))
	}
	return nil
}

// SCTPCounters are the transport counters of a load's SCTP associations,
// summed: the client's side (the loader's associations) and the servers'
// (the associations they accepted for the load). A retransmission is fast
// when SACKs had reported its TSN missing three times, else it followed a
// retransmission timeout.
type SCTPCounters struct {
	Associations int          `json:"associations"`
	Client       SCTPEndpoint `json:"client"`
	Server       SCTPEndpoint `json:"server"`
}

// SCTPEndpoint is one side's counters.
type SCTPEndpoint struct {
	PacketsSent            uint64 `json:"packets_sent"`
	PacketsReceived        uint64 `json:"packets_received"`
	DataChunksSent         uint64 `json:"data_chunks_sent"`
	Retransmissions        uint64 `json:"retransmissions"`
	FastRetransmissions    uint64 `json:"fast_retransmissions"`
	TimeoutRetransmissions uint64 `json:"timeout_retransmissions"`
	SACKsSent              uint64 `json:"sacks_sent"`
	SACKsReceived          uint64 `json:"sacks_received"`
	// MessagesOvertaken: messages delivered ahead of an earlier message of
	// another stream (head-of-line blocking a single TCP stream would have
	// imposed).
	MessagesOvertaken uint64 `json:"messages_overtaken"`
}

// Add sums o into e.
func (e *SCTPEndpoint) Add(o SCTPEndpoint) {
	e.PacketsSent += o.PacketsSent
	e.PacketsReceived += o.PacketsReceived
	e.DataChunksSent += o.DataChunksSent
	e.Retransmissions += o.Retransmissions
	e.FastRetransmissions += o.FastRetransmissions
	e.TimeoutRetransmissions += o.TimeoutRetransmissions
	e.SACKsSent += o.SACKsSent
	e.SACKsReceived += o.SACKsReceived
	e.MessagesOvertaken += o.MessagesOvertaken
}
