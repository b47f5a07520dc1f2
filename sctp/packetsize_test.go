package sctp_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spdylab/spdylab/sctp"
)

// largestWrite records the largest datagram written through it.
type largestWrite struct {
	net.PacketConn
	max atomic.Int64
}

func (m *largestWrite) WriteTo(b []byte, a net.Addr) (int, error) {
	for {
		cur := m.max.Load()
		if int64(len(b)) <= cur || m.max.CompareAndSwap(cur, int64(len(b))) {
			break
		}
	}
	return m.PacketConn.WriteTo(b, a)
}

// TestPacketsFitPacketSize: no datagram is larger than Config.PacketSize
// (the default fills a 1500-byte IPv4 packet exactly), and full packets
// reach it, so large messages are neither IP-fragmented nor cut short.
func TestPacketsFitPacketSize(t *testing.T) {
	for _, ps := range []int{0, 1400} {
		want := ps
		if want == 0 {
			want = sctp.DefaultPacketSize
		}
		spc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l, err := sctp.Listen(spc, sctp.Config{PacketSize: ps})
		if err != nil {
			t.Fatal(err)
		}
		received := make(chan int, 1)
		go func() {
			a, err := l.Accept()
			if err != nil {
				received <- 0
				return
			}
			defer a.Close()
			buf := make([]byte, 1<<16)
			total := 0
			for total < 5*20000 {
				n, _, _, err := a.RecvMessage(buf)
				if err != nil {
					break
				}
				total += n
			}
			received <- total
		}()
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		w := &largestWrite{PacketConn: pc}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		a, err := sctp.Dial(ctx, w, spc.LocalAddr(), sctp.Config{PacketSize: ps})
		if err != nil {
			t.Fatal(err)
		}
		msg := make([]byte, 20000)
		for range 5 {
			if err := a.SendMessage(1, 0, msg); err != nil {
				t.Fatal(err)
			}
		}
		if got := <-received; got != 5*20000 {
			t.Errorf("PacketSize %d: received %d of %d bytes", ps, got, 5*20000)
		}
		if got := w.max.Load(); got != int64(want) {
			t.Errorf("PacketSize %d: largest datagram %d bytes, want exactly %d", ps, got, want)
		}
		a.Close()
		l.Close()
		cancel()
	}
}
