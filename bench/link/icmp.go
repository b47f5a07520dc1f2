package main

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync/atomic"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/netem/linkcheck"
)

// icmpPing sends count ICMP echo requests from a namespace (inNS runs a
// function there, e.g. netem.Host.Do) to dst, one every
// interval, and returns the round-trip times of the replies (nil entries for
// lost ones are left out). The far end is the server's kernel, so no user
// space sits on the far side. Replies are timestamped by the kernel on
// arrival (SO_TIMESTAMPNS), so this process's own scheduling delays do not
// inflate the result; the send time is read just before sendto.
func icmpPing(inNS func(func() error) error, dst netip.Addr, count int, interval time.Duration) ([]time.Duration, error) {
	var fd int
	err := inNS(func() error {
		var err error
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("raw ICMP socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return nil, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	tv := unix.NsecToTimeval(int64(200 * time.Millisecond))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return nil, err
	}
	id := int(rand.Uint32() & 0xffff)
	sent := make([]atomic.Int64, count)
	rtts := make([]atomic.Int64, count)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		oob := make([]byte, 128)
		got := 0
		for got < count {
			n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, 0)
			if err != nil {
				select {
				case <-stop:
					return
				default:
					continue // receive timeout: check for stop and go on
				}
			}
			if n < 20 {
				continue
			}
			ihl := int(buf[0]&0x0f) * 4
			if n < ihl+8 || buf[ihl] != 0 /* echo reply */ {
				continue
			}
			if int(binary.BigEndian.Uint16(buf[ihl+4:])) != id {
				continue
			}
			seq := int(binary.BigEndian.Uint16(buf[ihl+6:]))
			if seq >= count {
				continue
			}
			rx := linkcheck.ReceiveTimestamp(oob[:oobn])
			if rx == 0 {
				rx = time.Now().UnixNano()
			}
			if rtts[seq].CompareAndSwap(0, rx-sent[seq].Load()) {
				got++
			}
		}
	}()
	dstSA := &unix.SockaddrInet4{Addr: dst.As4()}
	for seq := 0; seq < count; seq++ {
		msg := icmp.Message{Type: ipv4.ICMPTypeEcho, Body: &icmp.Echo{ID: id, Seq: seq, Data: make([]byte, 56)}}
		b, err := msg.Marshal(nil)
		if err != nil {
			return nil, err
		}
		sent[seq].Store(time.Now().UnixNano())
		if err := unix.Sendto(fd, b, 0, dstSA); err != nil {
			return nil, fmt.Errorf("sendto: %w", err)
		}
		time.Sleep(interval)
	}
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		close(stop)
		<-done
	}
	var out []time.Duration
	for i := range rtts {
		if v := rtts[i].Load(); v != 0 {
			out = append(out, time.Duration(v))
		}
	}
	return out, nil
}
