package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"

	"github.com/spdylab/spdylab/spdy"
)

// spdyServers holds one spdy.Server per version, each tagging its requests
// with the version so handlers and logs can tell them apart.
type spdyServers map[string]*spdy.Server

func (s *Server) newSPDYServers() spdyServers {
	out := spdyServers{}
	for _, v := range spdyVersions {
		cfg := s.cfg.SPDY
		cfg.Version = v
		out[v] = &spdy.Server{Config: cfg, Handler: withProtocol(v, s),
			AdmitStream: s.admitStream}
	}
	return out
}

// admitStream is the SPDY servers' per-client stream cap (streamGate).
func (s *Server) admitStream(c net.Conn) (func(), bool) { return s.streamGate.admit(c, s.logf) }

func withProtocol(proto string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), protoKey{}, proto)))
	})
}

// serveSPDY runs one SPDY session on c until either side ends it or the
// server shuts down.
func (s *Server) serveSPDY(c net.Conn, version string) {
	err := s.spdySrv[version].ServeConn(withConnRequests(context.WithValue(s.ctx, connKey{}, c)), c)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, context.Canceled) {
		s.logf("%s: %s session: %v", c.RemoteAddr(), version, err)
	}
}

// requestPriority is the SPDY priority (0 highest .. 7) of r, -1 for other
// protocols.
func requestPriority(r *http.Request) int {
	if p, ok := r.Context().Value(protoKey{}).(string); ok && slices.Contains(spdyVersions, p) {
		return int(spdy.RequestPriority(r))
	}
	return -1
}
