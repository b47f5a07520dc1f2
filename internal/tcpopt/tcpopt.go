// Package tcpopt sets and reads the Linux TCP socket options spdylab relies
// on: the congestion control per socket (a namespace may only default to the
// algorithms in tcp_allowed_congestion_control, but a socket may pick any
// available one as root), TCP_NOTSENT_LOWAT so that a server's priorities are
// not defeated by a full kernel send buffer, and TCP_INFO for per-connection
// counters at the end of a load.
package tcpopt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawConner is implemented by *net.TCPConn and *net.TCPListener.
type rawConner interface {
	SyscallConn() (syscall.RawConn, error)
}

func control(c any, fn func(fd int) error) error {
	rc, ok := c.(rawConner)
	if !ok {
		return fmt.Errorf("tcpopt: %T is not a socket", c)
	}
	raw, err := rc.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := raw.Control(func(fd uintptr) { opErr = fn(int(fd)) }); err != nil {
		return err
	}
	return opErr
}

// SetCongestion sets TCP_CONGESTION ("cubic", "reno", "bbr") on a connection
// or listener; accepted sockets inherit a listener's choice. Empty cc is a no-op.
func SetCongestion(c any, cc string) error {
	if cc == "" {
		return nil
	}
	err := control(c, func(fd int) error { return unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc) })
	if err != nil {
		return fmt.Errorf("setting congestion control %q: %w (is the tcp_%s module available?)", cc, err, cc)
	}
	return nil
}

// SetCongestionFD is SetCongestion for a raw descriptor, for net.Dialer.Control
// and net.ListenConfig.Control hooks, which run before connect/listen.
func SetCongestionFD(fd uintptr, cc string) error {
	if cc == "" {
		return nil
	}
	if err := unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc); err != nil {
		return fmt.Errorf("setting congestion control %q: %w", cc, err)
	}
	return nil
}

// Congestion reports the congestion control in use on c.
func Congestion(c any) (string, error) {
	var name string
	err := control(c, func(fd int) error {
		s, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		name = s
		return err
	})
	return name, err
}

// NoDelay reads TCP_NODELAY back: true when Nagle's algorithm is off.
func NoDelay(c any) (bool, error) {
	var on int
	err := control(c, func(fd int) error {
		v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
		on = v
		return err
	})
	return on != 0, err
}

// SetNotSentLowat sets TCP_NOTSENT_LOWAT: the kernel then reports the socket
// writable only while fewer than n unsent bytes are queued. n <= 0 is a no-op.
func SetNotSentLowat(c any, n int) error {
	if n <= 0 {
		return nil
	}
	return control(c, func(fd int) error { return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, n) })
}

// PacingUncapped is a SO_MAX_PACING_RATE (bytes/s) no link reaches: set,
// it turns on TCP's internal pacing (the kernel paces a socket whose cap
// is anything but ~0 even without the fq qdisc) at TCP's own rate.
const PacingUncapped = 1 << 40

// SetMaxPacingRate sets SO_MAX_PACING_RATE to bytesPerSec, which also
// turns on TCP's internal pacing for the socket. 0 is a no-op.
func SetMaxPacingRate(c any, bytesPerSec uint64) error {
	if bytesPerSec == 0 {
		return nil
	}
	err := control(c, func(fd int) error {
		return unix.SetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE, bytesPerSec)
	})
	if err != nil {
		return fmt.Errorf("setting SO_MAX_PACING_RATE %d B/s: %w", bytesPerSec, err)
	}
	return nil
}

// Unwrap digs the *net.TCPConn out of wrappers such as *tls.Conn that expose
// NetConn().
func Unwrap(c net.Conn) (*net.TCPConn, bool) {
	for i := 0; i < 8 && c != nil; i++ {
		if t, ok := c.(*net.TCPConn); ok {
			return t, true
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil, false
		}
		c = u.NetConn()
	}
	return nil, false
}

// TCPInfo is the part of the kernel's TCP_INFO spdylab records for a
// connection. It is this package's own type so that importers (the spdy
// library among them) depend on nothing of the lab; the loader copies it into
// probe.TCPInfo.
type TCPInfo struct {
	Retransmits  uint32  // total retransmitted segments
	SegsOut      uint32  // segments sent
	SegsIn       uint32  // segments received
	SndCwnd      uint32  // congestion window, segments
	SndMSS       uint32  // sender's maximum segment size, bytes
	SndSsthresh  uint32  // slow-start threshold, segments; 0 = never set (no loss yet)
	RTTms        float64 // smoothed RTT
	RTTVarms     float64 // RTT variance
	BytesAcked   uint64
	BytesRecv    uint64
	BytesSent    uint64 // payload bytes sent, retransmissions included (Linux 4.19+)
	BytesRetrans uint64 // of which retransmitted (Linux 4.19+)
	// RTOs and RTOTimems are the retransmission timeouts the connection
	// took and the time it spent recovering from them (Linux 6.7+; 0
	// before).
	RTOs       uint32
	RTOTimems  uint32
	Congestion string // congestion control algorithm in use
	// PacingRate is TCP's current pacing rate and MaxPacingRate the
	// socket's cap (SO_MAX_PACING_RATE; ~0 = none), both in bytes/s.
	PacingRate    uint64
	MaxPacingRate uint64
	// MinRTTms is the smallest RTT the connection has seen (the path's
	// base delay, no queue), DeliveryRate its most recent delivery rate
	// sample in bytes/s and CAState the congestion state (CAOpen, ...):
	// what a server adapting per connection reads (server/adapt.go).
	MinRTTms     float64
	DeliveryRate uint64
	CAState      uint8
	// DeliveryRateAppLimited: the delivery rate sample was taken while
	// the sender had too little data to fill its window, so it shows the
	// application's rate, not the path's.
	DeliveryRateAppLimited bool
	// BBRPacingGain is bbr's current pacing gain (TCP_CC_INFO; 2.89 in
	// start-up, 0.35 in drain, 0.75-1.25 once it probes bandwidth, 1 in
	// its RTT probe), 0 when the connection is not on bbr: whether bbr's
	// start-up overshoot is over, from bbr itself.
	BBRPacingGain float64
}

// The kernel's congestion states (TCP_INFO's tcpi_ca_state).
const (
	CAOpen     = 0
	CADisorder = 1
	CACWR      = 2
	CARecovery = 3
	CALoss     = 4
)

// infiniteSsthresh is the kernel's TCP_INFINITE_SSTHRESH: a connection that
// has not left its initial slow start.
const infiniteSsthresh = 0x7fffffff

// Info reads TCP_INFO from a connection (unwrapping TLS).
func Info(c net.Conn) (TCPInfo, error) {
	t, ok := Unwrap(c)
	if !ok {
		return TCPInfo{}, errors.New("tcpopt: not a TCP connection")
	}
	var ti *unix.TCPInfo
	err := control(t, func(fd int) error {
		var err error
		ti, err = unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		return err
	})
	if err != nil {
		return TCPInfo{}, fmt.Errorf("tcpopt: TCP_INFO: %w", err)
	}
	cc, _ := Congestion(t)
	ssthresh := ti.Snd_ssthresh
	if ssthresh >= infiniteSsthresh {
		ssthresh = 0
	}
	return TCPInfo{
		Retransmits:   ti.Total_retrans,
		SegsOut:       ti.Segs_out,
		SegsIn:        ti.Segs_in,
		SndCwnd:       ti.Snd_cwnd,
		SndMSS:        ti.Snd_mss,
		SndSsthresh:   ssthresh,
		RTTms:         float64(ti.Rtt) / 1000,
		RTTVarms:      float64(ti.Rttvar) / 1000,
		BytesAcked:    ti.Bytes_acked,
		BytesRecv:     ti.Bytes_received,
		BytesSent:     ti.Bytes_sent,
		BytesRetrans:  ti.Bytes_retrans,
		Congestion:    cc,
		PacingRate:    ti.Pacing_rate,
		MaxPacingRate: ti.Max_pacing_rate,
		RTOs:          uint32(ti.Total_rto),
		RTOTimems:     ti.Total_rto_time,
		MinRTTms:      float64(ti.Min_rtt) / 1000,
		DeliveryRate:  ti.Delivery_rate,
		CAState:       ti.Ca_state,

		DeliveryRateAppLimited: appLimited(ti),
		BBRPacingGain:          bbrPacingGain(t, cc),
	}, nil
}

// bbrUnit is bbr's fixed-point one (BBR_UNIT, 1 << 8) in its gains.
const bbrUnit = 256

// bbrPacingGain reads bbr's pacing gain from TCP_CC_INFO; 0 for another
// cc or when the kernel does not say.
func bbrPacingGain(t *net.TCPConn, cc string) float64 {
	if cc != "bbr" {
		return 0
	}
	var gain uint32
	err := control(t, func(fd int) error {
		bi, err := unix.GetsockoptTCPCCBBRInfo(fd, unix.IPPROTO_TCP, unix.TCP_CC_INFO)
		if err == nil {
			gain = bi.Pacing_gain
		}
		return err
	})
	if err != nil {
		return 0
	}
	return float64(gain) / bbrUnit
}

// appLimited reads tcpi_delivery_rate_app_limited, a one-bit field that
// x/sys/unix's TCPInfo leaves in the padding before tcpi_rto: the byte
// after the window-scale byte (offset 7). GCC puts a byte's first bit
// field in its lowest bit on little-endian targets and in its highest on
// big-endian ones.
func appLimited(ti *unix.TCPInfo) bool {
	b := (*[8]byte)(unsafe.Pointer(ti))
	if bigEndian {
		return b[7]&0x80 != 0
	}
	return b[7]&1 != 0
}

var bigEndian = binary.NativeEndian.Uint16([]byte{0, 1}) == 1
