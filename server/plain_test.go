package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// servePlainOn starts s.ServePlain(proto) on a loopback listener.
func servePlainOn(t *testing.T, s *Server, proto string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.ServePlain(l, proto)
	return l.Addr().String()
}

// exchange sends first on a new connection to addr and returns what the
// server answered until it closed the connection or went quiet.
func exchange(t *testing.T, addr string, first []byte) (reply []byte, closed bool) {
	return exchangeUntil(t, addr, first, 1<<20)
}

// opening is exchange that returns once the server sent n bytes.
func opening(t *testing.T, addr string, first []byte, n int) []byte {
	reply, _ := exchangeUntil(t, addr, first, n)
	return reply
}

func exchangeUntil(t *testing.T, addr string, first []byte, n int) (reply []byte, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(first); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(c, int64(n)))
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	return buf.Bytes(), !timedOut
}

const h2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// emptySettings is an h2 SETTINGS frame without settings.
var emptySettings = []byte{0, 0, 0, 4, 0, 0, 0, 0, 0}

// spdySettings is an empty SPDY SETTINGS control frame of version v.
func spdySettings(v byte) []byte { return []byte{0x80, v, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0} }

// TestServePlainSelectsByListener sends raw first bytes to each plain
// listener: each protocol's opening is answered in that protocol, and
// another protocol's opening is closed at once (garbage too on the HTTP
// listener; on a SPDY listener any SPDY frame is the session's to judge,
// as `spdylab conform` checks).
func TestServePlainSelectsByListener(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	httpAddr := servePlainOn(t, s, ProtoHTTP11)
	h2Addr := servePlainOn(t, s, ProtoH2) // the same service as httpAddr
	spdy3Addr := servePlainOn(t, s, ProtoSPDY3)
	spdy2Addr := servePlainOn(t, s, ProtoSPDY2)
	get := "GET /_spdylab/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	garbage := "\x00\xff\x13garbage that is no protocol at all\r\n\r\n"

	for _, addr := range []string{httpAddr, h2Addr} {
		reply, closed := exchange(t, addr, []byte(get))
		if !bytes.HasPrefix(reply, []byte("HTTP/1.1 200")) || !bytes.Contains(reply, []byte(`"protocol":"http/1.1"`)) || !closed {
			t.Errorf("HTTP/1.1 request: %q (closed %v), want a 200 from http/1.1", reply, closed)
		}
		// h2c: the server's first frame after the preface is its SETTINGS.
		reply = opening(t, addr, append([]byte(h2Preface), emptySettings...), 9)
		if len(reply) < 9 || reply[3] != 4 {
			t.Errorf("h2c preface: %x, want an h2 SETTINGS frame", reply)
		}
		reply, closed = exchange(t, addr, []byte(garbage))
		if !closed || !bytes.HasPrefix(reply, []byte("HTTP/1.1 400")) {
			t.Errorf("garbage on the HTTP listener: %q (closed %v), want a 400 and a close", reply, closed)
		}
	}
	for addr, v := range map[string]byte{spdy3Addr: 3, spdy2Addr: 2} {
		reply := opening(t, addr, spdySettings(v), 8)
		if len(reply) < 8 || reply[0] != 0x80 || reply[1] != v {
			t.Errorf("SPDY version %d opening: %x, want SPDY control frames of version %d", v, reply, v)
		}
		tlsHello := "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
		for _, bad := range []string{get, h2Preface, tlsHello} {
			if _, closed := exchange(t, addr, []byte(bad)); !closed {
				t.Errorf("SPDY version %d listener kept %q open", v, bad)
			}
		}
	}
	// The server survived all of it.
	reply, _ := exchange(t, httpAddr, []byte(get))
	if !bytes.HasPrefix(reply, []byte("HTTP/1.1 200")) {
		t.Errorf("after the bad openings: %q, want a 200", reply)
	}
}

func TestServePlainRefusesUnknownProtocol(t *testing.T) {
	s, err := New(Config{Protocols: []string{ProtoSPDY31}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, p := range []string{"h3", ProtoHTTP11} {
		if err := s.ServePlain(l, p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ServePlain(%q) = %v, want a refusal", p, err)
		}
	}
}
