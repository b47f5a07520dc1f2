package main

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/netem"
)

// udpCount sends n datagrams across the testbed's link (down: server to
// client) at about 10,000 per second, far below what the link, the TUN
// queues and the socket buffers take, so every missing datagram was lost by
// the emulator. It returns how many arrived.
func udpCount(tb *netem.Testbed, down bool, n int) (int, error) {
	from, to := tb.Client(), tb.Servers()[0]
	if down {
		from, to = to, from
	}
	rx, err := to.ListenPacket("udp4", ":6001")
	if err != nil {
		return 0, err
	}
	defer rx.Close()
	if u, ok := rx.(*net.UDPConn); ok {
		u.SetReadBuffer(4 << 20)
	}
	tx, err := from.ListenPacket("udp4", ":0")
	if err != nil {
		return 0, err
	}
	defer tx.Close()
	var got atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			rx.SetReadDeadline(time.Now().Add(time.Second))
			if _, _, err := rx.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	dst := &net.UDPAddr{IP: to.Addr.AsSlice(), Port: 6001}
	payload := make([]byte, 200)
	for i := 0; i < n; i++ {
		if _, err := tx.WriteTo(payload, dst); err != nil {
			return 0, err
		}
		if i%50 == 49 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	<-done // ends one second after the last datagram
	return int(got.Load()), nil
}
