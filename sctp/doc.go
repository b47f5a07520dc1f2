// Package sctp is SCTP in user space over UDP (RFC 6951 style: each SCTP
// packet is one UDP datagram), for running SPDY over SCTP on a kernel
// without SCTP. It knows nothing of the lab: give it a net.PacketConn (made
// in whatever network namespace) and a Config.
//
// The protocol engine is usrsctp (FreeBSD's SCTP stack as a library, Debian
// libusrsctp-dev) through cgo, chosen over github.com/pion/sctp because it
// exposes every knob the 2011 study tuned as a socket option and reads them
// back (Assoc.Applied): RTO.Initial/Min/Max (SCTP_RTOINFO), send and receive
// buffers (SO_SNDBUF/SO_RCVBUF), Max.Burst (SCTP_MAX_BURST, 0 = none),
// delayed SACK (SCTP_DELAYED_SACK, frequency 1 = off), stream counts
// (SCTP_INITMSG), and it bundles DATA with COOKIE-ECHO (pion v1.11.3 hard
// codes RTO.Min/Initial, offers 65535 streams, and has no delayed-SACK or
// max-burst setting). Beyond the study's knobs: the congestion control
// module (Config.CongestionControl, SCTP_PLUGGABLE_CC, which usrsctp.h
// leaves out) and, process-wide, the initial cwnd and cwnd-based max burst
// sysctls (StackTuning).
//
// How it is wired: usrsctp runs without threads of its own
// (usrsctp_init_nothreads) and with the AF_CONN address family, so it never
// touches a real socket. Go owns the wire: a goroutine per UDP socket reads
// datagrams, checks framing and CRC32c (parsePacket; bad ones are counted
// and dropped), and feeds them to usrsctp_conninput; packets usrsctp emits
// come back through a cgo callback and leave through the same UDP socket
// with their CRC32c computed in Go. A goroutine drives the stack's timers
// while sockets exist. Sockets are non-blocking; usrsctp's upcall wakes the
// goroutine waiting to send or receive. Every remote UDP address gets an
// opaque handle that usrsctp uses as its AF_CONN address, never a pointer,
// and handles are never reused.
//
// One stack serves the whole process, so listeners in different network
// namespaces may share an SCTP port (all on :443): each Listener binds a
// port unique in the process and rewrites it to and from its UDP port on the
// wire. Dial connects to the SCTP port equal to the listener's UDP port.
//
// DATA bundled with COOKIE-ECHO (Config.BundleCookieEcho): Dial returns
// right after sending INIT and the first messages are queued, so they leave
// with COOKIE-ECHO: 2 round trips to a response, like TCP. Without it Dial
// waits for COOKIE-ACK, which costs the extra round trip Linux lksctp paid
// (3 round trips). Messages queued before the INIT-ACK use the requested
// stream count; if the peer then offers fewer streams, sends on the missing
// streams fail.
//
// Counters (Assoc.Counters) come from the packets of the association, not
// from usrsctp's per-process statistics: retransmitted DATA chunks split into
// fast (the TSN had been reported missing by 3 SACKs) and timeout ones,
// SACKs each way, bad datagrams, and messages delivered ahead of an earlier
// message of another stream (the head-of-line blocking avoided).
package sctp
