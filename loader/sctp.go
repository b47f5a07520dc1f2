package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/spdy"
)

// SPDY over SCTP (probe.ProtoSPDY31SCTP): one association per host, each on
// its own UDP socket from Options.ListenPacket, carrying one SPDY/3.1
// session with the 2011 study's mapping (spdy.NewClientConnSCTP). It is
// plaintext; the base URL (http://) names the server's UDP port. HAR
// connect is the association's setup (INIT .. COOKIE-ACK, or until INIT
// left when DATA is bundled with COOKIE-ECHO: then the first request pays
// the rest of the handshake in its wait phase, as it does on the wire).

// SCTPTransport is the one mapping of a condition's SCTP knobs onto the
// association and the session; the loader's associations and the servers'
// listeners both use it (each end reads its own).
func SCTPTransport(k probe.SCTP) (sctp.Config, spdy.SCTPOptions) {
	k = k.WithDefaults()
	cfg := sctp.Config{
		RTOMin:            k.RTOMin,
		RTOInitial:        k.RTOInitial,
		SendBuffer:        k.Buffer,
		ReceiveBuffer:     k.Buffer,
		MaxBurst:          sctp.MaxBurstUnlimited, // the study's "very large" max burst
		SACKEveryPacket:   true,                   // the study turned delayed SACK off
		OutboundStreams:   k.Streams,
		InboundStreams:    k.Streams,
		BundleCookieEcho:  !k.NoBundleCookie,
		CongestionControl: k.CongestionControl,
	}
	return cfg, spdy.SCTPOptions{ControlStream: !k.NoControlStream}
}

// SCTPFrameSize is the largest DATA payload sent in one SPDY frame over
// SCTP. A frame is one SCTP message; 4 KiB messages (three packets) let the
// association interleave streams and a lost packet hold back only 4 KiB of
// its stream, where 16 KiB frames (the TLS-record size TCP uses) made
// every loss stall a whole 12-packet message.
const SCTPFrameSize = 4096

type sctpProto struct {
	l  *load
	ss *sessions

	mu       sync.Mutex
	sessions map[*connection]*spdy.ClientConn
	assocs   []*sctp.Assoc
}

func newSPDYSCTP(l *load) *sctpProto {
	p := &sctpProto{l: l, sessions: map[*connection]*spdy.ClientConn{}}
	p.ss = newSessions(l, p.open, 0)
	return p
}

func (p *sctpProto) open(ctx context.Context, org origin) (*muxSession, error) {
	l := p.l
	c, udp, pc, err := l.udpSocketTo(ctx, org, "SCTP", "udp4")
	if err != nil {
		return nil, err
	}
	cfg, opt := SCTPTransport(l.opt.SCTP)
	setup := time.Now()
	a, err := sctp.Dial(ctx, pc, udp, cfg) // owns pc from here on
	if err != nil {
		return nil, fmt.Errorf("SCTP association with %s (%s): %w", org.Host, udp, err)
	}
	c.ready = time.Now()
	c.connectDur = c.ready.Sub(setup)
	c.raw = &assocHandle{a: a}
	p.mu.Lock()
	p.assocs = append(p.assocs, a)
	p.mu.Unlock()
	if !l.track(c) { // the load was cancelled while dialling
		c.Close()
		return nil, context.Cause(ctx)
	}
	win, session := l.opt.windows(spdy.DefaultInitialWindowSize)
	cc, err := spdy.NewClientConnSCTP(a, &spdy.ClientConfig{Config: spdy.Config{
		Version:           spdy.ProtoSPDY31,
		InitialWindowSize: int32(win),
		SessionWindowSize: int32(session),
		MaxFrameSize:      SCTPFrameSize,
		// Its PINGs see the association's queue as they do a TCP one's.
		AdaptiveSessionWindow: l.opt.AdaptiveWindow,
	}, AwaitPeerSettings: l.opt.AwaitPeerSettings}, opt)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.sessions[c] = cc
	p.mu.Unlock()
	return &muxSession{c: c, rt: cc, close: cc.Close}, nil
}

func (p *sctpProto) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	return muxFetch(ctx, p.l, p.ss, e, func(c context.Context) context.Context {
		return spdy.WithPriority(c, e.priority)
	}, body)
}

// pushed: the SCTP comparison runs without server push (the study's did).
func (p *sctpProto) pushed(*entry) (*http.Response, *connection, bool) { return nil, nil, false }

func (p *sctpProto) headerBytes() (raw, compressed int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cc := range p.sessions {
		st := cc.Stats()
		raw += st.HeaderBytesSentRaw + st.HeaderBytesReceivedRaw
		compressed += st.HeaderBytesSentCompressed + st.HeaderBytesReceivedCompressed
	}
	return raw, compressed
}

// recvWindows sums up the sessions' adaptive receive windows.
func (p *sctpProto) recvWindows() *probe.RecvWindowSum {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sumRecvWindows(p.sessions)
}

func (p *sctpProto) shutdown() { p.ss.shutdown() }

// transportCounters sums the client associations' counters and moves
// their SCTP packet bytes into the load's wire totals (the harness adds
// the servers' side).
func (p *sctpProto) transportCounters() *probe.SCTPCounters {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := &probe.SCTPCounters{Associations: len(p.assocs)}
	for _, a := range p.assocs {
		c := a.Counters()
		out.Client.Add(SCTPEndpointCounters(c))
		p.l.wire.in.Add(int64(c.BytesReceived))
		p.l.wire.out.Add(int64(c.BytesSent))
	}
	return out
}

// SCTPEndpointCounters converts one association's counters.
func SCTPEndpointCounters(c sctp.Counters) probe.SCTPEndpoint {
	return probe.SCTPEndpoint{
		PacketsSent: c.PacketsSent, PacketsReceived: c.PacketsReceived, DataChunksSent: c.DataChunksSent,
		Retransmissions: c.Retransmissions, FastRetransmissions: c.FastRetransmissions,
		TimeoutRetransmissions: c.TimeoutRetransmissions,
		SACKsSent:              c.SACKsSent, SACKsReceived: c.SACKsReceived, MessagesOvertaken: c.MessagesOvertaken,
	}
}

// assocHandle stands in for an association where the loader keeps a
// connection's socket. Closing it aborts the association: after a complete
// load the session has already closed it gracefully (GOAWAY, SHUTDOWN), so
// this only cuts associations of a failed or cancelled load, at once. It
// is no byte stream and has no TCP_INFO.
type assocHandle struct {
	a    *sctp.Assoc
	once sync.Once
}

var errNotByteStream = errors.New("loader: an SCTP association is not a byte stream")

func (h *assocHandle) Close() error {
	var err error
	h.once.Do(func() { err = h.a.Abort() })
	return err
}

func (h *assocHandle) Read([]byte) (int, error)         { return 0, errNotByteStream }
func (h *assocHandle) Write([]byte) (int, error)        { return 0, errNotByteStream }
func (h *assocHandle) LocalAddr() net.Addr              { return h.a.LocalAddr() }
func (h *assocHandle) RemoteAddr() net.Addr             { return h.a.RemoteAddr() }
func (h *assocHandle) SetDeadline(time.Time) error      { return errNotByteStream }
func (h *assocHandle) SetReadDeadline(time.Time) error  { return errNotByteStream }
func (h *assocHandle) SetWriteDeadline(time.Time) error { return errNotByteStream }
