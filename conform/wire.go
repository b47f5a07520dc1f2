package conform

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// peer is one hand-driven SPDY connection to the server under test. Header
// blocks are compressed here (not by spdy.Framer) so a case can send blocks
// the library would refuse to build; other frames go through the Framer.
type peer struct {
	conn    net.Conn
	fr      *spdy.Framer
	bw      *bytes.Buffer // frames are assembled here, then written at once
	zbuf    bytes.Buffer
	zw      *zlib.Writer
	host    string
	wait    time.Duration
	version uint16   // wire version: 3 (spdy/3.1, spdy/3) or 2
	seen    []string // the last frames received, for the report
	nseen   int      // how many were received in all
	// What the server said of its receive windows: SETTINGS_INITIAL_WINDOW_SIZE
	// and the session window's WINDOW_UPDATEs (both start at 64 KiB).
	streamWindow, sessionWindow int64
	sessionCredits              int // WINDOW_UPDATEs for stream 0 received
	// reaction is a DoS case's account of how the server met the attack.
	reaction string
}

// keepSeen bounds what a flood case keeps of the frames it receives.
const keepSeen = 64

func (p *peer) record(s string) {
	p.nseen++
	p.seen = append(p.seen, s)
	if len(p.seen) > 2*keepSeen {
		p.seen = append(p.seen[:0], p.seen[len(p.seen)-keepSeen:]...)
	}
}

// dial connects to the server; rcvBuf > 0 shrinks the socket's receive
// buffer before the handshake (the slow reader's, so the server's
// answers back up into the server rather than into this kernel).
func dial(ctx context.Context, o *Options, rcvBuf int) (*peer, error) {
	d := net.Dialer{Timeout: o.timeout()}
	if rcvBuf > 0 {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvBuf) })
			return errors.Join(err, serr)
		}
	}
	raw, err := d.DialContext(ctx, "tcp", o.addr)
	if err != nil {
		return nil, err
	}
	c := raw
	if !o.Plain {
		tc := tls.Client(raw, &tls.Config{ServerName: o.host, InsecureSkipVerify: o.Insecure, NextProtos: []string{o.Version}})
		hctx, cancel := context.WithTimeout(ctx, o.timeout())
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			raw.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		if got := tc.ConnectionState().NegotiatedProtocol; got != o.Version {
			tc.Close()
			return nil, fmt.Errorf("server negotiated %q, not %q", got, o.Version)
		}
		c = tc
	}
	p := &peer{conn: c, bw: &bytes.Buffer{}, host: o.host, wait: o.timeout(), version: o.wire,
		streamWindow: 64 << 10, sessionWindow: 64 << 10}
	dict := spdy.HeaderDictionary()
	if p.v2() {
		dict = spdy.HeaderDictionaryV2()
	}
	p.fr = spdy.NewFramerVersion(p.version, p.bw, c, 0)
	p.zw, _ = zlib.NewWriterLevelDict(&p.zbuf, zlib.DefaultCompression, dict)
	return p, nil
}

func (p *peer) v2() bool { return p.version == spdy.Version2 }

// otherVersion is a wire version the server does not speak on this session.
func (p *peer) otherVersion() uint16 {
	if p.v2() {
		return spdy.Version
	}
	return spdy.Version2
}

func (p *peer) close() { p.conn.Close() }

// block compresses raw name/value bytes with the connection's context.
func (p *peer) block(raw []byte) []byte {
	p.zbuf.Reset()
	p.zw.Write(raw)
	p.zw.Flush()
	return append([]byte(nil), p.zbuf.Bytes()...)
}

// pairs encodes name/value pairs without any validation, in the session's
// layout: 32-bit counts and lengths (SPDY/3 2.6.10) or 16-bit (draft 2).
func (p *peer) pairs(kv ...string) []byte {
	put := func(b []byte, n int) []byte { return binary.BigEndian.AppendUint32(b, uint32(n)) }
	if p.v2() {
		put = func(b []byte, n int) []byte { return binary.BigEndian.AppendUint16(b, uint16(n)) }
	}
	b := put(nil, len(kv)/2)
	for _, s := range kv {
		b = put(b, len(s))
		b = append(b, s...)
	}
	return b
}

// length is a count or length field in the session's layout.
func (p *peer) length(n int) []byte {
	if p.v2() {
		return binary.BigEndian.AppendUint16(nil, uint16(n))
	}
	return binary.BigEndian.AppendUint32(nil, uint32(n))
}

// requestKV is a request's header pairs with the version's names for the
// request line: ":method" ... in SPDY/3 (3.2.1), "method" ... in draft 2
// (whose "host" is an ordinary header).
func (p *peer) requestKV(method, path string, extra ...string) []string {
	kv := []string{":host", p.host, ":method", method, ":path", path, ":scheme", "https", ":version", "HTTP/1.1"}
	if p.v2() {
		kv = []string{"host", p.host, "method", method, "url", path, "scheme", "https", "version", "HTTP/1.1"}
	}
	return append(kv, extra...)
}

func (p *peer) request(method, path string, extra ...string) []byte {
	return p.pairs(p.requestKV(method, path, extra...)...)
}

func controlFrame(version uint16, typ uint16, flags uint8, payload []byte) []byte {
	b := []byte{0x80 | byte(version>>8), byte(version), byte(typ >> 8), byte(typ), flags}
	n := len(payload)
	b = append(b, byte(n>>16), byte(n>>8), byte(n))
	return append(b, payload...)
}

// control builds a control frame of the session's version.
func (p *peer) control(typ uint16, flags uint8, payload []byte) []byte {
	return controlFrame(p.version, typ, flags, payload)
}

// synStream builds a SYN_STREAM of priority 3 (draft 2: 1, its 2-bit
// equivalent) around an already compressed block.
func (p *peer) synStream(id uint32, flags uint8, block []byte) []byte {
	if p.v2() {
		return p.synStreamPri(id, flags, 1, block)
	}
	return p.synStreamPri(id, flags, 3, block)
}

// synStreamPri builds a SYN_STREAM with a raw priority: 3 bits in SPDY/3
// (2.6.1), 2 bits in draft 2 (the rest of the 16 bits unused).
func (p *peer) synStreamPri(id uint32, flags, pri uint8, block []byte) []byte {
	pl := binary.BigEndian.AppendUint32(nil, id)
	pl = binary.BigEndian.AppendUint32(pl, 0)
	if p.v2() {
		pl = append(pl, pri<<6, 0)
	} else {
		pl = append(pl, pri<<5, 0)
	}
	return p.control(1, flags, append(pl, block...))
}

// headers builds a HEADERS frame around an already compressed block; draft
// 2 has 16 unused bits after the stream id.
func (p *peer) headers(id uint32, flags uint8, block []byte) []byte {
	pl := binary.BigEndian.AppendUint32(nil, id)
	if p.v2() {
		pl = append(pl, 0, 0)
	}
	return p.control(8, flags, append(pl, block...))
}

func (p *peer) sendRaw(b ...[]byte) error {
	for _, x := range b {
		if _, err := p.conn.Write(x); err != nil {
			return err
		}
	}
	return nil
}

func (p *peer) send(frames ...spdy.Frame) error {
	p.bw.Reset()
	for _, f := range frames {
		if err := p.fr.WriteFrame(f); err != nil {
			return err
		}
	}
	if err := p.fr.Flush(); err != nil {
		return err
	}
	return p.sendRaw(p.bw.Bytes())
}

// get sends a complete GET for path on stream id.
func (p *peer) get(id uint32, path string, flags uint8) error {
	return p.sendRaw(p.synStream(id, flags, p.block(p.request("GET", path))))
}

var errClosed = errors.New("connection closed")

// next reads one frame, recording it; routine SETTINGS and WINDOW_UPDATE
// are recorded and skipped.
func (p *peer) next(deadline time.Time) (spdy.Frame, error) {
	p.conn.SetReadDeadline(deadline)
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			var se *spdy.StreamError
			if errors.As(err, &se) && f != nil {
				p.record(f.String() + " (undecodable: " + se.Reason + ")")
				continue
			}
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err) {
				p.record("connection closed")
				return nil, errClosed
			}
			return nil, err
		}
		p.record(f.String())
		switch f := f.(type) {
		case *spdy.SettingsFrame:
			for _, e := range f.Entries {
				if e.ID == spdy.SettingInitialWindowSize {
					p.streamWindow = int64(e.Value)
				}
			}
			continue
		case *spdy.WindowUpdateFrame:
			if f.Stream == 0 {
				p.sessionWindow += int64(f.Delta)
				p.sessionCredits++
			}
			continue
		}
		return f, nil
	}
}

func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

// await reads frames until match says done (ok reports the verdict), the
// connection closes, or the case's wait runs out.
func (p *peer) await(match func(spdy.Frame) (done, ok bool)) (bool, error) {
	deadline := time.Now().Add(p.wait)
	for {
		f, err := p.next(deadline)
		if err != nil {
			return false, err
		}
		if done, ok := match(f); done {
			return ok, nil
		}
	}
}

// quiet reports whether nothing matching bad (nor a GOAWAY) arrives before
// the echoes of two PINGs, pingID and pingID+2, sent one after the other.
// The PINGs order the check after the server handled what came before; the
// second one because a server may echo a PING ahead of frames it queued
// earlier (spdylab's does, 2.6.5), in the same write.
func (p *peer) quiet(pingID uint32, bad func(spdy.Frame) bool) (bool, error) {
	for _, id := range []uint32{pingID, pingID + 2} {
		if err := p.send(&spdy.PingFrame{ID: id}); err != nil {
			return false, err
		}
		ok, err := p.await(func(f spdy.Frame) (bool, bool) {
			if _, goaway := f.(*spdy.GoAwayFrame); goaway || bad(f) {
				return true, false
			}
			pf, ok := f.(*spdy.PingFrame)
			return ok && pf.ID == id, true
		})
		if !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

// summary is what was received, for the report.
func (p *peer) summary() string {
	const keep = 6
	s := p.seen
	if len(s) > keep {
		s = append([]string{fmt.Sprintf("... %d earlier frames", p.nseen-keep)}, s[len(s)-keep:]...)
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, "; ")
}
