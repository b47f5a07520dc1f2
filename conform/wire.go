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
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// peer is one hand-driven SPDY connection to the server under test. Header
// blocks are compressed here (not by spdy.Framer) so a case can send blocks
// the library would refuse to build; other frames go through the Framer.
type peer struct {
	conn net.Conn
	fr   *spdy.Framer
	bw   *bytes.Buffer // frames are assembled here, then written at once
	zbuf bytes.Buffer
	zw   *zlib.Writer
	host string
	wait time.Duration
	seen []string // every frame received, for the report
}

func dial(ctx context.Context, o *Options) (*peer, error) {
	d := net.Dialer{Timeout: o.timeout()}
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
	p := &peer{conn: c, bw: &bytes.Buffer{}, host: o.host, wait: o.timeout()}
	p.fr = spdy.NewFramer(p.bw, c, 0)
	p.zw, _ = zlib.NewWriterLevelDict(&p.zbuf, zlib.DefaultCompression, spdy.HeaderDictionary())
	return p, nil
}

func (p *peer) close() { p.conn.Close() }

// block compresses raw name/value bytes with the connection's context.
func (p *peer) block(raw []byte) []byte {
	p.zbuf.Reset()
	p.zw.Write(raw)
	p.zw.Flush()
	return append([]byte(nil), p.zbuf.Bytes()...)
}

// pairs encodes name/value pairs without any validation (2.6.10 layout).
func pairs(kv ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(kv)/2))
	for _, s := range kv {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func (p *peer) request(method, path string, extra ...string) []byte {
	kv := append([]string{":host", p.host, ":method", method, ":path", path, ":scheme", "https", ":version", "HTTP/1.1"}, extra...)
	return pairs(kv...)
}

func controlFrame(version uint16, typ uint16, flags uint8, payload []byte) []byte {
	b := []byte{0x80 | byte(version>>8), byte(version), byte(typ >> 8), byte(typ), flags}
	n := len(payload)
	b = append(b, byte(n>>16), byte(n>>8), byte(n))
	return append(b, payload...)
}

// synStream builds a SYN_STREAM around an already compressed block.
func synStream(id uint32, flags uint8, block []byte) []byte {
	pl := binary.BigEndian.AppendUint32(nil, id)
	pl = binary.BigEndian.AppendUint32(pl, 0)
	pl = append(pl, 3<<5, 0)
	return controlFrame(3, 1, flags, append(pl, block...))
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
	return p.sendRaw(synStream(id, flags, p.block(p.request("GET", path))))
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
				p.seen = append(p.seen, f.String()+" (undecodable: "+se.Reason+")")
				continue
			}
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err) {
				p.seen = append(p.seen, "connection closed")
				return nil, errClosed
			}
			return nil, err
		}
		p.seen = append(p.seen, f.String())
		switch f.(type) {
		case *spdy.SettingsFrame, *spdy.WindowUpdateFrame:
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

// quiet reports whether nothing matching bad arrives before a PING echo
// (the PING orders the check after the server handled what came before).
func (p *peer) quiet(pingID uint32, bad func(spdy.Frame) bool) (bool, error) {
	if err := p.send(&spdy.PingFrame{ID: pingID}); err != nil {
		return false, err
	}
	return p.await(func(f spdy.Frame) (bool, bool) {
		if bad(f) {
			return true, false
		}
		if g, ok := f.(*spdy.GoAwayFrame); ok {
			_ = g
			return true, false
		}
		pf, ok := f.(*spdy.PingFrame)
		return ok && pf.ID == pingID, true
	})
}

// summary is what was received, for the report.
func (p *peer) summary() string {
	const keep = 6
	s := p.seen
	if len(s) > keep {
		s = append([]string{fmt.Sprintf("... %d earlier frames", len(s)-keep)}, s[len(s)-keep:]...)
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, "; ")
}
