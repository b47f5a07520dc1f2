package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
)

// wireCounter counts TCP payload bytes (TLS records included) for one load.
type wireCounter struct {
	in, out atomic.Int64
}

// countingConn sits below TLS so that it sees exactly what crosses the
// socket. NetConn lets tcpopt.Unwrap reach the *net.TCPConn for TCP_INFO.
type countingConn struct {
	net.Conn
	w *wireCounter
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.out.Add(int64(n))
	return n, err
}

func (c *countingConn) NetConn() net.Conn { return c.Conn }

// origin is one shard host of the page: the name the page uses and where
// its server actually listens.
type origin struct {
	Host  string // as in the manifest and the page's URLs, e.g. s1.spdylab.test
	Dial  string // host:port to connect to (before name resolution)
	Port  string
	Plain bool // http:// base URL: plaintext TCP (see plain.go)
}

func parseOrigin(host, base string) (origin, error) {
	u, err := url.Parse(base)
	if err != nil {
		return origin{}, fmt.Errorf("base URL %q of host %s: %w", base, host, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return origin{}, fmt.Errorf("base URL %q of host %s: scheme must be https (or http for plaintext)", base, host)
	}
	if u.Hostname() == "" {
		return origin{}, fmt.Errorf("base URL %q of host %s has no host", base, host)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return origin{Host: host, Dial: net.JoinHostPort(u.Hostname(), port), Port: port, Plain: u.Scheme == "http"}, nil
}

// resolver performs at most one lookup per host name per load, like a
// browser's host cache that starts empty; connections that need a name
// already being looked up wait for the same answer.
type resolver struct {
	r  *net.Resolver
	mu sync.Mutex
	m  map[string]*lookup
}

type lookup struct {
	done chan struct{}
	addr string
	err  error
}

// resolve returns the address to dial for hostport. When the host is an IP
// address or no resolver is configured there is no DNS phase (dnsDur -1).
func (r *resolver) resolve(ctx context.Context, hostport string) (addr string, dnsDur time.Duration, err error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", -1, err
	}
	if r.r == nil {
		return hostport, -1, nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return hostport, -1, nil
	}
	start := time.Now()
	r.mu.Lock()
	l, ok := r.m[host]
	if !ok {
		l = &lookup{done: make(chan struct{})}
		r.m[host] = l
		go func() {
			defer close(l.done)
			// IPv4 only, as the studies' testbeds (and netem's) are.
			addrs, err := r.r.LookupNetIP(ctx, "ip4", host)
			if err != nil {
				l.err = fmt.Errorf("DNS lookup of %s: %w", host, err)
				return
			}
			if len(addrs) == 0 {
				l.err = fmt.Errorf("DNS lookup of %s: no addresses", host)
				return
			}
			l.addr = addrs[0].Unmap().String()
		}()
	}
	r.mu.Unlock()
	select {
	case <-l.done:
	case <-ctx.Done():
		return "", -1, ctx.Err()
	}
	if l.err != nil {
		return "", -1, l.err
	}
	return net.JoinHostPort(l.addr, port), time.Since(start), nil
}

// connection is one TCP+TLS connection of a load with the timing of how it
// was set up, which the first request sent on it reports in its HAR entry.
type connection struct {
	id       int
	host     string
	raw      net.Conn // below TLS (as dialled)
	stream   net.Conn // what the protocol reads and writes: the TLS conn, or raw in plaintext
	remoteIP string

	start      time.Time     // the connection was asked for (DNS begins)
	dns        time.Duration // -1 = no lookup
	connectDur time.Duration // TCP + TLS
	sslDur     time.Duration
	ready      time.Time
	firstUsed  atomic.Bool // the first request on it claims the setup phases
	abandoned  atomic.Bool // lost a race for its host's session (RaceConnects)

	closeOnce sync.Once
}

// Close closes the socket. It skips TLS's close_notify on purpose: the load
// is over or aborted, and close_notify can block for seconds on a peer
// that does not read.
func (c *connection) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.raw.Close() })
	return err
}

// noteLostRace marks c abandoned if ctx ended because another connection
// won its host's session: such a connection is left out of the load's
// counts, however late it notices.
func (c *connection) noteLostRace(ctx context.Context) {
	if errors.Is(context.Cause(ctx), errLostRace) {
		c.abandoned.Store(true)
	}
}

// sessionFailed closes c, on which no session could be set up after its
// handshake, and names the host in err. A racing connection that fails
// here because it lost is counted out like any other loser.
func (c *connection) sessionFailed(ctx context.Context, err error) error {
	c.noteLostRace(ctx)
	c.Close()
	return fmt.Errorf("setting up a session with %s: %w", c.host, err)
}

// claimSetup reports whether this request is the first on the connection and
// so carries its dns/connect/ssl phases.
func (c *connection) claimSetup() bool { return c.firstUsed.CompareAndSwap(false, true) }

// dialer opens the connections of one load.
type dialer struct {
	l    *load
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func newDialer(l *load, o Options) *dialer {
	d := &dialer{l: l, dial: o.Dial}
	if d.dial == nil {
		nd := &net.Dialer{}
		if cc := o.CC; cc != "" {
			nd.Control = func(network, address string, rc syscall.RawConn) error {
				var setErr error
				if err := rc.Control(func(fd uintptr) { setErr = tcpopt.SetCongestionFD(fd, cc) }); err != nil {
					return err
				}
				return setErr
			}
		}
		d.dial = nd.DialContext
	}
	return d
}

// open dials o, performs the TLS handshake offering alpn, and registers the
// connection with the load so that it is closed (and its TCP_INFO read) at
// the end. The handshake must pick alpn exactly.
func (d *dialer) open(ctx context.Context, o origin, alpn string) (*connection, error) {
	l := d.l
	c := &connection{host: o.Host, start: time.Now(), dns: -1}
	addr, dnsDur, err := l.resolver.resolve(ctx, o.Dial)
	if err != nil {
		return nil, err
	}
	c.dns = dnsDur
	tcpStart := time.Now()
	raw, err := d.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s (%s): %w", o.Host, addr, err)
	}
	if ap, err := netip.ParseAddrPort(raw.RemoteAddr().String()); err == nil {
		c.remoteIP = ap.Addr().Unmap().String()
	}
	c.raw = &countingConn{Conn: raw, w: &l.wire}
	if !l.track(c) { // the load was cancelled while dialling
		raw.Close()
		return nil, context.Cause(ctx)
	}
	if o.Plain {
		c.plainReady(tcpStart)
		return c, nil
	}
	cfg := l.tlsConfig(o.Host, alpn)
	tc := tls.Client(c.raw, cfg)
	sslStart := time.Now()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.noteLostRace(ctx)
		if strings.Contains(err.Error(), "no application protocol") {
			return nil, fmt.Errorf("TLS handshake with %s (%s): the server did not negotiate %s by ALPN: %w", o.Host, addr, alpn, err)
		}
		return nil, fmt.Errorf("TLS handshake with %s (%s): %w", o.Host, addr, err)
	}
	c.stream = tc
	c.ready = time.Now()
	l.hs.tcp(tc.ConnectionState())
	c.sslDur = c.ready.Sub(sslStart)
	c.connectDur = c.ready.Sub(tcpStart)
	if got := tc.ConnectionState().NegotiatedProtocol; got != alpn && !(alpn == "http/1.1" && got == "") {
		return nil, fmt.Errorf("server %s (%s) did not negotiate %s by ALPN (it chose %q)", o.Host, addr, alpn, got)
	}
	l.throttle.hostMultiplexes(o.Host) // no-op unless the load's protocol multiplexes
	return c, nil
}

// tlsVersion maps Options.TLSVersion to crypto/tls constants.
func tlsVersion(v string) (uint16, error) {
	return probe.ParseTLSVersion(v)
}

func (l *load) tlsConfig(host, alpn string) *tls.Config {
	cfg := &tls.Config{
		ServerName:         host,
		NextProtos:         append([]string{alpn}, helloPadProtocols(l.opt.HelloPadding)...),
		MinVersion:         l.tlsVer,
		MaxVersion:         l.tlsVer,
		RootCAs:            l.opt.RootCAs,
		InsecureSkipVerify: l.opt.RootCAs == nil,
		// A load starts cold, as after clearing the browser's state (full
		// handshakes), unless the options ask for resumption.
		SessionTicketsDisabled: l.sessions == nil,
		ClientSessionCache:     l.sessions,
		CipherSuites:           probe.TLSCipherSuites(l.opt.TLSKx),
	}
	return cfg
}

// tcpInfos reads TCP_INFO of every connection; called before they close.
func (l *load) tcpInfos() []probe.TCPInfo {
	l.mu.Lock()
	conns := append([]*connection(nil), l.conns...)
	l.mu.Unlock()
	var out []probe.TCPInfo
	for _, c := range conns {
		ti, err := tcpopt.Info(c.raw)
		if err != nil {
			continue // not a TCP socket (a test's pipe) or already gone
		}
		info := TCPInfoOf(c.id, c.host, ti)
		// The local port is what the server's record of this connection
		// names as its peer: the two sides' records match by it.
		info.Local, info.Peer = c.raw.LocalAddr().String(), c.raw.RemoteAddr().String()
		out = append(out, info)
	}
	return out
}

// counted keeps the TCP_INFO of the connections the result counts: a
// connection that lost a race for its host's session may still have been
// open when tcp was read, and is known to have lost only once every
// goroutine of the load has ended.
func (l *load) counted(tcp []probe.TCPInfo) []probe.TCPInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := map[int]bool{}
	for _, c := range l.conns {
		if c.abandoned.Load() {
			lost[c.id] = true
		}
	}
	return slices.DeleteFunc(tcp, func(ti probe.TCPInfo) bool { return lost[ti.ConnID] })
}

// TCPInfoOf is the one copy of tcpopt's TCP_INFO into the lab's record of
// connection id to host (the loader's connections and, through the
// harness, the servers').
func TCPInfoOf(id int, host string, ti tcpopt.TCPInfo) probe.TCPInfo {
	info := probe.TCPInfo{
		ConnID:       id,
		Host:         host,
		Retransmits:  ti.Retransmits,
		SegsOut:      ti.SegsOut,
		SegsIn:       ti.SegsIn,
		SndCwnd:      ti.SndCwnd,
		SndSsthresh:  ti.SndSsthresh,
		RTTms:        ti.RTTms,
		RTTVarms:     ti.RTTVarms,
		BytesAcked:   ti.BytesAcked,
		BytesRecv:    ti.BytesRecv,
		BytesSent:    ti.BytesSent,
		BytesRetrans: ti.BytesRetrans,
		RTOs:         ti.RTOs,
		RTOTimems:    ti.RTOTimems,
		CongestionCC: ti.Congestion,
	}
	if pacingCapped(ti.MaxPacingRate) { // the pacing knob's evidence
		info.PacingCap, info.PacingRate = ti.MaxPacingRate, ti.PacingRate
	}
	return info
}

// pacingCapped tells a set SO_MAX_PACING_RATE from the unset ~0 (~0UL on
// 64-bit kernels, ~0U on 32-bit ones; 0 from kernels without the field).
func pacingCapped(max uint64) bool {
	return max != 0 && max != ^uint64(0) && max != math.MaxUint32
}

var errLoadDone = errors.New("load finished")

func itoa(i int) string { return strconv.Itoa(i) }
