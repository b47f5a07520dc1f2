package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// ProtoH3 is HTTP/3's ALPN token. h3 is served over UDP by ServeH3, never
// offered on the TLS/TCP listener.
const ProtoH3 = "h3"

// H3Config are the HTTP/3 (QUIC) settings of ServeH3.
//
// What the lab's TCP knobs mean for h3: QUIC's congestion control lives in
// quic-go, not in the kernel, so Config.CC and the testbed's cc/iw/initrwnd
// factors do not apply. quic-go v0.65 hard-wires NewReno with pacing and
// an initial congestion window of 32 packets (at first 1280-byte datagrams,
// about 40 KB), and exposes neither the algorithm nor the initial window:
// the server reports them (H3Sender) rather than pretending to set them.
type H3Config struct {
	// MaxStreams caps the request streams a client may have open at once
	// (QUIC MAX_STREAMS for bidirectional streams); 0 = 100, as for SPDY/h2.
	MaxStreams int64
	// StreamWindow is the initial per-stream receive window (request
	// bodies); 0 = quic-go's 512 KiB. ConnWindow the connection's; 0 =
	// quic-go's 512 KiB. When set, the window is fixed (no auto-tuning), the
	// way SPDY and h2 windows are.
	StreamWindow, ConnWindow uint64
	// IdleTimeout closes a QUIC connection without packets for this long
	// (the minimum of both peers' values applies); 0 = 30 s.
	IdleTimeout time.Duration
	// Reject0RTT makes the server resume sessions but refuse early data
	// (as a server whose replay protection declines it does): a client that
	// sent requests in 0-RTT must send them again after the handshake.
	// By default early data is accepted.
	Reject0RTT bool
}

// H3Sender describes quic-go's sender, which the lab cannot change.
const H3Sender = "quic-go NewReno with pacing, initial window 32 packets (quic-go v0.65 exposes neither)"

// defaultH3Streams matches the SPDY and h2 default of 100 concurrent streams.
const defaultH3Streams = 100

// h3UniStreams bounds the unidirectional streams a client may open: HTTP/3
// needs three (control, QPACK encoder and decoder); the rest is slack for
// extensions, not an invitation to hold server memory.
const h3UniStreams = 8

// h3Servers tracks the HTTP/3 servers started by ServeH3 so that Shutdown
// reaches them.
type h3Servers struct {
	mu      sync.Mutex
	servers map[*http3.Server]struct{}
	closed  bool
}

// ServeH3 serves HTTP/3 on pc (a UDP socket, normally on the same port
// number as the TLS listener) with the same handler as the other protocols,
// TLS 1.3 and the server's certificate. Server push does not exist for h3
// (quic-go implements none), so the push policy does not apply. It returns
// http.ErrServerClosed after Shutdown; pc is closed when it returns.
func (s *Server) ServeH3(pc net.PacketConn) error {
	defer pc.Close()
	srv, err := s.newH3Server()
	if err != nil {
		return err
	}
	if !s.h3.add(srv) {
		return http.ErrServerClosed
	}
	err = srv.Serve(pc)
	if errors.Is(err, quic.ErrServerClosed) {
		err = http.ErrServerClosed
	}
	return err
}

func (s *Server) newH3Server() (*http3.Server, error) {
	if s.tls == nil {
		return nil, errors.New("server: h3 needs TLS, and this server serves plain-TCP SPDY")
	}
	h := s.cfg.H3
	if h.MaxStreams < 0 {
		return nil, fmt.Errorf("server: h3 max streams %d is negative", h.MaxStreams)
	}
	if h.IdleTimeout < 0 {
		return nil, fmt.Errorf("server: h3 idle timeout %v is negative", h.IdleTimeout)
	}
	tc := s.tls.Clone()
	tc.MinVersion = tls.VersionTLS13
	tc.MaxVersion = tls.VersionTLS13
	tc.NextProtos = []string{ProtoH3}
	if h.Reject0RTT {
		// Decrypt the ticket as crypto/tls would, then refuse its early
		// data: the session still resumes (1-RTT), the 0-RTT packets are
		// discarded and the client learns so from the handshake.
		tc.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
			ss, err := tc.DecryptTicket(identity, cs)
			if ss != nil {
				ss.EarlyData = false
			}
			return ss, err
		}
	}
	streams := h.MaxStreams
	if streams == 0 {
		streams = defaultH3Streams
	}
	qc := &quic.Config{
		HandshakeIdleTimeout:  s.cfg.HandshakeTimeout,
		MaxIdleTimeout:        h.IdleTimeout,
		MaxIncomingStreams:    streams,
		MaxIncomingUniStreams: h3UniStreams,
		Allow0RTT:             true, // tickets allow early data; Reject0RTT refuses it per handshake
	}
	if h.StreamWindow > 0 {
		qc.InitialStreamReceiveWindow, qc.MaxStreamReceiveWindow = h.StreamWindow, h.StreamWindow
	}
	if h.ConnWindow > 0 {
		qc.InitialConnectionReceiveWindow, qc.MaxConnectionReceiveWindow = h.ConnWindow, h.ConnWindow
	}
	srv := &http3.Server{
		TLSConfig:      tc,
		QUICConfig:     qc,
		Handler:        s,
		MaxHeaderBytes: http.DefaultMaxHeaderBytes,
		IdleTimeout:    2 * time.Minute, // as the TCP listener's
		ConnContext:    s.quicConnContext,
	}
	if s.cfg.Log != nil {
		srv.Logger = slog.New(slog.NewTextHandler(logWriter{s.cfg.Log}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return srv, nil
}

// logWriter sends slog's lines to the server's log.Logger.
type logWriter struct{ l *log.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Print(string(p))
	return len(p), nil
}

// add registers srv unless the server is shutting down.
func (h *h3Servers) add(srv *http3.Server) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.servers == nil {
		h.servers = map[*http3.Server]struct{}{}
	}
	h.servers[srv] = struct{}{}
	return true
}

// shutdown sends GOAWAY on every h3 connection and waits for them until
// ctx is done, then closes what is left. No server may be added afterwards.
func (h *h3Servers) shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	var all []*http3.Server
	for srv := range h.servers {
		all = append(all, srv)
	}
	h.mu.Unlock()
	var errs []error
	for _, srv := range all {
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
