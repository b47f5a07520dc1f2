package server

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// TestSPDYAnswersBadFramesAtOnce sends, over a real socket to a real
// server, SPDY frame headers whose payload never comes: garbage, a DATA
// header for a stream never opened, a DATA header with the largest length.
// The server must answer from the header (GOAWAY and close, or RST_STREAM
// INVALID_STREAM), over plain TCP (`spdylab serve --plain`) and TLS alike.
// Its frame read timeout is off, so nothing but that answer can come: the
// read deadline only turns a hang into a failure.
func TestSPDYAnswersBadFramesAtOnce(t *testing.T) {
	cases := []struct {
		name  string
		bytes []byte
		rst   bool // want RST_STREAM INVALID_STREAM on stream 5 (else GOAWAY and close)
	}{
		// As a DATA frame header: stream 0xff1367, 7 MB of payload to follow.
		{"garbage", []byte("\x00\xff\x13garbage that is no protocol at all\r\n\r\n"), false},
		{"DATA header for a stream never opened", []byte{0, 0, 0, 5, 0, 0, 0, 100}, true},
		{"DATA header with the largest length", []byte{0, 0, 0, 5, 0, 0xff, 0xff, 0xff}, false},
	}
	for _, v := range spdyVersions {
		for _, plain := range []bool{true, false} {
			cfg := Config{SPDY: spdy.Config{FrameReadTimeout: -1}}
			name := strings.ReplaceAll(v, "/", "_") + " over TLS"
			if plain {
				cfg.Plain, name = v, strings.ReplaceAll(v, "/", "_")+" over plain TCP"
			}
			s := startServer(t, cfg)
			for _, c := range cases {
				t.Run(name+"/"+c.name, func(t *testing.T) {
					conn, fr := rawSPDY(t, s, v)
					if _, err := conn.Write(c.bytes); err != nil {
						t.Fatal(err)
					}
					conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // hang guard, not a measurement
					if c.rst {
						expectFrame(t, fr, func(f spdy.Frame) bool {
							r, ok := f.(*spdy.RstStreamFrame)
							return ok && r.Stream == 5 && r.Status == spdy.RstInvalidStream
						})
						return
					}
					expectFrame(t, fr, func(f spdy.Frame) bool { _, ok := f.(*spdy.GoAwayFrame); return ok })
					if _, err := io.Copy(io.Discard, conn); err != nil {
						t.Fatalf("after GOAWAY: %v, want the connection closed", err)
					}
				})
			}
		}
	}
}

// rawSPDY opens a connection to s speaking SPDY version v (TLS with ALPN v
// unless s serves plain SPDY) and a framer of v's wire version on it.
func rawSPDY(t *testing.T, s *Server, v string) (net.Conn, *spdy.Framer) {
	t.Helper()
	u, _ := url.Parse(s.URL())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if u.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{v}})
		if err := tc.Handshake(); err != nil || tc.ConnectionState().NegotiatedProtocol != v {
			t.Fatalf("handshake offering %s: %v (negotiated %q)", v, err, tc.ConnectionState().NegotiatedProtocol)
		}
		conn = tc
	}
	info, _ := spdy.LookupVersion(v)
	return conn, spdy.NewFramerVersion(info.Wire, conn, conn, 0)
}

// expectFrame reads frames until one satisfies want; an error first fails.
func expectFrame(t *testing.T, fr *spdy.Framer, want func(spdy.Frame) bool) {
	t.Helper()
	var seen []string
	for {
		f, err := fr.ReadFrame()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("no answer to the bad frame (frames seen: %v)", seen)
		}
		if err != nil {
			t.Fatalf("reading the answer: %v (frames seen: %v)", err, seen)
		}
		if want(f) {
			return
		}
		seen = append(seen, f.String())
	}
}

// TestSPDYRefusesAnOverrunningDATAFromItsHeader sends only the header of a
// DATA frame announcing far more than a stream's window (900 KB, under the
// frame size cap), over plain TCP and TLS: as the session's first frame,
// and after opening its stream. The server must refuse it from the header,
// before any payload: with GOAWAY as the first frame (no stream could take
// it), with the stream's RST_STREAM FLOW_CONTROL_ERROR on an open stream
// (spdy/3.1: the session window is overrun first, GOAWAY). The payload
// never comes, so an answer that waited for it could only come after the
// frame read timeout (off here): the read deadline only turns a hang into
// a failure. spdy/2 has no windows: its cap on a stream's unread DATA is
// set to the window's 64 KB.
func TestSPDYRefusesAnOverrunningDATAFromItsHeader(t *testing.T) {
	var length uint32 = 900 << 10
	for _, v := range spdyVersions {
		for _, plain := range []bool{true, false} {
			cfg := Config{SPDY: spdy.Config{FrameReadTimeout: -1, MaxUnreadPerStream: 64 << 10}}
			name := v + " over TLS"
			if plain {
				cfg.Plain, name = v, v+" over plain TCP"
			}
			t.Run(strings.ReplaceAll(name, "/", "_")+"/first frame", func(t *testing.T) {
				s := startServer(t, cfg)
				conn, fr := rawSPDY(t, s, v)
				if _, err := conn.Write([]byte{0, 0, 0, 1, 0, byte(length >> 16), byte(length >> 8), byte(length)}); err != nil {
					t.Fatal(err)
				}
				conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // hang guard, not a measurement
				expectFrame(t, fr, func(f spdy.Frame) bool {
					g, ok := f.(*spdy.GoAwayFrame)
					return ok && (v == "spdy/2" || g.Status == spdy.GoAwayProtocolError)
				})
				if _, err := io.Copy(io.Discard, conn); err != nil {
					t.Fatalf("after GOAWAY: %v, want the connection closed", err)
				}
			})
			t.Run(strings.ReplaceAll(name, "/", "_")+"/open stream", func(t *testing.T) {
				s := startServer(t, cfg)
				conn, fr := rawSPDY(t, s, v)
				h := spdy.Header{":method": {"POST"}, ":path": {"/"}, ":version": {"HTTP/1.1"}, ":host": {"localhost"}, ":scheme": {"https"}}
				if v == "spdy/2" {
					h = spdy.Header{"method": {"POST"}, "url": {"/"}, "version": {"HTTP/1.1"}, "host": {"localhost"}, "scheme": {"https"}}
				}
				if err := fr.WriteFrame(&spdy.SynStreamFrame{Stream: 1, Headers: h}); err != nil {
					t.Fatal(err)
				}
				if err := fr.Flush(); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Write([]byte{0, 0, 0, 1, 0, byte(length >> 16), byte(length >> 8), byte(length)}); err != nil {
					t.Fatal(err)
				}
				conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // hang guard, not a measurement
				expectFrame(t, fr, func(f spdy.Frame) bool {
					switch f := f.(type) {
					case *spdy.RstStreamFrame:
						return v != "spdy/3.1" && f.Stream == 1 && f.Status == spdy.RstFlowControlError
					case *spdy.GoAwayFrame:
						return v == "spdy/3.1" && f.Status == spdy.GoAwayProtocolError
					}
					return false
				})
			})
		}
	}
}
