package loader

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

// spdyProto is SPDY/3.1 or SPDY/3 with one session per host, as Chrome's
// SpdySessionPool kept it (or Options.Sessions per host, mux.go): every request to a host becomes a stream of that
// session with the resource type's priority, the client waits when the
// server's MAX_CONCURRENT_STREAMS is reached, and pushed streams are used
// when the page asks for their URL.
type spdyProto struct {
	l       *load
	version string
	ss      *sessions

	mu    sync.Mutex
	conns map[*connection]*spdy.ClientConn
}

func newSPDY(l *load, version string) protocol {
	p := &spdyProto{l: l, version: version, conns: map[*connection]*spdy.ClientConn{}}
	p.ss = newSessions(l, p.open, l.raceConnects())
	return p
}

func (p *spdyProto) open(ctx context.Context, org origin) (*muxSession, error) {
	c, err := p.l.dialer.open(ctx, org, p.version)
	if err != nil {
		return nil, err
	}
	win, session := p.l.opt.windows(spdy.DefaultInitialWindowSize)
	cc, err := spdy.NewClientConn(c.stream, &spdy.ClientConfig{
		Config: spdy.Config{
			Version:            p.version,
			InitialWindowSize:  int32(win),
			SessionWindowSize:  int32(session),
			SPDY2StreamWindows: p.l.opt.SPDY2Windows,
			// SPDY/3 has no session window to move.
			AdaptiveSessionWindow: p.l.opt.AdaptiveWindow && p.version == "spdy/3.1",
		},
		AwaitPeerSettings: p.l.opt.AwaitPeerSettings,
		// Every push is accepted; whether it is used depends on the page
		// asking for its URL.
	})
	if err != nil {
		return nil, c.sessionFailed(ctx, err)
	}
	p.mu.Lock()
	p.conns[c] = cc
	p.mu.Unlock()
	return &muxSession{c: c, rt: cc, close: cc.Close, usable: cc.CanTakeNewRequest}, nil
}

func (p *spdyProto) fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error {
	return muxFetch(ctx, p.l, p.ss, e, func(c context.Context) context.Context {
		return spdy.WithPriority(c, e.priority)
	}, body)
}

// pushed claims a push for e's URL from a session to e's host that exists
// already, if the server pushed the URL on it (with several sessions per
// host, on any of them).
func (p *spdyProto) pushed(e *entry) (*http.Response, *connection, bool) {
	for _, ms := range p.ss.ready(e.url.Hostname()) {
		p.mu.Lock()
		cc := p.conns[ms.c]
		p.mu.Unlock()
		if resp, ok := cc.Pushed(e.url.String()); ok {
			return resp, ms.c, true
		}
	}
	return nil, nil, false
}

// headerBytes adds up the sessions' header blocks in both directions: raw
// is the uncompressed SPDY name/value encoding, compressed what zlib put
// on the wire.
func (p *spdyProto) headerBytes() (raw, compressed int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cc := range p.conns {
		st := cc.Stats()
		raw += st.HeaderBytesSentRaw + st.HeaderBytesReceivedRaw
		compressed += st.HeaderBytesSentCompressed + st.HeaderBytesReceivedCompressed
	}
	return raw, compressed
}

// recvWindows sums up the sessions' adaptive receive windows (nil when
// none had one).
func (p *spdyProto) recvWindows() *probe.RecvWindowSum {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sumRecvWindows(p.conns)
}

func sumRecvWindows(conns map[*connection]*spdy.ClientConn) *probe.RecvWindowSum {
	var sum probe.RecvWindowSum
	for _, cc := range conns {
		if rep := cc.RecvWindow(); rep.On {
			sum.Add(rep.Samples > 0, rep.Lowest)
		}
	}
	if sum.Sessions == 0 {
		return nil
	}
	return &sum
}

func (p *spdyProto) shutdown() { p.ss.shutdown() }
