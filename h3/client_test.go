package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// settledGoroutines waits until no more goroutines run than want, and
// reports the count it saw last. Goroutines end asynchronously after a
// Close, so the check polls instead of expecting them gone at once.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 500 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// A server that answers every packet with garbage never completes the
// handshake: Dial fails naming the address, every goroutine it started
// ends, the socket is closed, and the bytes both ways were counted.
func TestDialFailsWhenTheHandshakeNeverCompletes(t *testing.T) {
	sink, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := sink.ReadFrom(buf)
			if err != nil {
				return
			}
			// Answer every packet with garbage of the same size: QUIC
			// must drop what it cannot decrypt and keep waiting.
			for i := range buf[:n] {
				buf[i] ^= 0x5a
			}
			sink.WriteTo(buf[:n], from)
		}
	}()
	before := runtime.NumGoroutine()

	for _, tc := range []struct {
		name    string
		timeout time.Duration // the caller's deadline
		hs      time.Duration // the handshake idle timeout
	}{
		{"caller deadline", 300 * time.Millisecond, 10 * time.Second},
		{"handshake timeout", 10 * time.Second, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var count Counter
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			c, err := Dial(ctx, pc, sink.LocalAddr(), Config{
				TLS:              &tls.Config{ServerName: "localhost", InsecureSkipVerify: true},
				HandshakeTimeout: tc.hs,
				Counter:          &count,
			})
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded against a server that never answers")
			}
			if !strings.Contains(err.Error(), sink.LocalAddr().String()) {
				t.Errorf("error %q does not name the server's address", err)
			}
			if count.Out.Load() < 1200 || count.In.Load() == 0 {
				t.Errorf("counted %d bytes out, %d in; want at least one padded Initial (1200 bytes) out and garbage back", count.Out.Load(), count.In.Load())
			}
			if _, err := pc.WriteTo([]byte("x"), sink.LocalAddr()); !errors.Is(err, net.ErrClosed) {
				t.Errorf("the socket is still open after a failed Dial (write: %v)", err)
			}
		})
	}
	if n := settledGoroutines(before); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left after failed dials, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestRoundTripsOfHandshakes(t *testing.T) {
	for _, tc := range []struct {
		hs   Handshake
		want int
	}{
		{Handshake{}, 1},
		{Handshake{Resumed: true}, 1},
		{Handshake{Resumed: true, EarlyData: true}, 0},
		{Handshake{Resumed: true, EarlyData: true, EarlyRejected: true}, 1},
		{Handshake{HelloRetry: true}, 2},
		{Handshake{Resumed: true, EarlyData: true, EarlyRejected: true, Redialed: true}, 2},
	} {
		if got := tc.hs.RoundTrips(); got != tc.want {
			t.Errorf("%+v.RoundTrips() = %d, want %d", tc.hs, got, tc.want)
		}
	}
}

func TestDialNeedsTLSConfig(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), pc, pc.LocalAddr(), Config{}); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Errorf("Dial without TLS config = %v, want an error saying so", err)
	}
	if _, err := pc.WriteTo([]byte("x"), pc.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Error("Dial without TLS config left the socket open")
	}
}

// The rejection of 0-RTT reaches a request wrapped in whatever step failed
// (opening the stream, writing the request, parsing the response's first
// frame); each is recognised, but only for a request that can be sent
// again.
func TestRejectedStreamSeesThroughWrapping(t *testing.T) {
	get, _ := http.NewRequest(http.MethodGet, "https://x/", nil)
	post, _ := http.NewRequest(http.MethodPost, "https://x/", io.NopCloser(strings.NewReader("once")))
	for _, err := range []error{
		quic.Err0RTTRejected,
		fmt.Errorf("http3: parsing frame failed: %w", quic.Err0RTTRejected),
		fmt.Errorf("open stream: %w", fmt.Errorf("inner: %w", quic.Err0RTTRejected)),
	} {
		if !rejectedStream(get, err) {
			t.Errorf("%v: a GET is not sent again", err)
		}
		if rejectedStream(post, err) {
			t.Errorf("%v: a POST whose body cannot be read again would be sent again", err)
		}
	}
	if rejectedStream(get, errors.New("0-RTT rejected")) {
		t.Error("an unrelated error with the same words counts as the rejection")
	}
}

// A request that met its connection closed is sent again whether or not
// quic-go has ended the connection's context yet: the close shows in the
// request's error first when http3 closed the connection itself (seen in
// CI as "http3: conn unusable: H3_INTERNAL_ERROR (local)").
func TestConnEndedFromTheErrorAlone(t *testing.T) {
	local := &quic.ApplicationError{Remote: false, ErrorCode: quic.ApplicationErrorCode(http3.ErrCodeInternalError)}
	remote := &quic.ApplicationError{Remote: true, ErrorCode: quic.ApplicationErrorCode(http3.ErrCodeGeneralProtocolError)}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("http3: conn unusable: %w", local), true},
		{fmt.Errorf("open stream: %w", remote), true},
		{&quic.StreamError{StreamID: 4, ErrorCode: 0x10c, Remote: true}, false},
		{errors.New("H3_INTERNAL_ERROR (local)"), false},
	} {
		if got := connEnded(tc.err, nil); got != tc.want {
			t.Errorf("%v: connection ended %v, want %v", tc.err, got, tc.want)
		}
	}
}
