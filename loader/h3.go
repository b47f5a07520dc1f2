package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/spdylab/spdylab/h3"
	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// h3Proto is HTTP/3 with one QUIC connection per host, each over its own
// UDP socket (made by Options.ListenPacket, so inside a testbed's client
// namespace), as Chrome holds one QUIC session per origin. Requests carry
// RFC 9218 priorities; there is no server push (quic-go has none).
//
// Windows: like SPDY's and h2's, the receive windows are
// Options.windows'; both are fixed, because quic-go's auto-tuning would
// otherwise grow them and the studied window would not be the window.
type h3Proto struct {
	l     *load
	ss    *sessions
	count h3.Counter // UDP payload bytes of every connection, moved to l.wire on close
}

// maxQUICHandshake is how long Chrome lets a QUIC handshake run
// (kMaxTimeForCryptoHandshakeSecs); a shorter load timeout halves it so that
// a handshake that never completes fails the load with that reason rather
// than with the load's timeout.
const maxQUICHandshake = 10 * time.Second

func newH3(l *load) *h3Proto {
	p := &h3Proto{l: l}
	p.ss = newSessions(l, p.open, 0)
	return p
}

func (p *h3Proto) open(ctx context.Context, org origin) (*muxSession, error) {
	l := p.l
	c, udp, pc, err := l.udpSocketTo(ctx, org, "QUIC", "udp")
	if err != nil {
		return nil, err
	}
	win, session := l.opt.windows(defaultWindow)
	qc, err := h3.Dial(ctx, pc, udp, h3.Config{
		TLS: &tls.Config{
			ServerName:         org.Host,
			RootCAs:            l.opt.RootCAs,
			InsecureSkipVerify: l.opt.RootCAs == nil,
			ClientSessionCache: l.sessions,
		},
		EarlyData:        l.opt.EarlyData && l.sessions != nil,
		HandshakeTimeout: min(l.opt.Timeout/2, maxQUICHandshake),
		StreamWindow:     uint64(win),
		ConnWindow:       uint64(session),
		Counter:          &p.count,
	})
	if err != nil {
		p.moveCounts()
		return nil, fmt.Errorf("%s (%s): %w", org.Host, udp, err)
	}
	hs := qc.Handshake()
	c.ready = hs.Ready
	c.connectDur = hs.Ready.Sub(hs.Start)
	c.sslDur = c.connectDur // QUIC's handshake is TLS's: HAR counts ssl inside connect
	c.raw = &quicHandle{q: qc, close: func() {
		<-qc.HandshakeDone() // ends at once when the connection is closed
		l.hs.quic(qc.Handshake())
		p.moveCounts()
	}}
	if !l.track(c) { // the load was cancelled while dialling
		c.Close()
		return nil, context.Cause(ctx)
	}
	l.throttle.hostMultiplexes(org.Host)
	// A connection that went idle past QUIC's idle timeout (a long page:
	// scripts that request late) is replaced, as Chrome replaces it.
	return &muxSession{c: c, rt: priorityTransport{c: qc, policy: l.opt.Priority}, close: c.Close, usable: qc.Alive}, nil
}

// moveCounts adds the bytes counted so far to the load's wire totals.
func (p *h3Proto) moveCounts() {
	p.l.wire.in.Add(p.count.In.Swap(0))
	p.l.wire.out.Add(p.count.Out.Swap(0))
}

// udpSocketTo resolves org, starts its connection record and opens the
// local UDP socket a datagram transport (QUIC, SCTP over UDP) dials from;
// what names the transport in errors.
func (l *load) udpSocketTo(ctx context.Context, org origin, what, network string) (*connection, *net.UDPAddr, net.PacketConn, error) {
	c := &connection{host: org.Host, start: time.Now(), dns: -1}
	addr, dnsDur, err := l.resolver.resolve(ctx, org.Dial)
	if err != nil {
		return nil, nil, nil, err
	}
	c.dns = dnsDur
	udp, err := udpAddr(ctx, addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s to %s: %w", what, org.Host, err)
	}
	c.remoteIP = udp.IP.String()
	listen := l.opt.ListenPacket
	if listen == nil {
		listen = net.ListenPacket
	}
	pc, err := listen(network, ":0")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s to %s: opening a UDP socket: %w", what, org.Host, err)
	}
	return c, udp, pc, nil
}

// udpAddr turns "host:port" (an address, or a name when the load has no
// DNS phase) into a UDP address.
func udpAddr(ctx context.Context, hostport string) (*net.UDPAddr, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", port, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ips, lerr := net.DefaultResolver.LookupNetIP(ctx, "ip4", host)
		if lerr != nil {
			return nil, lerr
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("%s has no IPv4 address", host)
		}
		ip = ips[0]
	}
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(ip.Unmap(), uint16(pn))), nil
}

func (p *h3Proto) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	return muxFetch(ctx, p.l, p.ss, e, func(c context.Context) context.Context {
		return context.WithValue(c, h3EntryKey{}, e)
	}, body)
}

func (p *h3Proto) pushed(*entry) (*http.Response, *connection, bool) { return nil, nil, false }

// headerBytes: QPACK's output is inside quic-go's encrypted streams and
// not exposed, so h3 reports no header byte counts (0, 0).
func (p *h3Proto) headerBytes() (int64, int64) { return 0, 0 }

func (p *h3Proto) shutdown() { p.ss.shutdown() }

// h3EntryKey carries the entry a request belongs to, so that the transport
// can add its priority.
type h3EntryKey struct{}

// priorityTransport adds the RFC 9218 Priority header before a request
// leaves, and records it among the entry's request headers for the HAR.
type priorityTransport struct {
	c      *h3.Conn
	policy string // Options.Priority
}

func (t priorityTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if e, ok := req.Context().Value(h3EntryKey{}).(*entry); ok {
		v := priorityField(e.priority, t.policy != probe.PriorityNone && incremental(e.typ))
		req = req.Clone(req.Context())
		req.Header.Set("Priority", v)
		e.mu.Lock()
		e.reqHeaders = append(e.reqHeaders, har.NameValue{Name: "Priority", Value: v})
		e.mu.Unlock()
	}
	return t.c.RoundTrip(req)
}

// priorityField is the Priority header of a request: the urgency is the
// request's priority under the load's policy (the one the SPDY and HTTPS
// paths use, so every protocol ranks resources alike), with ", i" for an
// incremental response.
func priorityField(prio uint8, incr bool) string {
	u := min(prio, 7)
	v := "u=" + strconv.Itoa(int(u))
	if incr {
		v += ", i"
	}
	return v
}

// incremental: documents and images are, as Chrome marks them (they
// render as they arrive, so sharing bandwidth with their peers costs
// nothing). Under probe.PriorityNone no request is: every one carries the
// same u=3.
func incremental(typ string) bool { return typ == page.TypeHTML || typ == page.TypeImage }

// quicHandle stands in for a QUIC connection where the loader keeps a
// connection's socket: it only closes. A QUIC connection is no byte stream,
// so Read and Write fail, and it reports no TCP_INFO.
type quicHandle struct {
	q     *h3.Conn
	close func() // after the connection closed: record the handshake, move byte counts
	once  sync.Once
}

var errNotAStream = errors.New("loader: a QUIC connection is not a byte stream")

func (h *quicHandle) Close() error {
	var err error
	h.once.Do(func() {
		err = h.q.Close()
		h.close()
	})
	return err
}

func (h *quicHandle) Read([]byte) (int, error)         { return 0, errNotAStream }
func (h *quicHandle) Write([]byte) (int, error)        { return 0, errNotAStream }
func (h *quicHandle) LocalAddr() net.Addr              { return h.q.LocalAddr() }
func (h *quicHandle) RemoteAddr() net.Addr             { return h.q.RemoteAddr() }
func (h *quicHandle) SetDeadline(time.Time) error      { return errNotAStream }
func (h *quicHandle) SetReadDeadline(time.Time) error  { return errNotAStream }
func (h *quicHandle) SetWriteDeadline(time.Time) error { return errNotAStream }
