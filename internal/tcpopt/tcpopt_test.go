package tcpopt

import (
	"crypto/tls"
	"io"
	"net"
	"os"
	"testing"

	"github.com/spdylab/spdylab/internal/certs"
)

func TestCongestionAndInfoOnLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Any socket may pick reno; cubic needs root or the allowed list.
	want := "reno"
	if os.Geteuid() == 0 {
		want = "cubic"
	}
	if err := SetCongestion(ln, want); err != nil {
		t.Fatal(err)
	}
	done := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- nil
			return
		}
		io.Copy(io.Discard, c)
		done <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write(make([]byte, 100000))
	c.(*net.TCPConn).CloseWrite()
	sc := <-done
	if sc == nil {
		t.Fatal("accept failed")
	}
	defer sc.Close()
	sent, err := Info(c)
	c.Close()
	if err != nil || sent.BytesSent < 100000 || sent.BytesRetrans > sent.BytesSent {
		t.Errorf("TCP_INFO of the sender: %+v, %v; want >= 100000 bytes sent", sent, err)
	}
	got, err := Congestion(sc)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("accepted socket uses %q, want inherited %q", got, want)
	}
	info, err := Info(sc)
	if err != nil {
		t.Fatal(err)
	}
	if info.BytesRecv < 100000 {
		t.Errorf("TCP_INFO bytes received = %d, want >= 100000", info.BytesRecv)
	}
	if err := SetCongestion(sc, "no-such-cc"); err == nil {
		t.Error("unknown congestion control accepted")
	}
}

func TestUnwrapTLS(t *testing.T) {
	cert, err := certs.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serveOne(ln, func(c net.Conn) { c.(*tls.Conn).Handshake() })
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := Unwrap(c); !ok {
		t.Fatal("Unwrap did not find the TCP connection under TLS")
	}
	if _, err := Info(c); err != nil {
		t.Fatal(err)
	}
}

// TestBBRPacingGain: a socket on bbr reports bbr's pacing gain (one of
// start-up's, drain's or bandwidth probing's), one on another cc none.
func TestBBRPacingGain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serveOne(ln, func(c net.Conn) { io.Copy(io.Discard, c) })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before, err := Info(c)
	if err != nil {
		t.Fatal(err)
	}
	if before.Congestion != "bbr" && before.BBRPacingGain != 0 {
		t.Errorf("pacing gain %v on %s, want 0 off bbr", before.BBRPacingGain, before.Congestion)
	}
	if err := SetCongestion(c, "bbr"); err != nil {
		t.Skipf("bbr not available here: %v", err)
	}
	if _, err := c.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	on, err := Info(c)
	if err != nil {
		t.Fatal(err)
	}
	// bbr's gains: 2.89 (start-up), 0.35 (drain), 0.75..1.25 (probing).
	if on.Congestion != "bbr" || on.BBRPacingGain < 0.3 || on.BBRPacingGain > 3 {
		t.Errorf("on bbr: cc %q, pacing gain %v; want bbr with a gain in 0.3..3", on.Congestion, on.BBRPacingGain)
	}
}

// serveOne accepts one connection on ln in the background, hands it to
// serve and closes it.
func serveOne(ln net.Listener, serve func(net.Conn)) {
	go func() {
		c, err := ln.Accept()
		if err == nil {
			serve(c)
			c.Close()
		}
	}()
}
