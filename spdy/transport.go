package spdy

import "net"

// frameIO is how a session reads and writes frames. Over TCP (and TLS) it
// is a *Framer on the byte stream; over SCTP (sctp.go) every frame is one
// message on a stream chosen by the SPDY-over-SCTP mapping.
type frameIO interface {
	ReadFrame() (Frame, error)
	WriteFrame(Frame) error
	Flush() error
	Buffered() int
}

// frameTransport is implemented by connections that carry frames as
// messages instead of a byte stream.
type frameTransport interface {
	newFrameIO(cfg Config, isClient bool) frameIO
}

// frameIOFor picks the session's frame I/O: fr (the Framer over conn's byte
// stream) unless conn carries frames itself.
func frameIOFor(conn net.Conn, fr *Framer, cfg Config, isClient bool) frameIO {
	if ft, ok := conn.(frameTransport); ok {
		return ft.newFrameIO(cfg, isClient)
	}
	return fr
}
