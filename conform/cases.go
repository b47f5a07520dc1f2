package conform

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"encoding/hex"
	"net"
	"slices"
	"strings"

	"github.com/spdylab/spdylab/spdy"
)

// Matchers for peer.await: done once the awaited frame (or a GOAWAY, which
// ends every case) arrives.

func rstOn(id uint32, want ...spdy.RstStatus) func(spdy.Frame) (bool, bool) {
	return func(f spdy.Frame) (bool, bool) {
		switch f := f.(type) {
		case *spdy.RstStreamFrame:
			if f.Stream == id {
				return true, slices.Contains(want, f.Status)
			}
		case *spdy.GoAwayFrame:
			return true, false
		}
		return false, false
	}
}

func goAway(status spdy.GoAwayStatus, lastGood int64) func(spdy.Frame) (bool, bool) {
	return func(f spdy.Frame) (bool, bool) {
		if g, ok := f.(*spdy.GoAwayFrame); ok {
			return true, g.Status == status && (lastGood < 0 || int64(g.LastGoodStream) == lastGood)
		}
		return false, false
	}
}

// replyOn waits for stream id's SYN_REPLY; check judges its headers.
func replyOn(id uint32, check func(spdy.Header) bool) func(spdy.Frame) (bool, bool) {
	return func(f spdy.Frame) (bool, bool) {
		switch f := f.(type) {
		case *spdy.SynReplyFrame:
			if f.Stream == id {
				return true, check == nil || check(f.Headers)
			}
		case *spdy.RstStreamFrame:
			return f.Stream == id, false
		case *spdy.GoAwayFrame:
			return true, false
		}
		return false, false
	}
}

// finOn waits until the server has finished stream id (FIN on SYN_REPLY or DATA).
func finOn(id uint32) func(spdy.Frame) (bool, bool) {
	return func(f spdy.Frame) (bool, bool) {
		switch f := f.(type) {
		case *spdy.SynReplyFrame:
			return f.Stream == id && f.Flags&spdy.FlagFin != 0, true
		case *spdy.DataFrame:
			return f.Stream == id && f.Flags&spdy.FlagFin != 0, true
		case *spdy.RstStreamFrame:
			return f.Stream == id, false
		case *spdy.GoAwayFrame:
			return true, false
		}
		return false, false
	}
}

// refused waits for stream id to be turned down: a GOAWAY or a RST_STREAM
// for it pass, its SYN_REPLY fails.
func refused(id uint32) func(spdy.Frame) (bool, bool) {
	return func(f spdy.Frame) (bool, bool) {
		switch f := f.(type) {
		case *spdy.GoAwayFrame:
			return true, true
		case *spdy.RstStreamFrame:
			return f.Stream == id, true
		case *spdy.SynReplyFrame:
			return f.Stream == id, false
		}
		return false, false
	}
}

func notRst(f spdy.Frame) bool { _, ok := f.(*spdy.RstStreamFrame); return ok }

func both(a, b func() (bool, error)) (bool, error) {
	ok, err := a()
	if !ok || err != nil {
		return ok, err
	}
	return b()
}

// hasStatus: a reply's status line is there (draft 2's "status" and
// "version" read as ":status" and ":version" through the v2 codec).
func hasStatus(h spdy.Header) bool { return h.Get(":status") != "" && h.Get(":version") != "" }

// goAwayError waits for the GOAWAY a session error sends: PROTOCOL_ERROR in
// SPDY/3; draft 2's GOAWAY has no status, so any GOAWAY there.
func (p *peer) goAwayError(lastGood int64) func(spdy.Frame) (bool, bool) {
	if !p.v2() {
		return goAway(spdy.GoAwayProtocolError, lastGood)
	}
	return func(f spdy.Frame) (bool, bool) {
		if g, ok := f.(*spdy.GoAwayFrame); ok {
			return true, lastGood < 0 || int64(g.LastGoodStream) == lastGood
		}
		return false, false
	}
}

// noStatus is the draft 2 expectation of a case whose SPDY/3 one is a
// GOAWAY PROTOCOL_ERROR.
const noStatus = "GOAWAY (draft 2's GOAWAY carries no status)"

// cases lists every case: the ones SPDY/3 and draft 2 share (in SPDY/3
// section order), then draft 2's own.
var cases = slices.Concat(sharedCases, flowCases, dosCases, draft2Cases)

var sharedCases = []Case{
	{ID: "goaway-before-close", Section: "2.1", Title: "the server sends GOAWAY before closing when the client half-closes",
		Expected: "GOAWAY before the connection closes",
		Draft2:   Draft2{Section: "Connections; GOAWAY", Title: "the server sends GOAWAY before closing when the client half-closes (draft 2: \"should always\")"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			if ok, err := p.await(finOn(1)); !ok || err != nil {
				return false, err
			}
			if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			}
			return p.await(goAway(spdy.GoAwayOK, -1))
		}},
	{ID: "control-frame-minimum", Section: "2.2.1", Title: "control frames of at least 8192 octets are accepted",
		Expected: "SYN_REPLY to a SYN_STREAM of about 11 KB",
		Draft2:   Draft2{Skip: "draft 2 sets no minimum control frame size (SPDY/3 2.2.1's 8192 octets are new in draft 3); header-lengths-16bit sends a larger frame"},
		run: func(p *peer, o *Options) (bool, error) {
			big := make([]byte, 10000) // random hex: about 11 KB compressed
			rand.Read(big)
			frame := p.synStream(1, spdy.FlagFin, p.block(p.request("GET", o.Path, "x-conform-padding", hex.EncodeToString(big))))
			if err := p.sendRaw(frame); err != nil {
				return false, err
			}
			return p.await(replyOn(1, nil))
		}},
	{ID: "unknown-stream-data", Section: "2.2.2", Title: "DATA for a stream that is not open gets INVALID_STREAM",
		Expected: "RST_STREAM stream=5 INVALID_STREAM",
		Draft2:   Draft2{Section: "Data frames"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.DataFrame{Stream: 5, Data: []byte("x")}); err != nil {
				return false, err
			}
			return p.await(rstOn(5, spdy.RstInvalidStream))
		}},
	{ID: "compressed-data", Section: "2.2.2", Title: "compressed DATA frames are accepted",
		Expected: "SYN_REPLY to a POST whose body is FLAG_COMPRESS DATA, no RST_STREAM",
		Draft2:   Draft2{Skip: "draft 2's DATA frames define FLAG_FIN only: FLAG_COMPRESS, and the MUST to accept it, are new in draft 3"},
		run: func(p *peer, o *Options) (bool, error) {
			var buf bytes.Buffer
			zw := zlib.NewWriter(&buf)
			zw.Write(bytes.Repeat([]byte("conform "), 512))
			zw.Flush()
			req := p.request("POST", o.Path, "content-length", "4096")
			if err := p.sendRaw(p.synStream(1, 0, p.block(req))); err != nil {
				return false, err
			}
			if err := p.send(&spdy.DataFrame{Stream: 1, Flags: spdy.FlagFin | spdy.FlagDataCompress, Data: buf.Bytes()}); err != nil {
				return false, err
			}
			return p.await(replyOn(1, hasStatus))
		}},
	{ID: "stream-id-decreasing", Section: "2.3.2", Title: "a SYN_STREAM id below an earlier one is a session PROTOCOL_ERROR",
		Expected: "GOAWAY PROTOCOL_ERROR",
		Draft2: Draft2{Section: "Stream creation", Title: "a SYN_STREAM id below an earlier one is not served (draft 2 forbids it, names no answer)",
			Expected: "GOAWAY or RST_STREAM stream=3, no SYN_REPLY for stream 3"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(5, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			if err := p.get(3, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			if p.v2() {
				return p.await(refused(3))
			}
			return p.await(goAway(spdy.GoAwayProtocolError, -1))
		}},
	{ID: "stream-id-reused", Section: "2.3.2", Title: "a second SYN_STREAM for the same stream gets PROTOCOL_ERROR",
		Expected: "RST_STREAM stream=1 PROTOCOL_ERROR",
		Draft2:   Draft2{Section: "SYN_STREAM"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstProtocolError))
		}},
	{ID: "data-after-fin", Section: "2.3.6", Title: "DATA after the sender's FIN gets STREAM_ALREADY_CLOSED",
		Expected: "RST_STREAM stream=1 STREAM_ALREADY_CLOSED (PROTOCOL_ERROR if the server had already closed it, 2.3.7)",
		Draft2:   Draft2{Skip: "draft 2 has no STREAM_ALREADY_CLOSED (its status codes are 1-7) and names no answer to DATA after FIN (Stream half-close)"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			if err := p.send(&spdy.DataFrame{Stream: 1, Data: []byte("late")}); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstStreamAlreadyClosed, spdy.RstProtocolError))
		}},
	{ID: "data-on-closed-stream", Section: "2.3.7", Title: "DATA on a closed stream gets PROTOCOL_ERROR",
		Expected: "RST_STREAM stream=1 PROTOCOL_ERROR after both sides sent FIN",
		Draft2: Draft2{Section: "Stream close", Title: "DATA on a closed (torn down) stream is ignored",
			Expected: "no RST_STREAM and no GOAWAY before the PING echoes, after both sides sent FIN (draft 3 made it PROTOCOL_ERROR)"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			if ok, err := p.await(finOn(1)); !ok || err != nil {
				return false, err
			}
			if err := p.send(&spdy.DataFrame{Stream: 1, Data: []byte("x")}); err != nil {
				return false, err
			}
			if p.v2() {
				return p.quiet(1, notRst)
			}
			return p.await(rstOn(1, spdy.RstProtocolError))
		}},
	{ID: "bad-compression", Section: "2.4.1", Title: "a header block that does not decompress is a session error",
		Expected: "GOAWAY PROTOCOL_ERROR",
		Draft2:   Draft2{Section: "Name/Value header block format", Expected: noStatus},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, []byte{0x78, 0xbb, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0xff, 0xff})); err != nil {
				return false, err
			}
			return p.await(p.goAwayError(-1))
		}},
	{ID: "no-rst-for-rst", Section: "2.4.2", Title: "RST_STREAM is never answered with RST_STREAM",
		Expected: "no RST_STREAM before the PING echoes",
		Draft2:   Draft2{Section: "RST_STREAM", Title: "no frame, RST_STREAM included, is sent for a stream after its RST_STREAM"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.RstStreamFrame{Stream: 7, Status: spdy.RstCancel}); err != nil {
				return false, err
			}
			return p.quiet(1, notRst)
		}},
	{ID: "rst-status-0", Section: "2.4.2", Title: "RST_STREAM with status 0 resets at most its stream, not the session",
		Expected: "PINGs echoed, no GOAWAY",
		Draft2:   Draft2{Section: "RST_STREAM"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			if err := p.sendRaw(p.control(3, 0, []byte{0, 0, 0, 1, 0, 0, 0, 0})); err != nil {
				return false, err
			}
			return p.quiet(1, notRst)
		}},
	{ID: "unsupported-version", Section: "2.6.3", Title: "a SYN_STREAM of another version gets UNSUPPORTED_VERSION, the session lives",
		Expected: "RST_STREAM stream=1 UNSUPPORTED_VERSION, then PINGs echoed",
		Draft2:   Draft2{Section: "Protocol versioning", Title: "a SYN_STREAM of another version (3) gets UNSUPPORTED_VERSION, the session lives"},
		run: func(p *peer, o *Options) (bool, error) {
			frame := p.synStream(1, spdy.FlagFin, []byte{0x78, 0xbb, 0, 0, 0, 0})
			frame[1] = byte(p.otherVersion())
			if err := p.sendRaw(frame); err != nil {
				return false, err
			}
			return both(func() (bool, error) { return p.await(rstOn(1, spdy.RstUnsupportedVersion)) },
				func() (bool, error) { return p.quiet(1, func(spdy.Frame) bool { return false }) })
		}},
	{ID: "ping-echo", Section: "2.6.5", Title: "a client PING (odd id) is echoed",
		Expected: "PINGs id=1 and id=3 echoed",
		Draft2:   Draft2{Section: "PING"},
		run: func(p *peer, o *Options) (bool, error) {
			return p.quiet(1, func(spdy.Frame) bool { return false })
		}},
	{ID: "ping-even-ignored", Section: "2.6.5", Title: "an even PING the server did not send is ignored",
		Expected: "no PING id=2 before the echoes of PINGs id=3 and id=5",
		Draft2:   Draft2{Section: "PING"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.PingFrame{ID: 2}); err != nil {
				return false, err
			}
			return p.quiet(3, func(f spdy.Frame) bool { pf, ok := f.(*spdy.PingFrame); return ok && pf.ID == 2 })
		}},
	{ID: "goaway-last-good-after-rst", Section: "2.6.6", Title: "GOAWAY's last-good-stream-id counts a stream answered with RST_STREAM",
		Expected: "RST_STREAM stream=1, then GOAWAY last_good_stream=1 PROTOCOL_ERROR",
		Draft2: Draft2{Skip: "draft 2's last-good-stream-id is the last stream accepted; counting streams answered with RST_STREAM is SPDY/3's (2.6.6), " +
			"and draft 2 names no answer to a malformed PING"},
		run: func(p *peer, o *Options) (bool, error) {
			bad := p.pairs(p.requestKV("GET", o.Path, "", "x")...) // a zero-length name
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(bad))); err != nil {
				return false, err
			}
			if ok, err := p.await(rstOn(1, spdy.RstProtocolError)); !ok || err != nil {
				return false, err
			}
			if err := p.sendRaw(p.control(6, 0, []byte{0, 0, 0, 1, 0})); err != nil { // PING of length 5
				return false, err
			}
			return p.await(goAway(spdy.GoAwayProtocolError, 1))
		}},
	{ID: "window-overflow", Section: "2.6.8", Title: "a WINDOW_UPDATE taking a stream window past 2^31-1 gets FLOW_CONTROL_ERROR",
		Expected: "RST_STREAM stream=1 FLOW_CONTROL_ERROR",
		Draft2:   Draft2{Skip: "draft 2 has no flow control: WINDOW_UPDATE was never implemented and is removed from it (window-update-ignored checks it is ignored)"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			if err := p.send(&spdy.WindowUpdateFrame{Stream: 1, Delta: 0x7fffffff}); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstFlowControlError))
		}},
	{ID: "zero-length-name", Section: "2.6.10", Title: "a zero-length header name gets PROTOCOL_ERROR",
		Expected: "RST_STREAM stream=1 PROTOCOL_ERROR",
		Draft2:   Draft2{Section: "Name/Value header block format"},
		run: func(p *peer, o *Options) (bool, error) {
			req := p.request("GET", o.Path, "", "x")
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(req))); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstProtocolError))
		}},
	{ID: "bad-value", Section: "2.6.10", Title: "a header value starting with NUL gets PROTOCOL_ERROR",
		Expected: "RST_STREAM stream=1 PROTOCOL_ERROR",
		Draft2:   Draft2{Section: "Name/Value header block format", Title: "a header value with two NULs in sequence gets PROTOCOL_ERROR"},
		run: func(p *peer, o *Options) (bool, error) {
			value := "\x00v"
			if p.v2() {
				value = "a\x00\x00v" // draft 2 names in-sequence NULs only
			}
			req := p.request("GET", o.Path, "x-a", value)
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(req))); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstProtocolError))
		}},
	{ID: "header-block-leftover", Section: "2.6.10", Title: "bytes after a complete header block are rejected, not carried to the next stream",
		Expected: "RST_STREAM stream=1 PROTOCOL_ERROR, then SYN_REPLY for stream 3",
		Draft2:   Draft2{Section: "Name/Value header block format"},
		run: func(p *peer, o *Options) (bool, error) {
			first := p.block(p.request("GET", o.Path))
			smuggled := p.block(p.request("GET", "/conform-smuggled-path"))
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, append(first, smuggled...))); err != nil {
				return false, err
			}
			if ok, err := p.await(rstOn(1, spdy.RstProtocolError)); !ok || err != nil {
				return false, err
			}
			if err := p.get(3, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			return p.await(replyOn(3, hasStatus))
		}},
	{ID: "header-bytes-bounded", Section: "2.6.7", Class: "header-accumulation",
		Title:    "HEADERS frames on one stream do not accumulate without bound (SPDY's CONTINUATION flood, CVE-2024-27316)",
		Expected: "RST_STREAM or GOAWAY before 8 MiB of headers arrive on one stream; memory bounded; a fresh connection served",
		Draft2:   Draft2{Section: "HEADERS"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			value := strings.Repeat("h", 16<<10)
			for i := 0; i < 512; i++ {
				blk := p.block(p.pairs("x-conform-"+hex.EncodeToString([]byte{byte(i >> 8), byte(i)}), value))
				if err := p.sendRaw(p.headers(1, 0, blk)); err != nil {
					if isClosed(err) {
						break // the server closed the connection: bounded
					}
					return false, err
				}
			}
			ok, err := p.await(func(f spdy.Frame) (bool, bool) {
				switch f := f.(type) {
				case *spdy.RstStreamFrame:
					return f.Stream == 1, true
				case *spdy.GoAwayFrame:
					return true, true
				}
				return false, false
			})
			if err == errClosed {
				ok, err = true, nil
			}
			return ok, err
		}},
	{ID: "missing-pseudo-headers", Section: "3.2.1", Title: "a request without :method gets 400",
		Expected: "SYN_REPLY :status 400",
		Draft2:   Draft2{Section: "Request", Title: "a request without method gets 400", Expected: "SYN_REPLY status 400"},
		run: func(p *peer, o *Options) (bool, error) {
			kv := p.requestKV("GET", o.Path)
			kv = append(kv[:2:2], kv[4:]...) // all but the method
			req := p.pairs(kv...)
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(req))); err != nil {
				return false, err
			}
			return p.await(replyOn(1, func(h spdy.Header) bool { return strings.HasPrefix(h.Get(":status"), "400") }))
		}},
	{ID: "reply-headers", Section: "3.2.2", Title: "a GET is answered with SYN_REPLY carrying :status and :version",
		Expected: "SYN_REPLY stream=1 with :status and :version",
		Draft2:   Draft2{Section: "Response", Title: "a GET is answered with SYN_REPLY carrying status and version", Expected: "SYN_REPLY stream=1 with status and version"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			return p.await(replyOn(1, hasStatus))
		}},
}

func isClosed(err error) bool {
	return err == errClosed || isReset(err) || strings.Contains(err.Error(), "broken pipe") || strings.Contains(err.Error(), net.ErrClosed.Error())
}
