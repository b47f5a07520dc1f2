package sctp

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand"
	"net"
	"runtime"
	"testing"
	"time"
)

// initPacket is a well-formed INIT (valid CRC32c) from port src to dst.
func initPacket(src, dst uint16, tag uint32) []byte {
	b := make([]byte, commonHeaderLen+20)
	binary.BigEndian.PutUint16(b[0:], src)
	binary.BigEndian.PutUint16(b[2:], dst)
	c := b[commonHeaderLen:]
	c[0] = chunkInit
	binary.BigEndian.PutUint16(c[2:], 20)
	binary.BigEndian.PutUint32(c[4:], tag)     // initiate tag
	binary.BigEndian.PutUint32(c[8:], 1<<16)   // a_rwnd
	binary.BigEndian.PutUint16(c[12:], 10)     // outbound streams
	binary.BigEndian.PutUint16(c[14:], 10)     // inbound streams
	binary.BigEndian.PutUint32(c[16:], tag+99) // initial TSN
	setChecksum(b)
	return b
}

// malformed returns datagrams that must never reach the stack, plus
// well-framed nonsense the stack itself must survive.
func malformed(dst uint16) (bad, framedNonsense [][]byte) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 300)
	rng.Read(random)
	badCRC := initPacket(5000, dst, 7)
	badCRC[20] ^= 0xff
	longChunk := initPacket(5000, dst, 7)
	binary.BigEndian.PutUint16(longChunk[14:], 4000)
	setChecksum(longChunk)
	shortChunk := initPacket(5000, dst, 7)
	binary.BigEndian.PutUint16(shortChunk[14:], 2)
	setChecksum(shortChunk)
	bad = [][]byte{{}, {1, 2, 3}, random, badCRC, longChunk, shortChunk}
	for _, typ := range []byte{0, 2, 3, 6, 10, 11, 14, 0x80, 0xc1} {
		p := make([]byte, commonHeaderLen+8)
		binary.BigEndian.PutUint16(p[0:], 5000)
		binary.BigEndian.PutUint16(p[2:], dst)
		binary.BigEndian.PutUint32(p[4:], rng.Uint32())
		p[commonHeaderLen] = typ
		binary.BigEndian.PutUint16(p[commonHeaderLen+2:], 8)
		setChecksum(p)
		framedNonsense = append(framedNonsense, p)
	}
	return bad, framedNonsense
}

func TestMalformedPacketsAreDroppedAndAssociationsSurvive(t *testing.T) {
	base := runtime.NumGoroutine()
	func() {
		l := listenLoopback(t, Config{})
		c := dialLoopback(t, l, Config{})
		s := acceptOne(t, l)
		port, _ := udpPort(l.Addr())
		bad, nonsense := malformed(port)
		attacker, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer attacker.Close()
		for _, p := range append(bad, nonsense...) {
			attacker.WriteTo(p, l.Addr()) // at the listener
			attacker.WriteTo(p, c.LocalAddr())
		}
		// The same datagrams from the client's own address reach the
		// association's peer entry on the server side.
		cpc := c.peer.pc
		for _, p := range bad {
			cpc.WriteTo(p, l.Addr())
		}
		if err := c.SendMessage(1, 0, []byte("still alive")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, _, _, err := s.RecvMessage(buf)
		if err != nil || string(buf[:n]) != "still alive" {
			t.Fatalf("after malformed packets: %q %v", buf[:n], err)
		}
		// The server read the client's bad datagrams before "still alive"
		// (one socket, in order), but the client's own read loop runs on
		// its own schedule: the strangers' datagrams may still be queued.
		if got := s.Counters().BadPackets; got < uint64(len(bad)-1) {
			t.Errorf("server counted %d bad packets from the client's address, want at least %d", got, len(bad)-1)
		}
		waitFor(t, "client counts datagrams from a stranger", func() bool {
			return c.Counters().BadPackets > 0
		})
		c.Close()
		s.Close()
		l.Close()
	}()
	checkNoLeak(t, base)
}

func TestINITStormLeavesTheListenerUsable(t *testing.T) {
	base := runtime.NumGoroutine()
	old := maxPeers
	maxPeers = 64
	defer func() { maxPeers = old }()
	func() {
		l := listenLoopback(t, Config{})
		port, _ := udpPort(l.Addr())
		const sources = 100
		seen := func() int { return l.Peers() + int(l.Dropped()) }
		for i := range sources {
			pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			// Each source repeats its INIT until the listener has seen it: a
			// burst of datagrams can overflow the socket's receive buffer on
			// a loaded machine, and a lost INIT is not what this test is about.
			before := seen()
			for j := 0; seen() == before; j++ {
				if j == 200 {
					t.Fatalf("source %d: listener never saw its INIT", i)
				}
				pc.WriteTo(initPacket(uint16(20000+i), port, uint32(i*1000+j+1)), l.Addr())
				time.Sleep(5 * time.Millisecond)
			}
			// Kept open until the end: a closed source's port could be
			// handed to the next one, which would then be a known peer.
			defer pc.Close()
		}
		// A storm neither fills memory (peers are capped) nor stops a real client.
		waitFor(t, "storm processed", func() bool { return seen() >= sources })
		if l.Peers() > maxPeers {
			t.Fatalf("%d peers known, cap %d", l.Peers(), maxPeers)
		}
		if l.Dropped() == 0 {
			t.Error("no datagram dropped although the storm came from more sources than the cap")
		}
		maxPeers = old // a real client gets in once the cap allows
		c := dialLoopback(t, l, Config{})
		s := acceptOne(t, l)
		if err := c.SendMessage(0, 0, []byte("x")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		if _, _, _, err := s.RecvMessage(buf); err != nil {
			t.Fatal(err)
		}
		c.Close()
		s.Close()
		l.Close()
	}()
	checkNoLeak(t, base)
}

func TestStreamBeyondTheNegotiatedCount(t *testing.T) {
	cfg := Config{OutboundStreams: 4, InboundStreams: 4}
	l := listenLoopback(t, cfg)
	c := dialLoopback(t, l, cfg)
	err := c.SendMessage(4, 0, []byte("x"))
	if !errors.Is(err, ErrStreamOutOfRange) {
		t.Fatalf("send on stream 4 of 4: %v, want ErrStreamOutOfRange", err)
	}
	if err := c.SendMessage(3, 0, []byte("x")); err != nil {
		t.Fatalf("stream 3 of 4: %v", err)
	}
}

func TestAbortReachesThePeer(t *testing.T) {
	l := listenLoopback(t, Config{})
	c := dialLoopback(t, l, Config{})
	s := acceptOne(t, l)
	errc := make(chan error, 1)
	go func() {
		_, _, _, err := s.RecvMessage(make([]byte, 10))
		errc <- err
	}()
	c.Abort()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrAborted) {
			t.Fatalf("peer saw %v, want ErrAborted", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("peer never learnt of the ABORT")
	}
	if err := s.SendMessage(0, 0, []byte("x")); err == nil {
		t.Error("send on an aborted association succeeded")
	}
}

func TestDialNobodyHonoursTheContext(t *testing.T) {
	pc, _ := net.ListenPacket("udp4", "127.0.0.1:0")
	dead, _ := net.ListenPacket("udp4", "127.0.0.1:0")
	addr := dead.LocalAddr()
	dead.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, pc, addr, Config{}); err == nil {
		t.Fatal("association with nobody established")
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	for _, cfg := range []Config{{RTOMin: -1}, {RTOMin: time.Second, RTOMax: time.Millisecond * 10}, {SendBuffer: -1}, {MaxBurst: -2}, {OutboundStreams: 70000}} {
		pc, _ := net.ListenPacket("udp4", "127.0.0.1:0")
		if _, err := Listen(pc, cfg); err == nil {
			t.Errorf("Listen accepted %+v", cfg)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never happened: %s", what)
}

// checkNoLeak waits for the goroutine count to return to base (the stack's
// timer goroutine stops idleTimerGrace after the last socket closed).
func checkNoLeak(t *testing.T, base int) {
	t.Helper()
	var n int
	for range 200 {
		if n = runtime.NumGoroutine(); n <= base {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines: %d before, %d after\n%s", base, n, buf[:runtime.Stack(buf, true)])
}
