package spdy

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// setNotSentLowat sets TCP_NOTSENT_LOWAT on the TCP socket under conn
// (unwrapping *tls.Conn and other NetConn() wrappers), so that a full kernel
// send buffer cannot defeat the session's priorities. It lives here rather
// than in the lab's internal/tcpopt so that the library imports nothing of
// the lab. A conn that is not TCP (a pipe in a test) is left alone.
func setNotSentLowat(conn net.Conn, n int) error {
	for i := 0; i < 8 && conn != nil; i++ {
		if sc, ok := conn.(*net.TCPConn); ok {
			return setSockoptInt(sc, unix.TCP_NOTSENT_LOWAT, n)
		}
		u, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		conn = u.NetConn()
	}
	return nil
}

func setSockoptInt(c syscall.Conn, opt, v int) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := raw.Control(func(fd uintptr) { opErr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, opt, v) }); err != nil {
		return err
	}
	return opErr
}
