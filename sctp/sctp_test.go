package sctp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func listenLoopback(t *testing.T, cfg Config) *Listener {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(pc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func dialLoopback(t *testing.T, l *Listener, cfg Config) *Assoc {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := Dial(ctx, pc, l.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func acceptOne(t *testing.T, l *Listener) *Assoc {
	t.Helper()
	ch := make(chan *Assoc, 1)
	errc := make(chan error, 1)
	go func() {
		a, err := l.Accept()
		if err != nil {
			errc <- err
			return
		}
		ch <- a
	}()
	select {
	case a := <-ch:
		t.Cleanup(func() { a.Close() })
		return a
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no association accepted")
	}
	return nil
}

func TestMessagesBothWaysKeepStreamAndPPID(t *testing.T) {
	for _, bundle := range []bool{false, true} {
		cfg := Config{OutboundStreams: 5, InboundStreams: 5, BundleCookieEcho: bundle, RTOMin: 200 * time.Millisecond, SACKEveryPacket: true, MaxBurst: MaxBurstUnlimited, SendBuffer: 64 << 10, ReceiveBuffer: 64 << 10}
		l := listenLoopback(t, cfg)
		c := dialLoopback(t, l, cfg)
		if err := c.SendMessage(3, 77, []byte("hello on 3")); err != nil {
			t.Fatal(err)
		}
		s := acceptOne(t, l)
		buf := make([]byte, 100)
		n, sid, ppid, err := s.RecvMessage(buf)
		if err != nil || string(buf[:n]) != "hello on 3" || sid != 3 || ppid != 77 {
			t.Fatalf("bundle=%v: got %q sid %d ppid %d err %v", bundle, buf[:n], sid, ppid, err)
		}
		big := bytes.Repeat([]byte("x"), 40000)
		if err := s.SendMessage(4, 1, big); err != nil {
			t.Fatal(err)
		}
		rb := make([]byte, 50000)
		n, sid, _, err = c.RecvMessage(rb)
		if err != nil || n != len(big) || sid != 4 {
			t.Fatalf("big message: n %d sid %d err %v", n, sid, err)
		}
		if out, in := c.Streams(); out != 5 || in != 5 {
			t.Fatalf("streams %d/%d", out, in)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := s.RecvMessage(buf); !errors.Is(err, io.EOF) {
			t.Fatalf("after peer Close: %v, want EOF", err)
		}
	}
}

func TestKnobsAreAppliedOnBothEnds(t *testing.T) {
	cfg := Config{RTOInitial: 300 * time.Millisecond, RTOMin: 200 * time.Millisecond, RTOMax: 5 * time.Second,
		SendBuffer: 64 << 10, ReceiveBuffer: 64 << 10, MaxBurst: MaxBurstUnlimited, SACKEveryPacket: true,
		OutboundStreams: 7, InboundStreams: 6}
	l := listenLoopback(t, cfg)
	c := dialLoopback(t, l, cfg)
	s := acceptOne(t, l)
	for who, a := range map[string]*Assoc{"client": c, "server": s} {
		got, err := a.Applied()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", who, got)
		if got.RTOInitial != cfg.RTOInitial || got.RTOMin != cfg.RTOMin || got.RTOMax != cfg.RTOMax {
			t.Errorf("%s RTO %v/%v/%v, want %v/%v/%v", who, got.RTOInitial, got.RTOMin, got.RTOMax, cfg.RTOInitial, cfg.RTOMin, cfg.RTOMax)
		}
		if got.SendBuffer < cfg.SendBuffer || got.ReceiveBuffer < cfg.ReceiveBuffer || got.SendBuffer > 2*cfg.SendBuffer || got.ReceiveBuffer > 2*cfg.ReceiveBuffer {
			t.Errorf("%s buffers %d/%d, want about %d", who, got.SendBuffer, got.ReceiveBuffer, cfg.SendBuffer)
		}
		if got.MaxBurst != 0 || got.SACKFrequency != 1 || !got.NoDelay {
			t.Errorf("%s max burst %d (want 0 = none), SACK every %d packets (want 1), nodelay %v", who, got.MaxBurst, got.SACKFrequency, got.NoDelay)
		}
		if got.OutboundStreams != 6 || got.InboundStreams != 6 {
			t.Errorf("%s streams %d/%d, want 6/6 (min of 7 out and 6 in)", who, got.OutboundStreams, got.InboundStreams)
		}
	}
}
