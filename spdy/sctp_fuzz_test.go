package spdy

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// scriptedMessages replays messages to sctpFrames (a pure-logic stand-in for
// an association: the decoder's ordering and validation are under test).
type scriptedMessages struct {
	msgs []scriptedMsg
	out  int
}

type scriptedMsg struct {
	sid  uint16
	ppid uint32
	b    []byte
}

func (s *scriptedMessages) SendMessage(uint16, uint32, []byte) error { return nil }
func (s *scriptedMessages) RecvMessage(p []byte) (int, uint16, uint32, error) {
	if len(s.msgs) == 0 {
		return 0, 0, 0, io.EOF
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	if len(m.b) > len(p) {
		return 0, 0, 0, errors.New("message too big")
	}
	return copy(p, m.b), m.sid, m.ppid, nil
}
func (s *scriptedMessages) Streams() (int, int)              { return s.out, s.out }
func (s *scriptedMessages) SetWriteDeadline(time.Time) error { return nil }
func (s *scriptedMessages) LocalAddr() net.Addr              { return &net.UDPAddr{} }
func (s *scriptedMessages) RemoteAddr() net.Addr             { return &net.UDPAddr{} }
func (s *scriptedMessages) Close() error                     { return nil }

// FuzzSCTPMessages feeds arbitrary message sequences (stream, PPID, bytes)
// to the SPDY-over-SCTP reader: it must end with an error, never panic or
// loop, whatever the order, dependencies or contents.
func FuzzSCTPMessages(f *testing.F) {
	var w writeBuffer
	fr := NewFramer(&w, nil, 0)
	fr.WriteFrame(&SynStreamFrame{Stream: 2, AssociatedTo: 1, Headers: Header{":path": {"/x"}}})
	fr.WriteFrame(&DataFrame{Stream: 2, Data: []byte("hello"), Flags: FlagFin})
	fr.WriteFrame(&PingFrame{ID: 2})
	fr.Flush()
	f.Add(w.b, uint8(4), true, uint32(0))
	f.Add(w.b, uint8(3), false, uint32(1))
	f.Add([]byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 2}, uint8(2), false, uint32(7))
	f.Fuzz(func(t *testing.T, data []byte, streams uint8, control bool, ppid uint32) {
		// Cut data into messages: each starts with a stream byte and a length byte.
		var msgs []scriptedMsg
		for len(data) >= 2 {
			sid, n := uint16(data[0]%8), int(data[1])
			data = data[2:]
			n = min(n, len(data))
			msgs = append(msgs, scriptedMsg{sid: sid, ppid: ppid + uint32(len(msgs)%3), b: data[:n]})
			data = data[n:]
		}
		mc := &scriptedMessages{msgs: msgs, out: int(streams%8) + 1}
		t0 := (&sctpConn{mc: mc, opt: SCTPOptions{ControlStream: control}}).newFrameIO(Config{}, true)
		for i := 0; ; i++ {
			if i > 10000 {
				t.Fatal("reader never ended")
			}
			_, err := t0.ReadFrame()
			var se *StreamError
			if err != nil && !errors.As(err, &se) {
				return
			}
		}
	})
}
