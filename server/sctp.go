package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/spdy"
)

// SPDY over SCTP: ServeSCTP accepts associations on an SCTP listener (SCTP
// over UDP, package sctp) and runs one SPDY/3.1 session on each with the
// 2011 study's stream mapping. It is plaintext by design (the study's
// server ran SPDY without TLS); push, limits and windows are the server's
// SPDY settings, with DATA frames of at most SCTPFrameSize bytes.

// SCTPFrameSize is the largest DATA payload of a SPDY frame sent over
// SCTP, unless Config.SPDY.MaxFrameSize asks for less. Every frame is one
// SCTP message: 4 KiB messages (three packets) let the association
// interleave streams and keep what one lost packet holds back small.
const SCTPFrameSize = 4096

// sctpServed tracks the associations a server accepted, for their
// counters (TakeSCTPCounters).
type sctpServed struct {
	mu     sync.Mutex
	assocs []*sctp.Assoc // accepted since the last TakeSCTPCounters
}

// maxTrackedAssocs bounds the associations remembered for their counters.
const maxTrackedAssocs = 4096

// ServeSCTP serves SPDY/3.1 over SCTP on l until Shutdown (it returns
// http.ErrServerClosed then) or an accept error. l is closed when it
// returns.
func (s *Server) ServeSCTP(l *sctp.Listener, opt spdy.SCTPOptions) error {
	defer l.Close()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	cfg := s.cfg.SPDY
	cfg.Version = ProtoSPDY31
	if cfg.MaxFrameSize == 0 || cfg.MaxFrameSize > SCTPFrameSize {
		cfg.MaxFrameSize = SCTPFrameSize
	}
	srv := &spdy.Server{Config: cfg, Handler: withProtocol(ProtoSPDY31, s),
		AdmitStream: s.admitStream}
	stop := context.AfterFunc(s.ctx, func() { l.Close() }) // Shutdown ends Accept
	defer stop()
	var sessions sync.WaitGroup
	defer sessions.Wait()
	for {
		a, err := l.Accept()
		if err != nil {
			if s.ctx.Err() != nil {
				return http.ErrServerClosed
			}
			return err
		}
		s.sctp.mu.Lock()
		if len(s.sctp.assocs) >= maxTrackedAssocs {
			// Nobody takes the counters (a long `spdylab serve`): keep
			// the newest half rather than every association ever served.
			s.sctp.assocs = append(s.sctp.assocs[:0], s.sctp.assocs[maxTrackedAssocs/2:]...)
		}
		s.sctp.assocs = append(s.sctp.assocs, a)
		s.sctp.mu.Unlock()
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			defer a.Close()
			err := srv.ServeSCTP(withConnRequests(s.ctx), a, opt)
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, context.Canceled) {
				s.logf("%s: spdy/3.1 over SCTP: %v", a.RemoteAddr(), err)
			}
		}()
	}
}

// TakeSCTPCounters returns the counters of every association accepted
// since the last call, summed, with their number, and forgets them. The
// harness calls it after each load: the server's side (it sends most of
// the data, so most retransmissions are its own) beside the loader's.
func (s *Server) TakeSCTPCounters() (n int, sum sctp.Counters) {
	s.sctp.mu.Lock()
	assocs := s.sctp.assocs
	s.sctp.assocs = nil
	s.sctp.mu.Unlock()
	for _, a := range assocs {
		c := a.Counters()
		sum.PacketsSent += c.PacketsSent
		sum.PacketsReceived += c.PacketsReceived
		sum.BytesSent += c.BytesSent
		sum.BytesReceived += c.BytesReceived
		sum.DataChunksSent += c.DataChunksSent
		sum.DataChunksReceived += c.DataChunksReceived
		sum.Retransmissions += c.Retransmissions
		sum.FastRetransmissions += c.FastRetransmissions
		sum.TimeoutRetransmissions += c.TimeoutRetransmissions
		sum.SACKsSent += c.SACKsSent
		sum.SACKsReceived += c.SACKsReceived
		sum.MessagesOvertaken += c.MessagesOvertaken
		sum.BadPackets += c.BadPackets
	}
	return len(assocs), sum
}

// ListenAndServeSCTP opens a UDP socket on addr and serves SPDY over SCTP
// on it as ServeSCTP (what `spdylab serve --sctp PORT` runs).
func (s *Server) ListenAndServeSCTP(addr string, cfg sctp.Config, opt spdy.SCTPOptions) error {
	pc, err := net.ListenPacket("udp4", addr)
	if err != nil {
		return fmt.Errorf("server: SCTP: %w", err)
	}
	l, err := sctp.Listen(pc, cfg)
	if err != nil {
		return fmt.Errorf("server: SCTP on %s: %w", addr, err)
	}
	return s.ServeSCTP(l, opt)
}
