package link

import (
	"encoding/binary"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// seqpacketPair stands in for a TUN device: a SOCK_SEQPACKET socket keeps
// packet boundaries as a TUN descriptor does, and needs no privileges.
func seqpacketPair(t *testing.T) (dev *os.File, peer int, closePeer func()) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("socketpair: %v", err)
	}
	dev = os.NewFile(uintptr(fds[0]), "fake-tun")
	var once sync.Once
	closePeer = func() { once.Do(func() { unix.Close(fds[1]) }) }
	t.Cleanup(func() { dev.Close(); closePeer() })
	return dev, fds[1], closePeer
}

func TestPumpFeedsPipesInOrder(t *testing.T) {
	dev, peer, _ := seqpacketPair(t)
	var mu sync.Mutex
	var got []uint32
	all := make(chan struct{})
	const n = 500
	odd, err := NewPipe("odd", DirConfig{}, func(pkt []byte) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, binary.BigEndian.Uint32(pkt))
		if len(got) == n/2 {
			close(all)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	odd.Start()
	defer odd.Close()
	pump, err := StartPump(dev, func(pkt []byte) *Pipe {
		if binary.BigEndian.Uint32(pkt)%2 == 1 {
			return odd
		}
		return nil // even packets are dropped by the router
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := unix.Write(peer, packet(uint32(i), 64+i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		mu.Lock()
		t.Fatalf("delivered %d of %d", len(got), n/2)
	}
	if err := pump.Close(); err != nil {
		t.Fatal(err)
	}
	pump.Close() // idempotent
	for i, s := range got {
		if s != uint32(2*i+1) {
			t.Fatalf("delivery %d is packet %d, want %d", i, s, 2*i+1)
		}
	}
	if c := odd.Counters(); c.PktsOffered != n/2 {
		t.Errorf("pipe offered %d packets, want %d", c.PktsOffered, n/2)
	}
	// The caller's file is still usable after Close.
	if _, err := dev.SyscallConn(); err != nil {
		t.Errorf("device file unusable after pump Close: %v", err)
	}
}

func TestPumpReportsDeviceGone(t *testing.T) {
	dev, _, closePeer := seqpacketPair(t)
	p, _ := NewPipe("x", DirConfig{}, func([]byte) error { return nil })
	p.Start()
	defer p.Close()
	pump, err := StartPump(dev, func([]byte) *Pipe { return p })
	if err != nil {
		t.Fatal(err)
	}
	closePeer() // the device disappears: the pump sees end of file
	select {
	case <-pump.done:
	case <-time.After(10 * time.Second):
		t.Fatal("pump did not stop when the device went away")
	}
	if pump.Err() == nil {
		t.Error("pump stopped without an error")
	}
	pump.Close()
}

func TestStartPumpNeedsRoute(t *testing.T) {
	dev, _, _ := seqpacketPair(t)
	if _, err := StartPump(dev, nil); err == nil {
		t.Error("nil route accepted")
	}
}
