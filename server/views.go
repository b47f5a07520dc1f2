package server

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
)

// What a repeat view needs from the servers (the harness's view = repeat):
// a count of the handshakes they saw by kind, which shows resumption for
// clients that do not report it (Chromium's DevTools has no field for it),
// and a way to close every connection between the first view and the
// measured one without stopping the listeners or changing the session
// ticket keys, so the client's tickets stay good while its connections
// are gone.

// Handshakes counts completed TLS handshakes (TCP and QUIC) by kind.
type Handshakes struct {
	Full    int
	Resumed int // abbreviated with a session ticket
	// EarlyData are the resumed QUIC handshakes whose 0-RTT the server
	// accepted.
	EarlyData int
	// RoundTrips adds up what each handshake cost before its connection
	// could carry a request, as probe.TLSHandshakes counts them: TLS 1.2
	// full 2, resumed 1; TLS 1.3 and QUIC 1; QUIC with accepted 0-RTT 0.
	RoundTrips int
}

// handshakeLog counts handshakes and remembers the open QUIC connections.
type handshakeLog struct {
	mu   sync.Mutex
	n    Handshakes
	quic map[*quic.Conn]struct{}
}

func (h *handshakeLog) add(st tls.ConnectionState, earlyData bool) {
	if !st.HandshakeComplete {
		return
	}
	rt := 1
	switch {
	case earlyData:
		rt = 0
	case st.Version < tls.VersionTLS13 && !st.DidResume:
		rt = 2
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n.RoundTrips += rt
	switch {
	case st.DidResume:
		h.n.Resumed++
		if earlyData {
			h.n.EarlyData++
		}
	default:
		h.n.Full++
	}
}

// watchQUIC counts c's handshake once it completes and keeps c for
// CloseConnections until it ends. With 0-RTT the connection is handed to
// HTTP/3 before its handshake completes.
func (h *handshakeLog) watchQUIC(c *quic.Conn) {
	h.mu.Lock()
	if h.quic == nil {
		h.quic = map[*quic.Conn]struct{}{}
	}
	h.quic[c] = struct{}{}
	h.mu.Unlock()
	go func() {
		select {
		case <-c.HandshakeComplete():
			st := c.ConnectionState()
			h.add(st.TLS, st.Used0RTT)
		case <-c.Context().Done():
		}
		<-c.Context().Done()
		h.mu.Lock()
		delete(h.quic, c)
		h.mu.Unlock()
	}()
}

// TakeHandshakes returns the handshakes completed since the last call and
// starts counting afresh.
func (s *Server) TakeHandshakes() Handshakes {
	s.handshakes.mu.Lock()
	defer s.handshakes.mu.Unlock()
	n := s.handshakes.n
	s.handshakes.n = Handshakes{}
	return n
}

// CloseConnections closes every open TCP connection and QUIC connection
// (CONNECTION_CLOSE with H3_NO_ERROR) and keeps serving: the next request
// of a client needs a new connection, which may resume its session.
func (s *Server) CloseConnections() {
	s.mu.Lock()
	tcp := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		tcp = append(tcp, c)
	}
	s.mu.Unlock()
	for _, c := range tcp {
		c.Close()
	}
	s.handshakes.mu.Lock()
	qc := make([]*quic.Conn, 0, len(s.handshakes.quic))
	for c := range s.handshakes.quic {
		qc = append(qc, c)
	}
	s.handshakes.mu.Unlock()
	const h3NoError = 0x100
	for _, c := range qc {
		// A browser reopens an h3 connection to a host as soon as it sees
		// its old one closed (Chromium, now and then), resuming with the
		// host's single-use ticket: closing that one mid-handshake would
		// spend the ticket without giving a new one, and the measured view
		// would then handshake in full. Let it finish and send its ticket.
		select {
		case <-c.HandshakeComplete():
			time.Sleep(ticketSendWait)
		case <-time.After(handshakeFinishWait):
		}
		c.CloseWithError(h3NoError, "")
	}
}

// handshakeFinishWait bounds the wait for an h3 handshake to finish before
// its connection is closed between views; ticketSendWait is the time
// after it for the server to send the session ticket ahead of the close.
const (
	handshakeFinishWait = 2 * time.Second
	ticketSendWait      = 50 * time.Millisecond
)

// quicConnContext is the HTTP/3 server's ConnContext: the connection's
// requests carry the protocol, and its handshake is counted.
func (s *Server) quicConnContext(ctx context.Context, c *quic.Conn) context.Context {
	s.handshakes.watchQUIC(c)
	return context.WithValue(ctx, protoKey{}, ProtoH3)
}

// OpenConnections counts the TCP and QUIC connections the server has not
// closed yet.
func (s *Server) OpenConnections() int {
	s.mu.Lock()
	n := len(s.conns)
	s.mu.Unlock()
	s.handshakes.mu.Lock()
	defer s.handshakes.mu.Unlock()
	return n + len(s.handshakes.quic)
}
