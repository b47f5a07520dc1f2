package server

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/h3"
)

// startH3 serves cfg over UDP on loopback and returns the server and the
// UDP address.
func startH3(t *testing.T, cfg Config) (*Server, *net.UDPAddr) {
	t.Helper()
	if testing.Verbose() {
		cfg.Log = log.New(os.Stderr, "server: ", log.Lmicroseconds)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeH3(pc) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeH3 returned %v, want http.ErrServerClosed", err)
		}
	})
	return s, pc.LocalAddr().(*net.UDPAddr)
}

func dialH3(t *testing.T, addr *net.UDPAddr, cache tls.ClientSessionCache, early bool) *h3.Conn {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := h3.Dial(ctx, pc, addr, h3.Config{
		TLS:       &tls.Config{ServerName: "localhost", InsecureSkipVerify: true, ClientSessionCache: cache},
		EarlyData: early,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func getH3(t *testing.T, c *h3.Conn, target string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.RoundTrip(req)
	if err != nil {
		<-c.HandshakeDone()
		t.Fatalf("GET %s over h3: %v (handshake %+v)", target, err, c.Handshake())
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s over h3: reading the body: %v", target, err)
	}
	return resp, b
}

func TestH3ServesFilesAndLabEndpoints(t *testing.T) {
	dir, m := writeSite(t)
	_, addr := startH3(t, Config{Root: dir, HostNames: []string{"localhost"}, Push: PushManifest})
	c := dialH3(t, addr, nil, false)
	base := "https://localhost:" + strconv.Itoa(addr.Port)
	for _, r := range m.Resources {
		resp, body := getH3(t, c, base+r.Path)
		want, err := m.Content(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || string(body) != string(want) {
			t.Errorf("%s: status %d, %d bytes; want 200 and the site's %d bytes", r.Path, resp.StatusCode, len(body), len(want))
		}
		if got := resp.Header.Get("Content-Type"); got != r.ContentType {
			t.Errorf("%s: Content-Type %q, want %q", r.Path, got, r.ContentType)
		}
	}
	_, body := getH3(t, c, base+"/_spdylab/bytes?n=300000&seed=7")
	sum := sha256.Sum256(body)
	if len(body) != 300000 || hex.EncodeToString(sum[:]) != DeterministicSHA256(300000, 7) {
		t.Errorf("bytes endpoint over h3: %d bytes, not the deterministic stream", len(body))
	}
	_, body = getH3(t, c, base+"/_spdylab/info")
	var info RequestInfo
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	if info.Protocol != ProtoH3 {
		t.Errorf("the handler saw protocol %q, want %q", info.Protocol, ProtoH3)
	}
	if hs := c.Handshake(); hs.Resumed || hs.EarlyData || hs.RoundTrips() != 1 {
		t.Errorf("first connection's handshake = %+v, want a full 1-RTT handshake", hs)
	}
}

// A second connection resumes the first one's session and sends its request
// in 0-RTT; a server that refuses early data makes the client send it again
// after the handshake, and the request still succeeds.
func TestH3ResumptionAndEarlyData(t *testing.T) {
	for _, reject := range []bool{false, true} {
		name := "accepted"
		if reject {
			name = "rejected"
		}
		t.Run(name, func(t *testing.T) {
			_, addr := startH3(t, Config{HostNames: []string{"localhost"}, H3: H3Config{Reject0RTT: reject}})
			cache := tls.NewLRUClientSessionCache(4)
			first := dialH3(t, addr, cache, true)
			base := "https://localhost:" + strconv.Itoa(addr.Port)
			getH3(t, first, base+"/_spdylab/info")
			first.Close()

			// Several requests in flight in 0-RTT, as a browser may have.
			second := dialH3(t, addr, cache, true)
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					n := 5000 + i
					req, _ := http.NewRequest(http.MethodGet, base+"/_spdylab/bytes?n="+strconv.Itoa(n), nil)
					resp, err := second.RoundTrip(req)
					if err != nil {
						t.Errorf("0-RTT request %d: %v", i, err)
						return
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != 200 || len(body) != n {
						t.Errorf("0-RTT request %d: status %d, %d bytes, %v; want 200 and %d bytes", i, resp.StatusCode, len(body), err, n)
					}
				})
			}
			wg.Wait()
			<-second.HandshakeDone()
			hs := second.Handshake()
			if !hs.Resumed || !hs.EarlyData {
				t.Fatalf("second handshake = %+v, want resumed with early data", hs)
			}
			if hs.EarlyRejected != reject {
				t.Errorf("EarlyRejected = %v, want %v", hs.EarlyRejected, reject)
			}
			want := 0
			if reject {
				want = 1
			}
			if hs.RoundTrips() != want {
				t.Errorf("RoundTrips() = %d, want %d", hs.RoundTrips(), want)
			}
		})
	}
}

// A server capped at TLS 1.2 over TCP (a browser bench at tls 1.2)
// still serves h3, at QUIC's TLS 1.3.
func TestH3ServesTLS13BesideATCPCapOf12(t *testing.T) {
	_, addr := startH3(t, Config{TLSMax: tls.VersionTLS12})
	c := dialH3(t, addr, nil, false)
	resp, _ := getH3(t, c, "https://localhost/_spdylab/info")
	if resp.StatusCode != http.StatusOK || resp.TLS == nil || resp.TLS.Version != tls.VersionTLS13 {
		t.Errorf("h3 beside a TLS 1.2 cap: status %d, TLS %+v", resp.StatusCode, resp.TLS)
	}
}

func TestH3RefusesWithoutTLS(t *testing.T) {
	for name, cfg := range map[string]Config{
		"plain SPDY": {Plain: ProtoSPDY31},
	} {
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ServeH3(pc); err == nil || errors.Is(err, http.ErrServerClosed) {
			t.Errorf("%s: ServeH3 = %v, want an error saying why h3 cannot be served", name, err)
		}
		if _, err := pc.WriteTo([]byte("x"), pc.LocalAddr()); err == nil {
			t.Errorf("%s: ServeH3 left its socket open", name)
		}
		s.Close()
	}
}
