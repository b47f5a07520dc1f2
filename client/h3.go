package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/spdylab/spdylab/h3"
)

// ProtoH3 is HTTP/3 over QUIC. Dial uses it only when asked for by name:
// h3 is not negotiated by ALPN on a TCP connection.
const ProtoH3 = h3.ALPN

// Known tells whether Dial can speak proto ("" = let the server choose).
func Known(proto string) bool {
	_, ok := lookupProtocol(proto)
	return ok || proto == "" || proto == ProtoH3
}

// dialH3 opens one QUIC connection to u's origin. The connect phase is the
// QUIC handshake, which includes TLS, so TLS is reported as 0.
func dialH3(ctx context.Context, u *url.URL, o DialOptions) (*Conn, error) {
	if u.Scheme != "https" {
		return nil, fmt.Errorf("h3 needs an https:// URL (QUIC always runs TLS)")
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "443"
	}
	var t ConnTimings
	start := time.Now()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", host, err)
	}
	t.DNS = time.Since(start)
	raddr, err := net.ResolveUDPAddr("udp", net.JoinHostPort(addrs[0].Unmap().String(), port))
	if err != nil {
		return nil, err
	}
	pc, err := net.ListenPacket("udp", ":0")
	if err != nil {
		return nil, fmt.Errorf("opening a UDP socket: %w", err)
	}
	c, err := h3.Dial(ctx, pc, raddr, h3.Config{
		TLS:          &tls.Config{ServerName: host, InsecureSkipVerify: o.Insecure},
		StreamWindow: uint64(max(o.StreamWindow, 0)),
		ConnWindow:   uint64(max(o.SessionWindow, 0)),
	})
	if err != nil {
		return nil, err
	}
	t.Connect = c.Handshake().Ready.Sub(c.Handshake().Start)
	return &Conn{Proto: ProtoH3, Timings: t, Multiplex: true, rt: c, close: c.Close}, nil
}
